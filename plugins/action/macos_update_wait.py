# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.macos_update_wait: follow a node's macOS install (the progress file
macops.cluster.macos_update_install writes), wait for its restart into the new build, and restart a node that sits
after its download without restarting (documentation: plugins/modules/macos_update_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time
from shlex import quote

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()

ARGUMENT_SPEC = dict(
    progress_file=dict(type="str", required=True),
    boot_session=dict(type="str", required=True),
    build=dict(type="str", required=True),
    deadline=dict(type="int", default=3600),
    restart_timeout=dict(type="int", default=900),
    interval=dict(type="float", default=5.0),
    boot_command=dict(type="str", default="/usr/sbin/sysctl -n kern.bootsessionuuid"),
    build_command=dict(type="str", default="/usr/bin/sw_vers -buildVersion"),
    restart_command=dict(type="str", default="/sbin/shutdown -r now"),
)


def progress_text(progress):
    """One line for a person from the install's progress document."""
    if not isinstance(progress, dict):
        return None
    if progress.get("error"):
        return "install failed: %s" % progress["error"]
    if progress.get("downloaded"):
        return "downloaded and prepared; restarting into the new build"
    if progress.get("percent") is not None:
        return "%s %.0f %%" % (progress.get("phase") or "downloading", float(progress["percent"]))
    return "finding the update"


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def _ask(self, command, sudoable=False):
        """(rc, stdout) of a raw command on the node; (None, error) when the node does not answer."""
        try:
            found = self._low_level_execute_command(command, sudoable=sudoable)
        except (AnsibleConnectionFailure, AnsibleError) as error:
            try:
                self._connection.reset()
            except AnsibleConnectionFailure:
                pass
            return None, str(error).splitlines()[-1] if str(error) else type(error).__name__
        if found.get("rc") == 255:  # ssh's own failure: the node is going down or not up yet
            return None, (found.get("stderr") or "ssh failed").strip()
        return found.get("rc"), (found.get("stdout") or "").strip()

    def _progress(self, path):
        rc, stdout = self._ask("cat %s" % quote(path))
        if rc != 0:
            return None
        try:
            return json.loads(stdout)
        except ValueError:
            return None

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        if self._play_context.check_mode:
            result.update(changed=True, rebooted=True, build=args["build"], restarted_by_deadline=False)
            return result
        host = task_vars.get("inventory_hostname", "?")
        started = time.time()
        restarted_at, shown, last_error, seen = None, None, "", False
        while True:
            rc, boot = self._ask(args["boot_command"])
            if rc == 0 and boot and boot != args["boot_session"]:
                rc, build = self._ask(args["build_command"])
                if rc == 0 and build:
                    result.update(changed=True, rebooted=True, build=build, restarted_by_deadline=restarted_at is not None,
                                  waited=round(time.time() - started, 1))
                    if build != args["build"]:
                        result.update(failed=True, msg="it restarted on build %s, not %s" % (build, args["build"]))
                    return result
            elif rc is None:
                last_error = boot
            elif restarted_at is None:
                progress = self._progress(args["progress_file"])
                seen = seen or progress is not None
                line = progress_text(progress)
                if line and line != shown:
                    display.display("%s: %s" % (host, line))
                    shown = line
                if isinstance(progress, dict) and progress.get("finished") and (progress.get("error") or progress.get("rc")):
                    result.update(failed=True, changed=False, rebooted=False, restarted_by_deadline=False,
                                  msg="softwareupdate stopped without restarting: %s" % (
                                      progress.get("error") or progress.get("last") or "exit status %s" % progress.get("rc")))
                    return result
            now = time.time()
            if restarted_at is None and now - started > args["deadline"] and not seen:
                # No line from softwareupdate at all: the install never started, and a restart would cure nothing.
                result.update(failed=True, changed=False, rebooted=False, restarted_by_deadline=False,
                              msg="no progress from the install within %d s: it never started (%s)" % (
                                  args["deadline"], args["progress_file"]))
                return result
            if restarted_at is None and now - started > args["deadline"]:
                display.warning("%s did not restart within %d s of its install: restarting it (%s)" % (
                    host, args["deadline"], args["restart_command"]))
                self._ask(args["restart_command"], sudoable=True)
                restarted_at = now
            if restarted_at is not None and now - restarted_at > args["restart_timeout"]:
                result.update(failed=True, changed=False, rebooted=False, restarted_by_deadline=True,
                              msg="it did not come back within %d s of its restart%s" % (
                                  args["restart_timeout"], "; last error: %s" % last_error if last_error else ""))
                return result
            time.sleep(args["interval"])
