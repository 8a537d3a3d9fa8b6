"""macops.cluster.macos_update_wait's loop against a scripted node on a virtual clock: a node that printed
Downloaded and sits is restarted at the deadline (counted from Downloaded) (fdesetup authrestart with the credentials' plist on stdin where
FileVault is on, never in the command); a download still moving past the deadline is not restarted; an install that
does not move is stopped (its process group) and fails as macos_update_stalled; a follower gone with no result
fails; a progress file of another install is not this one's; a restart that never comes back says so."""
import json
import plistlib
from unittest import mock

import pytest

from ansible_collections.macops.cluster.plugins.action import macos_update_wait
from ansible_collections.macops.cluster.plugins.action.macos_update_wait import (ActionModule, progress_text,
                                                                                 this_install)

LABEL = "macOS Tahoe 26.3-25D60"
STARTED = 1000.5


class Node(object):
    """A node whose progress file is a function of the virtual time; it reboots into `build` at `boots_at`, or 5 s
    after a restart command."""

    def __init__(self, clock, timeline, boots_at=None, build="25D60", alive=True, comes_back=True, down_for=3):
        self.clock, self.timeline, self.boots_at, self.build = clock, timeline, boots_at, build
        self.alive, self.comes_back, self.down_for, self.commands = alive, comes_back, down_for, []

    def progress(self):
        found = None
        for at, document in self.timeline:
            if self.clock.now - self.clock.start >= at:
                found = document
        return found

    def ask(self, command, sudoable=False, in_data=None):
        self.commands.append((command, in_data))
        rebooted = self.boots_at is not None and self.clock.now >= self.boots_at
        if command.startswith("/usr/sbin/sysctl"):
            if self.boots_at is not None and self.clock.now >= self.boots_at - self.down_for and not rebooted:
                return None, "Connection refused"  # going down, then installing at boot
            if rebooted and not self.comes_back:
                return None, "Connection timed out"
            return 0, "BOOT-TWO" if rebooted else "BOOT-ONE"
        if command.startswith("/usr/bin/sw_vers"):
            return 0, self.build
        if command.startswith("cat "):
            progress = self.progress()
            return (0, json.dumps(progress)) if progress is not None else (1, "")
        if command.startswith("kill -0"):
            return (0 if self.alive else 1), ""
        if command.startswith("kill -TERM"):
            self.alive = False
            return 0, ""
        if "authrestart" in command or "shutdown" in command:
            self.boots_at = self.clock.now + 5
            return 0, ""
        raise AssertionError(command)


class Clock(object):
    def __init__(self):
        self.start = self.now = 5000.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


def doc(percent=None, downloaded=False, finished=False, label=LABEL, started_at=STARTED, **extra):
    return dict({"label": label, "started_at": started_at, "pid": 4242, "percent": percent, "downloaded": downloaded,
                 "phase": "downloaded" if downloaded else "downloading", "finished": finished, "error": None}, **extra)


def wait(node, clock, **args):
    task = mock.MagicMock()
    task.args = dict({"progress_file": "/p.json", "label": LABEL, "started_at": STARTED, "pid": 4242,
                      "boot_session": "BOOT-ONE", "build": "25D60", "deadline": 60, "stall_timeout": 30,
                      "restart_timeout": 60, "interval": 1}, **args)
    task.async_val = 0
    action = ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    action._play_context.check_mode = False
    warnings = []
    with mock.patch.object(macos_update_wait, "time", clock), mock.patch.object(action, "_ask", node.ask), \
            mock.patch.object(macos_update_wait.display, "warning", warnings.append), \
            mock.patch.object(macos_update_wait.display, "display", lambda text: None):
        result = action.run(task_vars={"inventory_hostname": "mac3"})
    return result, warnings


def test_a_node_that_sits_after_downloaded_gets_fileVault_s_authenticated_restart_at_the_deadline():
    clock = Clock()
    node = Node(clock, [(0, doc(10.0)), (10, doc(100.0, downloaded=True))])
    result, warnings = wait(node, clock, filevault=True, owner="admin", password="s3cret")
    assert result["rebooted"] and result["restarted_by_deadline"] and result["build"] == "25D60"
    [(command, stdin)] = [(c, i) for c, i in node.commands if "authrestart" in c]
    assert "s3cret" not in command and plistlib.loads(stdin.encode()) == {"Username": "admin", "Password": "s3cret"}
    assert clock.now - clock.start >= 60 and "authenticated restart" in warnings[0]


