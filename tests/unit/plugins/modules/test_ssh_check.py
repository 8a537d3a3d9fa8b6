"""macops.cluster.ssh_check with a mocked ssh: every target checked in order, at most `parallel` at once, and a
failure names every unreachable target with ssh's error and the caller's fix."""
import json
import shutil
import sys
import threading
import time

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.macops.cluster.plugins.module_utils import _ssh_check
from ansible_collections.macops.cluster.plugins.modules import ssh_check

SSH = sys.executable  # any executable file: the module only checks that the client exists
TARGETS = [{"address": "mac2", "label": "mac2 by name"}, {"address": "mac3"},
           {"address": "198.18.64.2", "label": "over en2"}]
DENIED = (255, "mac2: Permission denied (publickey).\r\n")
TIMED_OUT = (255, "ssh: connect to host 198.18.64.2 port 22: Operation timed out\r\n")


class FakeSsh(object):
    """Answers per address; records (argv, timeout) and the most checks running at once."""

    def __init__(self, answers=None, barrier=None):
        self.answers = answers or {}
        self.barrier = barrier
        self.calls = []
        self.running = self.most = 0
        self.lock = threading.Lock()

    def __call__(self, argv, timeout):
        with self.lock:
            self.calls.append((argv, timeout))
            self.running += 1
            self.most = max(self.most, self.running)
        if self.barrier is not None:
            self.barrier.wait(timeout=5)
        time.sleep(0.01)
        with self.lock:
            self.running -= 1
        return self.answers.get(argv[-2], (0, ""))


def run(monkeypatch, capsys, args, fake=None):
    """The module's result with `fake` standing in for each check (None: the real run_ssh)."""
    if fake is not None:
        monkeypatch.setattr(_ssh_check, "run_ssh", fake)
    with patch_module_args(dict({"ssh": SSH}, **args)):
        with pytest.raises(SystemExit):
            ssh_check.main()
    return json.loads(capsys.readouterr().out)


def test_every_target_reachable(monkeypatch, capsys):
    fake = FakeSsh()
    result = run(monkeypatch, capsys, {"targets": TARGETS}, fake)
    assert not result.get("failed") and result["changed"] is False
    assert result["results"] == [
        {"address": "mac2", "label": "mac2 by name", "ok": True, "rc": 0, "stderr": ""},
        {"address": "mac3", "label": "mac3", "ok": True, "rc": 0, "stderr": ""},
        {"address": "198.18.64.2", "label": "over en2", "ok": True, "rc": 0, "stderr": ""},
    ]
    assert sorted(fake.calls) == sorted(
        ([SSH, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=5", address,
          "/usr/bin/true"], 15) for address in ("mac2", "mac3", "198.18.64.2"))


def test_failures_name_each_target_and_append_the_fix(monkeypatch, capsys):
    fake = FakeSsh({"mac2": DENIED, "198.18.64.2": TIMED_OUT})
    result = run(monkeypatch, capsys, {"targets": TARGETS, "connect_timeout": 3,
                                       "fix": "Check that Remote Login is on there."}, fake)
    assert result["failed"] and result["changed"] is False
    assert result["msg"] == (
        "cannot SSH to mac2 (mac2 by name: mac2: Permission denied (publickey).); 198.18.64.2 (over en2: "
        "ssh: connect to host 198.18.64.2 port 22: Operation timed out). Check that Remote Login is on there.")
    assert [(r["address"], r["ok"], r["rc"]) for r in result["results"]] == [
        ("mac2", False, 255), ("mac3", True, 0), ("198.18.64.2", False, 255)]
    assert result["results"][0]["stderr"] == "mac2: Permission denied (publickey)."
    assert {timeout for _, timeout in fake.calls} == {13}
    assert {argv[6] for argv, _ in fake.calls} == {"ConnectTimeout=3"}


def test_long_stderr_is_cut_to_300_characters(monkeypatch, capsys):
    fake = FakeSsh({"mac3": (255, "x" * 1000)})
    result = run(monkeypatch, capsys, {"targets": [{"address": "mac3"}]}, fake)
    assert result["failed"] and len(result["results"][0]["stderr"]) == 300
    assert result["msg"].endswith("...).")


def test_at_most_parallel_checks_run_at_once(monkeypatch, capsys):
    # Three checks must meet at the barrier (proving three run together), and never a fourth.
    fake = FakeSsh(barrier=threading.Barrier(3))
    targets = [{"address": "198.18.0.%d" % i} for i in range(1, 10)]
    result = run(monkeypatch, capsys, {"targets": targets, "parallel": 3}, fake)
    assert not result.get("failed") and fake.most == 3
    assert [r["address"] for r in result["results"]] == [t["address"] for t in targets]


def test_one_at_a_time_and_no_targets(monkeypatch, capsys):
    fake = FakeSsh()
    result = run(monkeypatch, capsys, {"targets": TARGETS, "parallel": 1}, fake)
    assert not result.get("failed") and fake.most == 1 and len(fake.calls) == 3
    result = run(monkeypatch, capsys, {"targets": []}, FakeSsh())
    assert not result.get("failed") and result["results"] == []


def test_check_mode_checks_too(monkeypatch, capsys):
    fake = FakeSsh({"mac3": DENIED})
    result = run(monkeypatch, capsys, {"targets": TARGETS, "_ansible_check_mode": True}, fake)
    assert result["failed"] and len(fake.calls) == 3


@pytest.mark.parametrize("option", ["parallel", "connect_timeout"])
@pytest.mark.parametrize("value", [0, -2])
def test_options_below_one_are_refused(monkeypatch, capsys, option, value):
    fake = FakeSsh()
    result = run(monkeypatch, capsys, {"targets": TARGETS, option: value}, fake)
    assert result["failed"] and result["msg"] == "%s must be at least 1, got %d" % (option, value)
    assert fake.calls == []


def test_a_missing_ssh_client_fails_before_connecting(monkeypatch, capsys):
    fake = FakeSsh()
    result = run(monkeypatch, capsys, {"targets": TARGETS, "ssh": "/nonexistent/bin/ssh"}, fake)
    assert result["failed"] and "/nonexistent/bin/ssh is not an executable ssh client" in result["msg"]
    assert fake.calls == []


def test_a_target_needs_an_address(monkeypatch, capsys):
    result = run(monkeypatch, capsys, {"targets": [{"label": "mac2"}]}, FakeSsh())
    assert result["failed"] and "address" in result["msg"]


@pytest.mark.parametrize("client, ok, rc", [("true", True, 0), ("false", False, 1)])
def test_real_processes_in_threads(monkeypatch, capsys, client, ok, rc):
    # true/false ignore the ssh options: every check runs a real process.
    targets = [{"address": "198.18.0.%d" % i} for i in range(1, 7)]
    result = run(monkeypatch, capsys, {"targets": targets, "ssh": shutil.which(client), "parallel": 3})
    assert [(r["address"], r["ok"], r["rc"]) for r in result["results"]] == [(t["address"], ok, rc) for t in targets]
    assert bool(result.get("failed")) is not ok
