# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.node_reboot: ansible.builtin.reboot, asking whether the node is
back every poll_interval seconds (documentation: plugins/modules/node_reboot.py).

The builtin doubles its wait after each failed try (1, 2, 4, 8, then 12 s), so a Mac whose sshd is
back at 30 s is seen only at the try near 39 s: a quarter of the boot time is spent waiting on the
controller, on every node of every reboot. A steady short step finds it within a second."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action.reboot import ActionModule as RebootAction
from ansible.plugins.action.reboot import TimedOutException
from ansible.utils.display import Display

display = Display()

DEFAULT_POLL_INTERVAL = 1.0
# A try against a node that is down costs an SSH connection attempt; below this it is only noise.
MIN_POLL_INTERVAL = 0.2


def poll_interval(value):
    """The poll interval option as seconds (float), or AnsibleError naming what is allowed."""
    if value is None:
        return DEFAULT_POLL_INTERVAL
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = None
    if seconds is None or seconds < MIN_POLL_INTERVAL:
        raise AnsibleError("poll_interval = %r is refused: it must be a number of seconds of at least %s."
                           % (value, MIN_POLL_INTERVAL))
    return seconds


class ActionModule(RebootAction):
    _VALID_ARGS = RebootAction._VALID_ARGS | frozenset(("poll_interval",))

    def run(self, tmp=None, task_vars=None):
        try:
            self._poll_interval = poll_interval(self._task.args.get("poll_interval"))
        except AnsibleError as error:
            return {"failed": True, "changed": False, "rebooted": False, "msg": to_text(error)}
        return super(ActionModule, self).run(tmp, task_vars)

    def get_distribution(self, task_vars):
        """The builtin runs the setup module only to pick the commands; with all three given, the
        platform is the one this module documents, and the facts' when they were gathered."""
        if all(self._task.args.get(name) for name in ("reboot_command", "boot_time_command", "test_command")):
            facts = (task_vars or {}).get("ansible_facts", {})
            return {"name": str(facts.get("distribution", "MacOSX")).lower(),
                    "version": str(facts.get("distribution_version", "")).split(".", maxsplit=1)[0],
                    "family": str(facts.get("os_family", "Darwin")).lower()}
        return super(ActionModule, self).get_distribution(task_vars)

    def do_until_success_or_timeout(self, action, reboot_timeout, action_desc, distribution, action_kwargs=None):
        """Try `action` every poll interval until it succeeds or reboot_timeout seconds have passed."""
        deadline = time.monotonic() + reboot_timeout
        last_error = ""
        while time.monotonic() < deadline:
            try:
                action(distribution=distribution, **(action_kwargs or {}))
                return
            # Any failure means "not back yet", as in the builtin.
            except Exception as error:  # pylint: disable=broad-except
                if isinstance(error, AnsibleConnectionFailure):
                    try:
                        self._connection.reset()
                    except AnsibleConnectionFailure:
                        pass
                lines = to_text(error).splitlines()
                last_error = lines[-1] if lines else type(error).__name__
                display.vvv("%s: %s failed (%s), trying again in %.1f s" % (
                    self._task.action, action_desc, last_error, self._poll_interval))
            time.sleep(max(0.0, min(self._poll_interval, deadline - time.monotonic())))
        raise TimedOutException("Timed out waiting for %s (timeout=%s)%s" % (
            action_desc, reboot_timeout, "; last error: %s" % last_error if last_error else ""))
