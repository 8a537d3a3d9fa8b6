"""_module_commands: execute() reads a command's output to its end and keeps to its time limit;
run_many / run_parallel run reads at once, keep their order, and report the first failure in that
order after every command finished."""
import os
import selectors
import sys
import threading
import time

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands

# Prints only after longer than one select() wait of run_command (1 s), then exits.
LATE_PRINTER = [sys.executable, "-c", "import time; time.sleep(1.3); print('answer')"]


class Failed(Exception):
    pass


class SlowMac(object):
    """Commands that take a while, so they overlap only when run at once; stands in for execute()."""

    def __init__(self, results):
        self.results, self.running, self.most = results, 0, 0
        self.lock = threading.Lock()
        self.calls = []

    def execute(self, argv, timeout=None):
        if argv[0] not in self.results:
            raise OSError(2, "No such file or directory")
        with self.lock:
            self.calls.append(argv)
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
        return self.results[argv[0]]

    def fail_json(self, **kwargs):
        raise Failed(kwargs)


@pytest.fixture
def slow_mac(monkeypatch):
    def make(results):
        mac = SlowMac(results)
        monkeypatch.setattr(commands, "execute", mac.execute)
        return mac
    return make


@pytest.fixture
def late_scheduler(monkeypatch):
    """A busy machine, made certain: a thread whose select() waited in vain is not scheduled again
    for a while (the window in which the lab's sweeps lost output, ansible/ansible#51393)."""
    original = selectors.PollSelector.select

    def select(self, timeout=None):
        events = original(self, timeout)
        if not events:
            time.sleep(0.5)
        return events

    monkeypatch.setattr(selectors.PollSelector, "select", select)


def test_execute_keeps_output_that_comes_as_the_command_ends_on_a_late_scheduler(late_scheduler):
    assert commands.execute(LATE_PRINTER, timeout=30) == (0, "answer\n", "")


def test_run_command_loses_that_output_which_is_why_the_modules_do_not_use_it(late_scheduler):
    """When this fails, ansible-core has fixed the race: execute() may then go back to run_command."""
    with patch_module_args({}):
        module = basic.AnsibleModule(argument_spec={})
    assert module.run_command(LATE_PRINTER) == (0, "", "")


