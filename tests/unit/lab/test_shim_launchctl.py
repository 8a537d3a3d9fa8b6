"""launchctl as a client of launchd.sock: every call community.general.launchd makes, and the
modern subcommands, mapped onto the DESIGN.md protocol."""
import os
import plistlib
import socket
import threading

import pytest

from macsim.lineproto import recv_line, send_line

from ansible_collections.macops.cluster.plugins.module_utils._launchctl_disabled import parse_print_disabled

LABEL = "io.exo.networksetup"
PLIST = "/Library/LaunchDaemons/io.exo.networksetup.plist"


class FakeLaunchd(object):
    """Answers like the host's launchd: one JSON request per connection, one reply."""

    def __init__(self, path):
        self.requests = []
        self.loaded = {}
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(8)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                request = recv_line(conn)
                self.requests.append(request)
                send_line(conn, self.reply(request))

    def reply(self, request):
        op, label = request["op"], request.get("label")
        if op == "list":
            if label:
                if label not in self.loaded:
                    return {"rc": 113, "out": "", "err": 'Could not find service "%s" in domain for system\n' % label}
                return {"rc": 0, "out": '{\n\t"Label" = "%s";\n};\n' % label, "err": ""}
            rows = ["PID\tStatus\tLabel"] + ["%s\t0\t%s" % (pid, l) for l, pid in sorted(self.loaded.items())]
            return {"rc": 0, "out": "\n".join(rows) + "\n", "err": ""}
        if op == "bootstrap":
            self.loaded[LABEL] = "-"
            return {"rc": 0, "out": "", "err": ""}
        if op in ("bootout", "kickstart", "stop", "print") and label not in self.loaded:
            return {"rc": 113, "out": "", "err": "Could not find specified service\n"}
        if op == "bootout":
            del self.loaded[label]
        if op == "kickstart":
            self.loaded[label] = "4242"
        if op == "stop":
            self.loaded[label] = "-"
        return {"rc": 0, "out": "printed\n" if op == "print" else "", "err": ""}

    def close(self):
        self.server.close()


@pytest.fixture
def launchd(lab):
    plist_path = os.path.join(lab.fs, PLIST.lstrip("/"))
    os.makedirs(os.path.dirname(plist_path))
    with open(plist_path, "wb") as fh:
        plistlib.dump({"Label": LABEL, "ProgramArguments": ["/bin/true"], "RunAtLoad": True}, fh)
    server = FakeLaunchd(os.path.join(lab.host_dir(), "run", "launchd.sock"))
    yield server
    server.close()


def test_module_cycle_load_start_stop_unload(lab, launchd):
    listing = lab.run("launchctl", "list")
    assert (listing.rc, listing.out) == (0, "PID\tStatus\tLabel\n")
    assert lab.run("launchctl", "load", PLIST).rc == 0
    assert lab.run("launchctl", "start", LABEL).rc == 0
    rows = lab.run("launchctl", "list").out.splitlines()
    # community.general.launchd splits every line on tabs into exactly three fields.
    assert [row.split("\t") for row in rows] == [["PID", "Status", "Label"], ["4242", "0", LABEL]]
    assert lab.run("launchctl", "stop", LABEL).rc == 0
    assert lab.run("launchctl", "unload", PLIST).rc == 0
    assert launchd.requests == [
        {"op": "list"}, {"op": "bootstrap", "plist": PLIST},
        {"op": "kickstart", "kill": False, "label": LABEL}, {"op": "list"},
        {"op": "stop", "label": LABEL}, {"op": "bootout", "label": LABEL}]


def test_unloading_an_unloaded_job_still_exits_0(lab, launchd):
    result = lab.run("launchctl", "unload", PLIST)
    assert result.rc == 0
    assert result.err == "Could not find specified service\n"


def test_write_flag_enables_and_disables(lab, launchd):
    lab.run("launchctl", "load", "-w", PLIST)
    lab.run("launchctl", "unload", "-w", PLIST)
    assert [r["op"] for r in launchd.requests] == ["enable", "bootstrap", "bootout", "disable"]


def test_modern_subcommands(lab, launchd):
    assert lab.run("launchctl", "bootstrap", "system", PLIST).rc == 0
    assert lab.run("launchctl", "print", "system/" + LABEL).out == "printed\n"
    assert lab.run("launchctl", "kickstart", "-k", "system/" + LABEL).rc == 0
    assert lab.run("launchctl", "disable", "system/" + LABEL).rc == 0
    assert lab.run("launchctl", "enable", "system/" + LABEL).rc == 0
    assert lab.run("launchctl", "list", LABEL).out == '{\n\t"Label" = "%s";\n};\n' % LABEL
    assert lab.run("launchctl", "bootout", "system", PLIST).rc == 0
    missing = lab.run("launchctl", "bootout", "system/" + LABEL)
    assert (missing.rc, missing.err) == (113, "Could not find specified service\n")
    assert launchd.requests[1:5] == [
        {"op": "print", "label": LABEL}, {"op": "kickstart", "kill": True, "label": LABEL},
        {"op": "disable", "label": LABEL}, {"op": "enable", "label": LABEL}]
    assert lab.run("launchctl", "print", "gui/501/" + LABEL).rc == 1


def test_without_launchd(lab):
    result = lab.run("launchctl", "list")
    assert result.rc == 1 and "cannot reach launchd" in result.err


def test_print_disabled_lists_what_disable_wrote_in_the_real_form(lab):
    with lab.edit_state() as state:
        state["launchd_disabled"] = ["org.macops.serve"]
    result = lab.run("launchctl", "print-disabled", "system")
    assert result.rc == 0 and parse_print_disabled(result.out) == {"org.macops.serve": True}
    assert lab.run("launchctl", "print-disabled", "user/501").rc == 1


def test_asuser_runs_the_command_with_stdin_passed_through(lab):
    result = lab.run_process("launchctl", "asuser", "501", "/bin/cat", input="through\n")
    assert (result.rc, result.out) == (0, "through\n")
    assert lab.run("launchctl", "asuser", "admin", "/bin/true").rc == 1
