"""macops.cluster.link_bench: a one-off server per address served, the client bound to its own end and tried
again while the peer's server starts, both directions from one run, the servers stopped by their pid files."""
import os

from fixture_files import read_fixture
from module_harness import run_module

from ansible_collections.macops.cluster.plugins.modules import link_bench

IPERF3 = "/opt/homebrew/bin/iperf3"
TEST = {"link_id": "mac1:en3--mac2:en3", "client_ip": "198.19.0.1", "server_ip": "198.19.0.2", "round": 1,
        "client": "mac1", "server": "mac2", "client_port": "en3", "server_port": "en3"}
CLIENT = [IPERF3, "-c", "198.19.0.2", "-B", "198.19.0.1", "-p", "5201", "-t", "5", "-O", "1", "-P", "1", "-J", "--bidir"]


class Answers(object):
    """iperf3 as a Mac answers it: the client refused `refusals` times (or silent `silent` times), then the capture."""

    def __init__(self, refusals=0, silent=0):
        self.refusals = refusals
        self.silent = silent
        self.calls = []

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return "%s/%s" % (opt_dirs[0], name)

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        if args[:2] == [IPERF3, "-s"]:
            return (0, "", "")
        if args[:2] == ["ps", "-p"]:
            return (0, "/opt/homebrew/bin/iperf3\n", "") if args[2] == "4242" else (0, "sshd\n", "")
        if args[:2] == [IPERF3, "-c"]:
            tries = len([c for c in self.calls if c[:2] == [IPERF3, "-c"]])
            if tries <= self.silent:
                return (0, "", "")
            if tries <= self.refusals:
                return (1, read_fixture("iperf3/refused.json"), "")
            return (0, read_fixture("iperf3/bidir_loopback.json"), "")
        raise AssertionError("unexpected command %r" % (args,))


def test_the_client_is_bound_to_its_end_and_measures_both_directions(monkeypatch, capsys):
    mac = Answers()
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"tests": [TEST]}, mac)
    assert calls == [CLIENT]
    (test,) = result["tests"]
    assert test["link_id"] == TEST["link_id"] and test["error"] is None and test["attempts"] == 1
    assert test["forward"]["bits_per_second"] > 1.9e8 and test["backward"]["from"] == "server"
    assert result["changed"] is False


def test_a_refused_client_tries_again_while_the_peer_starts_its_server(monkeypatch, capsys):
    monkeypatch.setattr(link_bench, "RETRY_SECONDS", 0)
    mac = Answers(refusals=3)
    second = dict(TEST, link_id="mac1:en4--mac3:en3", server_ip="198.19.0.6", client_ip="198.19.0.5", repeat=1)
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"tests": [TEST, second]}, mac)
    assert [t["attempts"] for t in result["tests"]] == [4, 1] and [t["repeat"] for t in result["tests"]] == [None, 1]
    assert all(t["error"] is None for t in result["tests"])


def test_a_server_that_never_comes_is_the_tests_error_after_the_wait(monkeypatch, capsys):
    monkeypatch.setattr(link_bench, "RETRY_SECONDS", 0)
    mac = Answers(refusals=10 ** 6)
    result, _calls = run_module(monkeypatch, capsys, link_bench.main, {"tests": [TEST], "connect_wait": 0.05}, mac)
    (test,) = result["tests"]
    assert test["error"] == "unable to connect to server: Connection refused" and test["forward"] is None
    assert test["attempts"] >= 1 and not result.get("failed")


def test_a_server_is_one_off_bound_to_its_address_and_exits_when_idle(monkeypatch, capsys, tmp_path):
    mac = Answers()
    result, calls = run_module(monkeypatch, capsys, link_bench.main,
                               {"serve": ["198.19.0.2"], "pid_dir": str(tmp_path), "idle_timeout": 40}, mac)
    pid = str(tmp_path / "macops-iperf3-198.19.0.2-5201.pid")
    assert calls == [[IPERF3, "-s", "-1", "-B", "198.19.0.2", "-p", "5201", "-D", "--pidfile", pid,
                      "--idle-timeout", "40"]]
    assert result["servers"] == [pid] and result["tests"] == []


def test_check_mode_runs_nothing_and_lists_the_tests(monkeypatch, capsys):
    mac = Answers()
    result, calls = run_module(monkeypatch, capsys, link_bench.main,
                               {"tests": [TEST], "serve": ["198.19.0.1"], "_ansible_check_mode": True}, mac)
    assert calls == [] and [t["link_id"] for t in result["tests"]] == [TEST["link_id"]]


def test_absent_stops_only_iperf3_servers_of_its_pid_files(monkeypatch, capsys, tmp_path):
    killed = []
    monkeypatch.setattr(link_bench.os, "kill", lambda pid, sig: killed.append((pid, sig)))
    (tmp_path / "macops-iperf3-198.19.0.2-5201.pid").write_text("4242\n")
    # A stale pid file whose pid now belongs to another program: that process is left alone.
    (tmp_path / "macops-iperf3-198.19.0.6-5201.pid").write_text("777\n")
    (tmp_path / "other.pid").write_text("1\n")
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"state": "absent", "pid_dir": str(tmp_path)},
                               Answers())
    assert killed == [(4242, link_bench.signal.SIGTERM)]
    assert calls == [["ps", "-p", "4242", "-o", "comm="], ["ps", "-p", "777", "-o", "comm="]]
    assert result["changed"] and sorted(os.listdir(str(tmp_path))) == ["other.pid"]


def test_a_count_below_one_is_refused(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"tests": [TEST], "seconds": 0}, Answers())
    assert result["failed"] and "seconds = 0 is refused" in result["msg"] and calls == []


def test_a_run_that_prints_nothing_is_tried_again(monkeypatch, capsys):
    monkeypatch.setattr(link_bench, "RETRY_SECONDS", 0)
    result, _calls = run_module(monkeypatch, capsys, link_bench.main, {"tests": [TEST]}, Answers(silent=2))
    (test,) = result["tests"]
    assert test["attempts"] == 3 and test["error"] is None and test["forward"]["bits_per_second"] > 0
