"""macops.cluster.link_bench: a one-off server per cable served, started again after a test that did not
complete; the client bound to its own end and tried again while a run ends early, both directions from one
run; both ends' figures returned; leftover servers stopped by their pid files."""
import os

from fixture_files import read_fixture
from module_harness import run_module

from ansible_collections.macops.cluster.plugins.modules import link_bench

IPERF3 = "/opt/homebrew/bin/iperf3"
TEST = {"link_id": "mac1:en3--mac2:en3", "client_ip": "198.19.0.1", "server_ip": "198.19.0.2", "round": 1,
        "client": "mac1", "server": "mac2", "client_port": "en3", "server_port": "en3"}
CLIENT = [IPERF3, "-c", "198.19.0.2", "-B", "198.19.0.1", "-p", "5201", "-t", "5", "-O", "1", "-P", "1", "-J", "--bidir"]


SERVED = dict(TEST)


class Clock(object):
    """time.time and time.sleep of the module: a test's iperf3 run takes as long as the answer says."""

    def __init__(self):
        self.now = 1000.0

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds


class Answers(object):
    """iperf3 as a Mac answers it: the client refused `refusals` times (or silent `silent` times), then the
    capture; a client run that measured and printed nothing when `silent_after_test`; the server's
    runs answered from `server_answers` in turn (then the server's capture of a whole test)."""

    def __init__(self, refusals=0, silent=0, silent_after_test=False, server_answers=(), clock=None, seconds=5):
        self.refusals = refusals
        self.silent = silent
        self.silent_after_test = silent_after_test
        self.server_answers = list(server_answers)
        self.clock = clock
        self.seconds = seconds
        self.calls = []

    def _took(self, seconds):
        if self.clock is not None:
            self.clock.now += seconds

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return "%s/%s" % (opt_dirs[0], name)

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        if args[:2] == [IPERF3, "-s"]:
            if self.server_answers:
                answer = self.server_answers.pop(0)
                self._took(answer[1])
                return answer[0]
            self._took(self.seconds + 1)
            return (0, read_fixture("iperf3/server_bidir_cable.json"), "")
        if args[:2] == ["ps", "-p"]:
            return (0, "/opt/homebrew/bin/iperf3\n", "") if args[2] == "4242" else (0, "sshd\n", "")
        if args[:2] == [IPERF3, "-c"]:
            tries = len([c for c in self.calls if c[:2] == [IPERF3, "-c"]])
            if self.silent_after_test:
                self._took(self.seconds + 1)
                return (-11, "", "")
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


def test_a_server_is_one_off_bound_to_its_address_and_returns_its_own_figures(monkeypatch, capsys, tmp_path):
    clock = Clock()
    monkeypatch.setattr(link_bench, "time", clock)
    result, calls = run_module(monkeypatch, capsys, link_bench.main,
                               {"serve": [SERVED], "pid_dir": str(tmp_path), "connect_wait": 15}, Answers(clock=clock))
    pid = str(tmp_path / "macops-iperf3-198.19.0.2-5201.pid")
    # No client within the wait and the test's own time (15 + 5 + 1, and the slack): the server exits.
    assert calls == [[IPERF3, "-s", "-1", "-B", "198.19.0.2", "-p", "5201", "-J", "--pidfile", pid,
                      "--idle-timeout", str(15 + 5 + 1 + link_bench.SERVER_SLACK_SECONDS)]]
    (served,) = result["served"]
    assert served["link_id"] == TEST["link_id"] and served["starts"] == 1 and served["error"] is None
    assert served["forward"]["measured_at"] == "receiver" and served["backward"]["measured_at"] == "sender"
    assert result["servers"] == [pid] and result["tests"] == []


def test_a_server_whose_client_died_mid_test_serves_again_for_the_retry(monkeypatch, capsys, tmp_path):
    clock = Clock()
    monkeypatch.setattr(link_bench, "time", clock)
    died = ((0, read_fixture("iperf3/server_client_died.json"), ""), 1.5)
    mac = Answers(server_answers=[died], clock=clock)
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"serve": [SERVED], "pid_dir": str(tmp_path)},
                               mac)
    (served,) = result["served"]
    assert served["starts"] == 2 and served["error"] is None and served["forward"]["bits_per_second"] > 1e9
    # The second start waits only for what is left of the deadline.
    assert int(calls[1][-1]) < int(calls[0][-1])


def test_a_server_no_client_comes_to_says_so_after_its_deadline(monkeypatch, capsys, tmp_path):
    clock = Clock()
    monkeypatch.setattr(link_bench, "time", clock)
    deadline = 15 + 5 + 1 + link_bench.SERVER_SLACK_SECONDS
    mac = Answers(server_answers=[((0, "", ""), deadline)], clock=clock)
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"serve": [SERVED], "pid_dir": str(tmp_path)},
                               mac)
    (served,) = result["served"]
    assert served["starts"] == 1 and served["forward"] is None
    assert served["error"] == "no client connected in time"


def test_a_stale_pid_file_of_another_process_is_cleared_before_the_server_starts(monkeypatch, capsys, tmp_path):
    clock = Clock()
    monkeypatch.setattr(link_bench, "time", clock)
    stale = tmp_path / "macops-iperf3-198.19.0.2-5201.pid"
    stale.write_text("777\n")  # a killed server's file; pid 777 is now sshd
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"serve": [SERVED], "pid_dir": str(tmp_path)},
                               Answers(clock=clock))
    assert calls[0] == ["ps", "-p", "777", "-o", "comm="] and calls[1][:2] == [IPERF3, "-s"]
    assert not stale.exists() and result["served"][0]["error"] is None


def test_a_client_that_measured_and_printed_nothing_is_not_tried_again(monkeypatch, capsys):
    # Its one-off server has finished: a retry would only be refused. The server has the figures.
    clock = Clock()
    monkeypatch.setattr(link_bench, "time", clock)
    result, calls = run_module(monkeypatch, capsys, link_bench.main, {"tests": [TEST]},
                               Answers(silent_after_test=True, clock=clock))
    (test,) = result["tests"]
    assert test["attempts"] == 1 and test["forward"] is None
    assert test["error"] == "iperf3 exited -11 and printed nothing"


def test_check_mode_runs_nothing_and_lists_the_tests(monkeypatch, capsys):
    mac = Answers()
    result, calls = run_module(monkeypatch, capsys, link_bench.main,
                               {"tests": [TEST], "serve": [SERVED], "_ansible_check_mode": True}, mac)
    assert calls == [] and [t["link_id"] for t in result["tests"]] == [TEST["link_id"]] and result["served"] == []


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