def test_without_fileVault_the_restart_is_a_plain_one():
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True))])
    result, _warnings = wait(node, clock)
    assert result["restarted_by_deadline"] and [c for c, _ in node.commands if c.startswith("/sbin/shutdown")]


def test_a_download_still_moving_past_the_deadline_is_not_restarted():
    clock = Clock()
    # 1 % every 20 s: past the 60 s deadline, never 30 s without a move; it restarts by itself at 200 s.
    node = Node(clock, [(t, doc(float(t) / 20)) for t in range(0, 200, 20)], boots_at=clock.start + 200)
    result, warnings = wait(node, clock)
    assert result["rebooted"] and not result["restarted_by_deadline"] and not result.get("failed")
    assert not [c for c, _ in node.commands if "shutdown" in c] and warnings == []


def test_a_node_that_stops_answering_is_restarting_not_stalled_or_restarted_until_its_boot_deadline():
    """Issue 48: the Mac went down before its progress file said Downloaded (a race at shutdown), then installs at
    boot for 80 s with SSH down: past the stall timeout (30 s) and the deadline (60 s), never restarted, never called
    stalled; back on its build within restart_timeout."""
    clock = Clock()
    node = Node(clock, [(0, doc(50.0)), (10, doc(90.0))], boots_at=clock.start + 100, down_for=80)
    result, warnings = wait(node, clock, restart_timeout=120)
    assert result["rebooted"] and result["build"] == "25D60" and not result.get("failed"), result
    assert not result["restarted_by_deadline"] and warnings == []
    assert not [c for c, _ in node.commands if "shutdown" in c or "authrestart" in c or c.startswith("kill -TERM")]


def test_no_restart_is_forced_on_a_node_that_went_down_after_downloaded_before_the_deadline():
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True))], boots_at=clock.start + 130, down_for=80)
    result, warnings = wait(node, clock, restart_timeout=120)
    assert result["rebooted"] and not result["restarted_by_deadline"] and warnings == []
    assert not [c for c, _ in node.commands if "shutdown" in c or "authrestart" in c]


def test_a_node_down_longer_than_its_restart_timeout_is_unreachable():
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True))], boots_at=clock.start + 200, down_for=190)
    result, _warnings = wait(node, clock, restart_timeout=60)
    assert result["failed"] and result["reachable"] is False and "did not come back within 60 s" in result["msg"]
    assert not result["restarted_by_deadline"] and 70 <= clock.now - clock.start < 75


def test_softwareupdate_ending_after_downloaded_with_any_status_is_the_mac_shutting_down():
    """softwareupdate is killed as the Mac shuts down (exit status -15 here): not "stopped without restarting"."""
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True, finished=True, rc=-15))], boots_at=clock.start + 20)
    result, _warnings = wait(node, clock)
    assert result["rebooted"] and not result.get("failed") and not result["restarted_by_deadline"], result


def test_an_install_that_does_not_move_is_stopped_and_fails_as_stalled():
    clock = Clock()
    node = Node(clock, [(0, doc(40.0))])
    result, _warnings = wait(node, clock)
    assert result["failed"] and result["code"] == "macos_update_stalled" and "keeps its build" in result["msg"]
    assert [c for c, _ in node.commands if c.startswith("kill -TERM -- -4242")]
    assert 30 <= clock.now - clock.start < 35


def test_a_follower_gone_with_no_result_fails_at_once():
    clock = Clock()
    node = Node(clock, [(0, doc(40.0))], alive=False)
    result, _warnings = wait(node, clock)
    assert result["failed"] and "pid 4242" in result["msg"] and clock.now - clock.start < 5


def test_softwareupdate_s_error_fails_with_its_line():
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True, finished=True, rc=1, error="Failed to authenticate"))])
    result, _warnings = wait(node, clock)
    assert result["failed"] and result["msg"].endswith("Failed to authenticate") and not result["restarted_by_deadline"]


def test_another_install_s_progress_file_is_not_this_one_s():
    clock = Clock()
    stale = doc(100.0, downloaded=True, finished=True, rc=1, error="Failed to authenticate", started_at=STARTED - 600)
    node = Node(clock, [(0, stale)])
    result, _warnings = wait(node, clock)
    assert result["code"] == "macos_update_stalled" and "never started" in result["msg"]


