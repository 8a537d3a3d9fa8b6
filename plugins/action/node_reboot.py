# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.node_reboot: ansible.builtin.reboot, asking whether the node is
back every poll_interval seconds, after stopping the launchd jobs of stop_labels in the same SSH
session (documentation: plugins/modules/node_reboot.py).

The builtin doubles its wait after each failed try (1, 2, 4, 8, then 12 s), so a Mac whose sshd is
back at 30 s is seen only at the try near 39 s: a quarter of the boot time is spent waiting on the
controller, on every node of every reboot. A steady short step finds it within a second."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import shlex
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


# `launchctl bootout` of a job launchd does not know: 113 (macOS 11 and later), 3 (older).
NOT_LOADED_CODES = (3, 113)
# sh's status for a command ended by SIGTERM (128 + 15): the watchdog's kill after stop_timeout.
KILLED_BY_WATCHDOG = 143
STOP_MARK = "macops-stop"


def stop_command(launchctl, labels, timeout):
    """One sh command that boots out each label from the system domain (SIGTERM, then launchd's
    wait for the job to exit), each bounded by a watchdog that ends the launchctl client after
    `timeout` seconds (macOS has no timeout(1)), and prints `macops-stop LABEL STATUS` per label."""
    # The watchdog waits on its sleep so that the TERM it gets when the job ended first ends the
    # sleep too: nothing of the stop is left running on the node. Its trap reads $!, which names the
    # sleep as soon as it is started (a TERM between starting it and saving its pid in a variable
    # left it running); before that $! is still the job's, inherited from the loop, and is spared.
    # The sleep gets KILL and is waited for: a TERM that reaches it between fork and exec is lost
    # (the shell's inherited trap takes it), and the stop would wait out the whole timeout.
    return ("for label in %s; do %s bootout \"system/$label\" >/dev/null 2>&1 & job=$!; "
            "( trap '[ \"$!\" = \"$job\" ] || { kill -s KILL \"$!\"; wait \"$!\"; }; exit 0' TERM; "
            "sleep %d & wait \"$!\"; kill \"$job\" ) "
            ">/dev/null 2>&1 & watchdog=$!; "
            "wait \"$job\"; status=$?; kill \"$watchdog\" >/dev/null 2>&1; wait \"$watchdog\"; "
            "echo \"%s $label $status\"; done" % (
                " ".join(shlex.quote(label) for label in labels), shlex.quote(launchctl), int(timeout), STOP_MARK))


def stop_outcomes(stdout, labels, timeout):
    """Per label {label, status, state, msg}, state one of stopped, not_loaded, timeout, failed."""
    statuses = {}
    for line in (stdout or "").splitlines():
        words = line.split()
        if len(words) == 3 and words[0] == STOP_MARK and words[2].isdigit():
            statuses[words[1]] = int(words[2])
    outcomes = []
    for label in labels:
        status = statuses.get(label)
        if status == 0:
            state, msg = "stopped", "stopped"
        elif status in NOT_LOADED_CODES:
            state, msg = "not_loaded", "not loaded on this node"
        elif status == KILLED_BY_WATCHDOG:
            state, msg = "timeout", "did not stop within %d s; the reboot ends it" % timeout
        elif status is None:
            state, msg = "failed", "no answer from the stop command; the reboot ends it"
        else:
            state, msg = "failed", "launchctl bootout exited %d; the reboot ends it" % status
        outcomes.append({"label": label, "status": status, "state": state, "msg": msg})
    return outcomes


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
    _VALID_ARGS = RebootAction._VALID_ARGS | frozenset(("poll_interval", "stop_labels", "stop_timeout", "launchctl"))

    def run(self, tmp=None, task_vars=None):
        self._stopped = None
        try:
            self._poll_interval = poll_interval(self._task.args.get("poll_interval"))
            self._stop_labels = [str(label) for label in self._task.args.get("stop_labels") or []]
            self._stop_timeout = int(self._task.args.get("stop_timeout", 30))
        except (AnsibleError, TypeError, ValueError) as error:
            return {"failed": True, "changed": False, "rebooted": False, "msg": to_text(error)}
        result = super(ActionModule, self).run(tmp, task_vars)
        if self._stopped is not None:
            result["stopped"] = self._stopped
            late = [outcome for outcome in self._stopped if outcome["state"] in ("timeout", "failed")]
            if late:
                result.setdefault("warnings", []).append("; ".join(
                    "%s: %s" % (outcome["label"], outcome["msg"]) for outcome in late))
        return result

    def perform_reboot(self, task_vars, distribution):
        """Stop the jobs first, in one command over the open connection (a module run for it costs
        a second per node on the way down), then the builtin's reboot."""
        if self._stop_labels:
            launchctl = self._task.args.get("launchctl") or "/bin/launchctl"
            answer = self._low_level_execute_command(
                stop_command(launchctl, self._stop_labels, self._stop_timeout), sudoable=self.DEFAULT_SUDOABLE)
            self._stopped = stop_outcomes(answer.get("stdout", ""), self._stop_labels, self._stop_timeout)
        return super(ActionModule, self).perform_reboot(task_vars, distribution)

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