def test_execute_kills_a_command_past_its_time_limit_and_what_it_started(tmp_path):
    child_pid = tmp_path / "child.pid"
    code = ("import subprocess, sys, time; child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
            " open(%r, 'w').write(str(child.pid)); sys.stderr.write('working\\n'); sys.stderr.flush(); time.sleep(60)"
            % str(child_pid))
    started = time.time()
    rc, stdout, stderr = commands.execute([sys.executable, "-c", code], timeout=1)
    assert time.time() - started < 10
    assert rc == -9 and stdout == ""
    assert stderr.splitlines()[0] == "working" and stderr.splitlines()[-1].endswith("did not finish within 1 seconds")
    pid = int(child_pid.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        if open("/proc/%d/stat" % pid).read().split()[2] == "Z":
            break  # killed, waiting for its parent (init) to reap it
        time.sleep(0.1)
    else:
        raise AssertionError("the command's own child is still running")


def test_execute_passes_no_terminal_input_and_keeps_bytes_that_are_not_utf8():
    rc, stdout, dummy = commands.execute([sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'\\xff' + sys.stdin.read().encode())"])
    assert rc == 0 and stdout == "\udcff"


def test_a_command_that_cannot_start_raises_from_execute_and_is_127_from_result_of():
    with pytest.raises(OSError):
        commands.execute(["/gone/tool"])
    rc, stdout, stderr = commands.result_of(["/gone/tool", "-x"])
    assert rc == 127 and stdout == "" and stderr.startswith("cannot run /gone/tool: ")


def test_reads_run_at_once_and_keep_their_order(slow_mac):
    mac = slow_mac({"a": (0, "A", ""), "b": (0, "B", ""), "c": (0, "C", "")})
    assert commands.run_many(mac, [["a"], ["b"], ["c"]]) == ["A", "B", "C"]
    assert mac.most == 3 and sorted(mac.calls) == [["a"], ["b"], ["c"]]


def test_reads_in_threads_on_a_late_scheduler_all_keep_their_output(late_scheduler):
    results = commands.run_parallel([LATE_PRINTER] * 6 + [None], timeout=30)
    assert results == [(0, "answer\n", "")] * 6 + [None]


def test_missing_commands_are_none_and_not_run(slow_mac):
    mac = slow_mac({"a": (0, "A", "")})
    assert commands.run_parallel([None, ["a"], None]) == [None, (0, "A", ""), None]
    assert mac.calls == [["a"]]


def test_the_first_failure_in_order_is_reported_after_all_ran(slow_mac):
    mac = slow_mac({"a": (0, "A", ""), "b": (2, "", "b broke"), "c": (1, "", "c broke")})
    with pytest.raises(Failed) as failed:
        commands.run_many(mac, [["a"], ["b"], ["c"]])
    assert failed.value.args[0]["msg"] == "`b` failed with exit status 2: b broke"
    assert len(mac.calls) == 3


def test_a_command_that_cannot_start_is_exit_127_not_a_crash(slow_mac):
    mac = slow_mac({"a": (0, "A", "")})
    results = commands.run_parallel([["a"], ["/gone/tool", "-x"]])
    assert results[0] == (0, "A", "")
    assert results[1][0] == 127 and "cannot run /gone/tool" in results[1][2]
    with pytest.raises(Failed) as failed:
        commands.run_many(mac, [["a"], ["/gone/tool", "-x"]])
    assert failed.value.args[0]["msg"].startswith("`/gone/tool -x` failed with exit status 127: cannot run /gone/tool")


def test_no_module_of_the_collection_runs_commands_around_the_runner():
    """One runner: a module that called run_command would bring the race back."""
    root = os.path.dirname(os.path.dirname(commands.__file__))
    offenders = []
    for folder in ("modules", "module_utils"):
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if name.endswith(".py"):
                text = open(os.path.join(root, folder, name)).read()
                code = "\n".join(line.split("#")[0] for line in text.splitlines())
                if ".run_command(" in code or ("subprocess." in code and name != "_module_commands.py"):
                    offenders.append(name)
    assert offenders == []


def test_a_command_gets_text_on_its_stdin_and_follow_shows_its_output_so_far_each_time_it_prints():
    code = "import sys; secret = sys.stdin.readline().strip(); print('got', len(secret)); print('done')"
    assert commands.execute([sys.executable, "-c", code], timeout=30, stdin_text="s3cret\n") == (0, "got 6\ndone\n", "")
    seen = []
    rc, output = commands.follow([sys.executable, "-u", "-c", code], "s3cret\n", seen.append)
    # All printed so far each time: growing, the last one the whole output.
    assert (rc, output) == (0, "got 6\ndone\n") and seen[-1] == output
    assert all(later.startswith(earlier) for earlier, later in zip(seen, seen[1:]))


def test_follow_shows_a_newline_first_figure_while_the_command_still_runs_and_reads_stdin_once():
    """softwareupdate's ticks are newline-first: the figure just printed has no newline after it. follow() shows
    it at once, not when the next tick (or the end) comes; the password reaches stdin, never argv."""
    script = ("import sys, time; password = sys.stdin.readline().strip(); "
              "sys.stdout.write('Downloading x\\n\\nDownloading: 10.00%'); sys.stdout.flush(); "
              "time.sleep(1.5); sys.stdout.write('\\nDownloaded: x\\n' + str(len(password)) + '\\n')")
    seen = []
    started = time.monotonic()
    rc, output = commands.follow([sys.executable, "-c", script], "s3cret\n",
                                 lambda text: seen.append((time.monotonic() - started, text)))
    assert rc == 0 and output == "Downloading x\n\nDownloading: 10.00%\nDownloaded: x\n6\n"
    early = [when for when, text in seen if text.endswith("Downloading: 10.00%")]
    # Shown before the command's next write, 1.5 s later: a line reader would show it only then.
    assert early and early[0] < 1.2 and seen[-1][1] == output
