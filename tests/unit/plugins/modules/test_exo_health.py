"""macops.cluster.exo_health against a mocked launchctl and a mocked exo API: reads the job, waits
for /state to list every node, and fails with what to check only when exo is unhealthy."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _exo_probe
from ansible_collections.macops.cluster.plugins.modules import exo_health

from exo_fixture import RUNNING, STOPPED
from module_harness import FakeMac, run_module

PRINT = ["/bin/launchctl", "print", "system/org.macops.exo"]
VENV_PYTHON = "/opt/macops/exo-venv/bin/python"
VERSION = [VENV_PYTHON, "-c", _exo_probe.VERSION_CODE]
NOT_LOADED = (113, "", 'Could not find service "org.macops.exo" in domain for system\n')
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
