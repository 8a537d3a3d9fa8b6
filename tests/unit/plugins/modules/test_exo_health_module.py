"""macops.cluster.exo_health against a mocked launchctl and a mocked exo API: reads the job, waits
for /state to list every node, and fails with what to check only when exo is unhealthy."""
import pytest
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.module_utils._exo_health import (
    failure_message, installed_version, is_unhealthy, launchd_state, node_count)
from ansible_collections.macops.cluster.plugins.module_utils import _exo_probe
from ansible_collections.macops.cluster.plugins.modules import exo_health

PRINT = ["/bin/launchctl", "print", "system/org.macops.exo"]
VENV_PYTHON = "/opt/macops/exo-venv/bin/python"
VERSION = [VENV_PYTHON, "-c", _exo_probe.VERSION_CODE]
RUNNING = (0, "system/org.macops.exo = {\n\tactive count = 1\n\tstate = running\n\tpid = 812\n"
              "\tendpoints = {\n\t\tstate = active\n\t}\n}\n", "")
STOPPED = (0, "system/org.macops.exo = {\n\tstate = not running\n\tlast exit code = 1\n}\n", "")
NOT_LOADED = (113, "", 'Could not find service "org.macops.exo" in domain for system\n')
IDS = ["12D3KooWA", "12D3KooWB", "12D3KooWC", "12D3KooWD"]
ARGS = {"label": "org.macops.exo", "expected_nodes": 4, "timeout": 10, "host": "mac2",
        "version": "1.0.71"}


class Clock(object):
    """time.time/time.sleep for the module: sleeping only moves the clock."""

    def __init__(self):
        self.now, self.sleeps = 1000.0, []

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


@pytest.fixture
def api(monkeypatch):
    """The answers /state gives, one per question (the last one repeats); records the URLs."""
    state = {"answers": [(True, 4)], "urls": []}

    def ask(url, timeout=5):
        state["urls"].append(url)
        return state["answers"].pop(0) if len(state["answers"]) > 1 else state["answers"][0]

    clock = Clock()
    monkeypatch.setattr(_exo_probe, "ask_state", ask)
    monkeypatch.setattr(_exo_probe, "time", clock)
    state["clock"] = clock
    return state


def test_launchd_state_is_the_jobs_own_first_state_line():
    assert launchd_state(RUNNING[1]) == "running"
    assert launchd_state(STOPPED[1]) == "not running"
    assert launchd_state("") == "" and launchd_state(None) == ""


@pytest.mark.parametrize("state, count", [
    ({"topology": {"nodes": IDS, "connections": []}}, 4),
    ({"topology": {"nodes": [{"nodeId": i} for i in IDS[:3]] + [{"nodeId": IDS[0]}]}}, 3),
    ({"topology": {"nodes": {i: {} for i in IDS[:2]}}}, 2),
    ({"topology": {"nodes": []}, "nodeIdentities": {i: {} for i in IDS}}, 4),
    ({}, 0), (None, 0), ("<html>502</html>", 0),
])
def test_node_count_reads_exos_state_shape(state, count):
    assert node_count(state) == count


def test_installed_version_falls_back_to_the_declared_one():
    assert installed_version(0, "1.0.72\n", "1.0.71") == "1.0.72"
    assert installed_version(1, "", "1.0.71") == "1.0.71"
    assert installed_version(0, "  \n", "1.0.71") == "1.0.71"


@pytest.mark.parametrize("running, api_ok, seen, require_all, unhealthy", [
    (True, True, 4, True, False), (True, True, 2, False, False), (True, True, 2, True, True),
    (False, True, 4, True, True), (True, False, 4, False, True)])
def test_is_unhealthy_says_whether_exo_fails_its_check(running, api_ok, seen, require_all, unhealthy):
    health = {"running": running, "api_ok": api_ok, "nodes_seen": seen, "nodes_expected": 4}
    assert is_unhealthy(health, require_all) is unhealthy


def test_failure_message_names_the_host_the_readings_and_what_to_check():
    text = failure_message("mac2", 52415, "/Library/Logs/macops/exo.log",
                           {"running": True, "api_ok": True, "nodes_seen": 2, "nodes_expected": 4})
    assert text.startswith("exo on mac2: service running True, API on port 52415 answering True, "
                           "nodes in /state 2 of 4. Read /Library/Logs/macops/exo.log.")
    assert "exo_namespace" in text and "52413-52415" in text and "exo #952" in text


def test_healthy_exo_is_reported_without_waiting(monkeypatch, capsys, api):
    result, calls = run_module(monkeypatch, capsys, exo_health.main, ARGS, FakeMac([(PRINT, RUNNING)]))
    assert calls == [PRINT]
    assert api["urls"] == ["http://127.0.0.1:52415/state"] and api["clock"].sleeps == []
    assert not result.get("failed") and result["changed"] is False
    assert {k: result[k] for k in ("version", "running", "api_ok", "nodes_seen", "nodes_expected")} == \
        {"version": "1.0.71", "running": True, "api_ok": True, "nodes_seen": 4, "nodes_expected": 4}