def test_a_restart_that_never_comes_back_says_so_and_the_node_is_unreachable():
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True))], comes_back=False)
    result, _warnings = wait(node, clock)
    assert result["failed"] and result["restarted_by_deadline"] and result["reachable"] is False
    assert "did not come back within 60 s" in result["msg"]
    # Restarted at 60 s after Downloaded, down 2 s later, failed 60 s after that.
    assert 120 <= clock.now - clock.start < 126


def test_a_node_on_another_build_after_its_restart_fails():
    clock = Clock()
    node = Node(clock, [(0, doc(100.0, downloaded=True))], boots_at=clock.start + 10, build="25D72")
    result, _warnings = wait(node, clock)
    assert result["failed"] and "25D72, not 25D60" in result["msg"]


def test_a_download_ends_downloaded_without_any_restart():
    """Issue 48: the download and preparation while the node serves: done at softwareupdate's end, nothing
    restarted, no deadline restart however long it takes while it moves."""
    clock = Clock()
    timeline = [(t, doc(float(t) / 3)) for t in range(0, 300, 20)] + [
        (300, doc(100.0, downloaded=True, finished=True, rc=0))]
    node = Node(clock, timeline)
    result, warnings = wait(node, clock, restart=False)
    assert result["downloaded"] and result["changed"] and not result["rebooted"] and not result.get("failed")
    assert not [c for c, _ in node.commands if "shutdown" in c or "authrestart" in c or c.startswith("/usr/sbin")]
    assert 300 <= clock.now - clock.start < 302 and warnings == []


@pytest.mark.parametrize("timeline, expected", [
    ([(0, doc(100.0, downloaded=True, finished=True, rc=1, error="Failed to authenticate"))],
     "its download stopped: Failed to authenticate; nothing was installed"),
    ([(0, doc(40.0))], "no progress from the download for 30 s (download"),
])
def test_a_download_that_fails_or_stalls_says_so_and_installs_nothing(timeline, expected):
    clock = Clock()
    node = Node(clock, timeline)
    result, _warnings = wait(node, clock, restart=False)
    assert result["failed"] and result["msg"].startswith(expected) and not result["downloaded"], result
    assert not [c for c, _ in node.commands if "shutdown" in c or "authrestart" in c]


def test_a_follower_kill_cannot_signal_for_want_of_root_is_not_gone():
    """`kill -0` run without root fails on root's process with "Operation not permitted": it is still there."""
    clock = Clock()
    node = Node(clock, [(0, doc(40.0)), (10, doc(100.0, downloaded=True, finished=True, rc=0))])
    real = node.ask
    node.ask = lambda command, sudoable=False, in_data=None: (
        (1, "sh: kill: (4242) - Operation not permitted") if command.startswith("kill -0") else real(
            command, sudoable, in_data))
    result, _warnings = wait(node, clock, restart=False)
    assert result["downloaded"] and not result.get("failed"), result


def test_a_download_s_follower_gone_with_no_result_fails():
    clock = Clock()
    node = Node(clock, [(0, doc(40.0))], alive=False)
    result, _warnings = wait(node, clock, restart=False)
    assert result["failed"] and "pid 4242" in result["msg"] and clock.now - clock.start < 5


@pytest.mark.parametrize("progress, line", [
    ({"percent": 53.9, "phase": "downloading"}, "downloading 54 %"),
    ({"percent": 75.0, "phase": "preparing"}, "preparing 75 %"),
    ({"downloaded": True}, "downloaded and prepared; restarting into the new build"),
    ({"error": "No such update", "downloaded": False}, "install failed: No such update"),
    ({"percent": None}, "finding the update"),
    (None, None),
])
def test_the_wait_shows_one_line_per_progress(progress, line):
    assert progress_text(progress) == line


def test_a_download_s_lines_say_download():
    assert progress_text({"downloaded": True}, restart=False) == "downloaded and prepared; ready to install"
    assert progress_text({"error": "Failed to authenticate"}, restart=False) == "download failed: Failed to authenticate"


def test_only_this_install_s_progress_counts():
    assert this_install(doc(1.0), LABEL, STARTED) is not None
    assert this_install(doc(1.0, label="macOS Tahoe 26.3-25D72"), LABEL, STARTED) is None
    assert this_install(doc(1.0, started_at="x"), LABEL, STARTED) is None
    assert this_install(None, LABEL, STARTED) is None
