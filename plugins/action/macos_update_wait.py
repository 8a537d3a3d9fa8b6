# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.macos_update_wait: follow a node's macOS download or install (the progress file
macops.cluster.macos_update_install's detached process writes), wait for its restart into the new build, restart a
node that sits after its download without restarting, and stop an install that does not move (documentation:
plugins/modules/macos_update_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import plistlib
import time
from shlex import quote

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()

ARGUMENT_SPEC = dict(
    progress_file=dict(type="str", required=True),
    label=dict(type="str", required=True),
    started_at=dict(type="float", required=True),
    pid=dict(type="int", required=True),
    boot_session=dict(type="str", required=True),
    build=dict(type="str", required=True),
    deadline=dict(type="int", default=900),
    stall_timeout=dict(type="int", default=2400),
    restart_timeout=dict(type="int", default=2700),
    interval=dict(type="float", default=5.0),
    filevault=dict(type="bool", default=False),
    owner=dict(type="str"),
    password=dict(type="str", no_log=True),
    boot_command=dict(type="str", default="/usr/sbin/sysctl -n kern.bootsessionuuid"),
    build_command=dict(type="str", default="/usr/bin/sw_vers -buildVersion"),
    restart_command=dict(type="str", default="/sbin/shutdown -r now"),
    authrestart_command=dict(type="str", default="/usr/bin/fdesetup authrestart -delayminutes 0 -inputplist"),
    restart=dict(type="bool", default=True),
)
# `kill -0`'s exit status for a process that is gone (shell builtin, macOS and Linux alike).
GONE = 1


def progress_text(progress, restart=True):
    """One line for a person from the install's progress document (a download's when not `restart`)."""
    if not isinstance(progress, dict):
        return None
    if progress.get("error"):
        return "%s failed: %s" % ("install" if restart else "download", progress["error"])
    if progress.get("downloaded"):
        return "downloaded and prepared; %s" % ("restarting into the new build" if restart else "ready to install")
    if progress.get("percent") is not None:
        return "%s %.0f %%" % (progress.get("phase") or "downloading", float(progress["percent"]))
    return "finding the update"


def this_install(progress, label, started_at):
    """The progress document when it is this install's (its label and start), else None (a stale file)."""
    if not isinstance(progress, dict) or progress.get("label") != label:
        return None
    try:
        return progress if abs(float(progress.get("started_at")) - started_at) < 0.001 else None
    except (TypeError, ValueError):
        return None


def credentials_plist(owner, password):
    """fdesetup's -inputplist document (Username, Password), for its stdin only."""
    return plistlib.dumps({"Username": owner, "Password": password}).decode("utf-8")


class Follower(object):
    """What the wait has seen of one install: its last progress, when it last moved, whether its download is done."""

    def __init__(self, started):
        self.started = started
        self.moved = started
        self.key = None
        self.shown = None
        self.downloaded = False
        self.gone = 0  # consecutive looks that found the following process gone

    def saw(self, progress, now):
        key = (progress.get("phase"), progress.get("percent"), progress.get("downloaded"), progress.get("finished"))
        if key != self.key:
            self.key, self.moved = key, now
        self.downloaded = self.downloaded or bool(progress.get("downloaded"))


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def _ask(self, command, sudoable=False, in_data=None):
        """(rc, stdout) of a raw command on the node; (None, error) when the node does not answer."""
        try:
            found = self._low_level_execute_command(command, sudoable=sudoable, in_data=in_data)
        except (AnsibleConnectionFailure, AnsibleError) as error:
            try:
                self._connection.reset()
            except AnsibleConnectionFailure:
                pass
            return None, str(error).splitlines()[-1] if str(error) else type(error).__name__
        if found.get("rc") == 255:  # ssh's own failure: the node is going down or not up yet
            return None, (found.get("stderr") or "ssh failed").strip()
        return found.get("rc"), (found.get("stdout") or "").strip()

    def _progress(self, args):
        rc, stdout = self._ask("cat %s" % quote(args["progress_file"]))
        if rc != 0:
            return None
        try:
            return this_install(json.loads(stdout), args["label"], args["started_at"])
        except ValueError:
            return None

    def _restart(self, args, host):
        if args["filevault"]:
            display.warning("%s did not restart within %d s of its Downloaded: restarting it with FileVault's "
                            "authenticated restart" % (host, args["deadline"]))
            return self._ask(args["authrestart_command"], sudoable=True,
                             in_data=credentials_plist(args["owner"], args["password"]))
        display.warning("%s did not restart within %d s of its Downloaded: restarting it (%s)" % (
            host, args["deadline"], args["restart_command"]))
        return self._ask(args["restart_command"], sudoable=True)

    def _follower_gone(self, args):
        """Whether the process that follows softwareupdate is gone: `kill -0` fails for it, and not for want of
        permission (a look without root cannot signal root's process, which is then still there)."""
        rc, said = self._ask("kill -0 %d 2>&1" % args["pid"], sudoable=True)
        return rc == GONE and "not permitted" not in (said or "")

    def _stop(self, args):
        """End the install's process group (softwareupdate with it), so that it cannot restart the node later."""
        self._ask("kill -TERM -- -%d 2>/dev/null || kill -TERM %d" % (args["pid"], args["pid"]), sudoable=True)

    def _gone(self, args, seen):
        """Whether the process that follows softwareupdate was found gone at two looks in a row (one is a race with
        its last write)."""
        seen.gone = seen.gone + 1 if self._follower_gone(args) else 0
        return seen.gone >= 2

    def _stalled(self, args, seen, now, what, outcome):
        """{code, msg} once `what` (the download, the install) showed no progress for stall_timeout seconds, its
        process group stopped; None while it moves. `outcome`: what that leaves on the node."""
        if now - seen.moved <= args["stall_timeout"]:
            return None
        self._stop(args)
        return {"code": "macos_update_stalled", "msg": "no progress from the %s for %d s (%s); update-macos.yml "
                "stopped it and %s" % (what, args["stall_timeout"], seen.shown or "it never started", outcome)}

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        if self._play_context.check_mode:
            result.update(changed=True, rebooted=args["restart"], restarted_by_deadline=False, reachable=True)
            result.update({"build": args["build"]} if args["restart"] else {"downloaded": True})
            return result
        if not args["restart"]:
            return self._follow_download(args, task_vars.get("inventory_hostname", "?"), result)
        if args["filevault"] and not (args["owner"] and args["password"]):
            raise AnsibleError("macos_update_wait: filevault needs owner and password (for fdesetup authrestart)")
        return self._follow(args, task_vars.get("inventory_hostname", "?"), result)

    def _show(self, seen, progress, host, restart=True):
        line = progress_text(progress, restart)
        if line and line != seen.shown:
            display.display("%s: %s" % (host, line))
            seen.shown = line

    def _follow_download(self, args, host, result):
        """A download and preparation (macos_update_install mode=download): done when softwareupdate ended after
        `Downloaded:` with status 0; fails on its error line (a wrong password: `Failed to authenticate`), when its
        follower is gone with no result, or after stall_timeout seconds without progress (stopped: nothing was
        installed). The node never restarts here; an unreachable one is no progress."""
        seen = Follower(time.time())
        result.update(changed=False, rebooted=False, restarted_by_deadline=False, reachable=True, downloaded=False)
        while True:
            now = time.time()
            progress = self._progress(args)
            if progress is not None:
                seen.saw(progress, now)
                self._show(seen, progress, host, restart=False)
                if progress.get("finished"):
                    if progress.get("error") or progress.get("rc") or not progress.get("downloaded"):
                        result.update(failed=True, msg="its download stopped: %s; nothing was installed" % (
                            progress.get("error") or progress.get("last") or "exit status %s" % progress.get("rc")))
                    else:
                        result.update(changed=True, downloaded=True, waited=round(now - seen.started, 1))
                    return result
                if self._gone(args, seen):
                    result.update(failed=True, msg="the process that runs softwareupdate --download (pid %d) ended "
                                                   "without a result; nothing was installed" % args["pid"])
                    return result
            stalled = self._stalled(args, seen, now, "download", "nothing was installed")
            if stalled:
                result.update(stalled, failed=True, reachable=progress is not None)
                return result
            time.sleep(args["interval"])

    def _follow(self, args, host, result):
        """Phases, each judged by its own clock: the install (download and preparation, judged by progress: stopped
        after stall_timeout seconds without any), the restart (a node that printed Downloaded restarts within
        seconds; one still up with its old boot session deadline seconds after Downloaded is restarted), and the
        boot (a node that stops answering is restarting, not failed, until restart_timeout seconds later: macOS
        installs the update at boot with SSH down). No restart is forced on a node that does not answer."""
        seen = Follower(time.time())
        restarted_at, down_since, downloaded_at, last_error = None, None, None, ""

        def failed(message, **extra):
            result.update(dict({"failed": True, "changed": False, "rebooted": False, "reachable": True,
                                "restarted_by_deadline": restarted_at is not None, "msg": message}, **extra))
            return result

        while True:
            now = time.time()
            rc, boot = self._ask(args["boot_command"])
            if rc == 0 and boot and boot != args["boot_session"]:
                rc, build = self._ask(args["build_command"])
                if rc == 0 and build:
                    result.update(changed=True, rebooted=True, build=build, reachable=True,
                                  restarted_by_deadline=restarted_at is not None, waited=round(now - seen.started, 1))
                    if build != args["build"]:
                        result.update(failed=True, msg="it restarted on build %s, not %s" % (build, args["build"]))
                    return result
            if rc is None:  # restarting (or its network is gone): the boot's clock runs from the first miss
                last_error, down_since = boot, down_since or now
                if seen.shown != "restarting":
                    display.display("%s: restarting (not answering: %s)" % (host, boot))
                    seen.shown = "restarting"
                if now - down_since > args["restart_timeout"]:
                    return failed("it stopped answering %d s ago (restarting) and did not come back within %d s%s" % (
                        now - down_since, args["restart_timeout"],
                        "; last error: %s" % last_error if last_error else ""), reachable=False)
                time.sleep(args["interval"])
                continue
            down_since = None
            if restarted_at is None:
                progress = self._progress(args)
                if progress is not None:
                    seen.saw(progress, now)
                    self._show(seen, progress, host)
                    # An error line fails at once; an exit after Downloaded is the Mac shutting down (softwareupdate
                    # ends with it, whatever its status): the restart follows.
                    if progress.get("finished") and (progress.get("error") or (
                            progress.get("rc") and not progress.get("downloaded"))):
                        return failed("softwareupdate stopped without restarting: %s" % (
                            progress.get("error") or progress.get("last") or "exit status %s" % progress.get("rc")))
                if not (progress or {}).get("finished") and self._gone(args, seen) and not seen.downloaded:
                    return failed("the process that runs softwareupdate (pid %d) ended without a result; the node "
                                  "keeps its build" % args["pid"])
            if seen.downloaded and downloaded_at is None:
                downloaded_at = now
            if restarted_at is None and downloaded_at is not None and now - downloaded_at > args["deadline"]:
                self._restart(args, host)
                restarted_at = now
            elif restarted_at is not None and now - restarted_at > args["restart_timeout"]:
                return failed("it still answers on its old boot session %d s after its restart" % (now - restarted_at))
            elif restarted_at is None and not seen.downloaded:
                stalled = self._stalled(args, seen, now, "install", "the node keeps its build")
                if stalled:
                    return failed(stalled["msg"], code=stalled["code"])
            time.sleep(args["interval"])