def test_waits_until_every_node_is_listed(monkeypatch, capsys, api):
    api["answers"] = [(False, 0), (True, 2), (True, 4)]
    result, _ = run_module(monkeypatch, capsys, exo_health.main, ARGS, FakeMac([(PRINT, RUNNING)]))
    assert api["clock"].sleeps == [_exo_probe.DELAY_SECONDS] * 2
    assert not result.get("failed") and result["nodes_seen"] == 4


def test_missing_nodes_fail_after_the_timeout_with_the_readings(monkeypatch, capsys, api):
    api["answers"] = [(True, 2)]
    result, _ = run_module(monkeypatch, capsys, exo_health.main, ARGS, FakeMac([(PRINT, RUNNING)]))
    assert result["failed"] and "nodes in /state 2 of 4" in result["msg"] and "exo on mac2" in result["msg"]
    # Asked at once, then every DELAY_SECONDS for as long as the timeout allows.
    assert sum(api["clock"].sleeps) == ARGS["timeout"]
    assert len(api["urls"]) == ARGS["timeout"] / _exo_probe.DELAY_SECONDS + 1
    assert (result["running"], result["api_ok"], result["nodes_seen"]) == (True, True, 2)


def test_missing_nodes_only_report_when_not_required(monkeypatch, capsys, api):
    api["answers"] = [(True, 2)]
    result, _ = run_module(monkeypatch, capsys, exo_health.main, dict(ARGS, require_all_nodes=False),
                           FakeMac([(PRINT, RUNNING)]))
    assert not result.get("failed") and result["nodes_seen"] == 2 and api["clock"].sleeps == []


def test_a_job_launchd_does_not_know_is_not_asked_and_fails(monkeypatch, capsys, api):
    result, _ = run_module(monkeypatch, capsys, exo_health.main, ARGS, FakeMac([(PRINT, NOT_LOADED)]))
    assert api["urls"] == []
    assert result["failed"] and "service running False, API on port 52415 answering False" in result["msg"]


def test_check_mode_and_no_health_check_only_report(monkeypatch, capsys, api):
    result, _ = run_module(monkeypatch, capsys, exo_health.main, dict(ARGS, _ansible_check_mode=True),
                           FakeMac([(PRINT, NOT_LOADED)]))
    assert not result.get("failed") and result["running"] is False
    result, _ = run_module(monkeypatch, capsys, exo_health.main, dict(ARGS, health_check=False),
                           FakeMac([(PRINT, STOPPED)]))
    assert not result.get("failed") and api["urls"] == []
    assert (result["running"], result["api_ok"], result["nodes_seen"]) == (False, False, 0)


def test_version_is_read_from_exos_environment(monkeypatch, capsys, api):
    mac = FakeMac([(PRINT, RUNNING), (VERSION, (0, "1.0.72\n", ""))])
    result, calls = run_module(monkeypatch, capsys, exo_health.main, dict(ARGS, python=VENV_PYTHON), mac)
    assert calls == [PRINT, VERSION] and result["version"] == "1.0.72"


def test_declared_version_when_the_environment_is_missing(monkeypatch, capsys, api):
    class NoVenvMac(FakeMac):
        def run_command(self, args, **kwargs):
            if args[0] == VENV_PYTHON:
                raise OSError(2, "No such file or directory")
            return super(NoVenvMac, self).run_command(args, **kwargs)

    result, _ = run_module(monkeypatch, capsys, exo_health.main, dict(ARGS, python=VENV_PYTHON),
                           NoVenvMac([(PRINT, RUNNING)]))
    assert result["version"] == "1.0.71" and not result.get("failed")


def test_ask_state_counts_nodes_of_a_real_http_answer():
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"topology": {"nodes": IDS[:3]}}).encode()
            self.send_response(200 if self.path == "/state" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        assert _exo_probe.ask_state("http://127.0.0.1:%d/state" % port) == (True, 3)
        assert _exo_probe.ask_state("http://127.0.0.1:%d/other" % port) == (False, 0)
    finally:
        server.shutdown()
        server.server_close()
    assert _exo_probe.ask_state("http://127.0.0.1:%d/state" % port, timeout=1) == (False, 0)


def test_the_launchdaemon_gives_label_port_and_log_or_a_reason():
    import plistlib

    from ansible_collections.macops.cluster.plugins.module_utils._exo_health import launchdaemon_settings
    from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

    job = {"Label": "org.macops.exo", "ProgramArguments": ["/opt/macops/exo-venv/bin/exo", "--api-port", "52416"],
           "StandardOutPath": "/Library/Logs/macops/exo.log"}
    settings = launchdaemon_settings(plistlib.dumps(job))
    assert (settings["label"], settings["api_port"], settings["log_file"]) == (
        "org.macops.exo", 52416, "/Library/Logs/macops/exo.log")
    assert launchdaemon_settings(plistlib.dumps(dict(job, ProgramArguments=["exo"])))["api_port"] == 52415
    for data, reason in [(b"not a plist", "not a property list"), (plistlib.dumps({"Program": "x"}), "no Label"),
                         (plistlib.dumps(dict(job, ProgramArguments=["exo", "--api-port", "x"])), "not a port")]:
        with pytest.raises(ParseError, match=reason):
            launchdaemon_settings(data, "/Library/LaunchDaemons/org.macops.exo.plist")
