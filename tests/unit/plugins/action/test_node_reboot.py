"""macops.cluster.node_reboot: ansible.builtin.reboot checking at a steady pace, without the setup
run when every command is given; the option is judged before anything connects."""
import os
import subprocess
from unittest import mock

import pytest

from ansible.errors import AnsibleConnectionFailure, AnsibleError
from ansible.plugins.action.reboot import TimedOutException

from ansible_collections.macops.cluster.plugins.action import node_reboot
from ansible_collections.macops.cluster.plugins.action.node_reboot import ActionModule, poll_interval

COMMANDS = {"reboot_command": "/sbin/shutdown -r +0 bye", "boot_time_command": "/usr/sbin/sysctl -n kern.bootsessionuuid",
            "test_command": "/usr/bin/whoami"}


def action(**args):
    task = mock.MagicMock()
    task.args = args
    task.action = "macops.cluster.node_reboot"
    module = ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    module._poll_interval = poll_interval(args.get("poll_interval"))
    return module


class Clock(object):
    """time.monotonic and time.sleep of a test: sleeping moves the clock, nothing waits."""

    def __init__(self):
        self.now, self.sleeps = 100.0, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


def run_until(module, failures, timeout=600, error=ValueError("boot time has not changed")):
    clock = Clock()
    calls = []

    def attempt(distribution):
        calls.append(clock.now)
        clock.now += 0.5  # one try costs half a second
        if len(calls) <= failures:
            raise error

    with mock.patch.object(node_reboot, "time", clock):
        module.do_until_success_or_timeout(attempt, timeout, "last boot time check", {"name": "macosx"})
    return calls, clock.sleeps


def test_a_node_that_is_back_is_found_within_one_interval_not_at_a_growing_backoff():
    calls, sleeps = run_until(action(poll_interval=1), failures=8)
    assert sleeps == [1.0] * 8
    # The builtin's 9th try comes after 1+2+4+8+12+12+12+12 s of sleep; this one's after 8 s.
    assert calls[-1] - calls[0] == pytest.approx(8 * (1.0 + 0.5))


def test_the_interval_is_the_option():
    assert run_until(action(poll_interval=0.25), failures=3)[1] == [0.25] * 3
    assert run_until(action(), failures=2)[1] == [node_reboot.DEFAULT_POLL_INTERVAL] * 2


def test_it_gives_up_at_the_timeout_with_the_last_error():
    with pytest.raises(TimedOutException, match=r"timeout=10\); last error: boot time has not changed"):
        run_until(action(poll_interval=2), failures=1000, timeout=10)


def test_a_broken_connection_is_reset_before_the_next_try():
    module = action(poll_interval=1)
    run_until(module, failures=2, error=AnsibleConnectionFailure("ssh: connect to host mac2 port 22: No route"))
    assert module._connection.reset.call_count == 2


@pytest.mark.parametrize("value", [0.1, 0, -1, "soon", [1]])
def test_a_bad_interval_is_refused_naming_it(value):
    with pytest.raises(AnsibleError, match=r"poll_interval = .* is refused: it must be a number of seconds of at least 0.2"):
        poll_interval(value)


def test_the_run_refuses_a_bad_interval_before_it_connects():
    module = action()
    module._task.args = dict(COMMANDS, poll_interval="soon")
    result = module.run(task_vars={})
    assert result["failed"] and not result["rebooted"] and "poll_interval = 'soon' is refused" in result["msg"]
    module._connection.exec_command.assert_not_called()


def test_with_every_command_given_no_setup_runs_to_learn_the_platform():
    module = action(**COMMANDS)
    with mock.patch.object(module, "_execute_module") as execute:
        assert module.get_distribution({}) == {"name": "macosx", "version": "", "family": "darwin"}
        facts = {"ansible_facts": {"distribution": "MacOSX", "distribution_version": "26.2", "os_family": "Darwin"}}
        assert module.get_distribution(facts) == {"name": "macosx", "version": "26", "family": "darwin"}
    execute.assert_not_called()


def test_without_the_commands_the_builtin_asks_setup():
    module = action(reboot_command="/sbin/shutdown -r +0")
    answer = {"ansible_facts": {"ansible_distribution": "MacOSX", "ansible_distribution_version": "26.2",
                                "ansible_os_family": "Darwin"}}
    with mock.patch.object(module, "_execute_module", return_value=answer) as execute:
        assert module.get_distribution({})["family"] == "darwin"
    assert execute.call_args[1]["module_name"] == "ansible.legacy.setup"


FAKE_LAUNCHCTL = """#!/bin/sh
# bootout system/LABEL: 'slow' never exits by itself (exec: one process, as launchctl is), 'gone'
# is not loaded (macOS's status 113), anything else stops at once. Records every call.
echo "$@" >> "$(dirname "$0")/calls"
case "$2" in system/slow) exec sleep 30;; system/gone) exit 113;; esac
exit 0
"""


@pytest.fixture
def launchctl(tmp_path):
    path = tmp_path / "launchctl"
    path.write_text(FAKE_LAUNCHCTL)
    path.chmod(0o755)
    return path


def run_stop(launchctl, labels, timeout):
    import subprocess
    import time

    started = time.monotonic()
    answer = subprocess.run(["/bin/sh", "-c", node_reboot.stop_command(str(launchctl), labels, timeout)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    return answer.stdout, time.monotonic() - started


def test_the_stop_boots_out_every_label_and_tells_stopped_from_not_loaded(launchctl):
    stdout, _seconds = run_stop(launchctl, ["org.macops.exo", "gone"], 5)
    assert (launchctl.parent / "calls").read_text().splitlines() == ["bootout system/org.macops.exo", "bootout system/gone"]
    outcomes = node_reboot.stop_outcomes(stdout, ["org.macops.exo", "gone"], 5)
    assert [(o["label"], o["status"], o["state"]) for o in outcomes] == [
        ("org.macops.exo", 0, "stopped"), ("gone", 113, "not_loaded")]


def test_a_job_that_does_not_stop_is_left_after_the_timeout_and_nothing_of_the_stop_keeps_running(launchctl):
    stdout, seconds = run_stop(launchctl, ["slow", "org.macops.exo"], 1)
    assert 1 <= seconds < 5  # the watchdog ended the slow one; the next label was still stopped
    outcomes = node_reboot.stop_outcomes(stdout, ["slow", "org.macops.exo"], 1)
    assert [(o["state"], o["msg"]) for o in outcomes] == [
        ("timeout", "did not stop within 1 s; the reboot ends it"), ("stopped", "stopped")]
    # Only this test's session: the machine may run other `sleep 30`s of its own.
    left = subprocess.run(["pgrep", "-s", str(os.getsid(0)), "-f", "sleep 1$|sleep 30$|%s" % launchctl],
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    assert left == []


def test_jobs_that_stop_at_once_leave_no_watchdog_and_no_stop_waits_out_its_timeout(launchctl):
    """Each fast label's watchdog is ended just after it starts: a sleep started a moment before its
    watchdog got TERM (or given TERM between fork and exec) was left running, or held the stop for the
    whole timeout, about once in 300 labels. A thousand labels make either show."""
    labels = ["job%d" % n for n in range(1000)]
    stdout, seconds = run_stop(launchctl, labels, 37)
    assert seconds < 30
    assert [o["state"] for o in node_reboot.stop_outcomes(stdout, labels, 37)] == ["stopped"] * len(labels)
    left = subprocess.run(["pgrep", "-s", str(os.getsid(0)), "-f", "sleep 37$"],
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    assert left == []


def test_an_answer_without_a_label_or_with_another_status_is_a_failure():
    outcomes = node_reboot.stop_outcomes("macops-stop a 36\nnoise\n", ["a", "b"], 30)
    assert [(o["status"], o["state"]) for o in outcomes] == [(36, "failed"), (None, "failed")]
    assert "exited 36" in outcomes[0]["msg"] and "no answer" in outcomes[1]["msg"]


def test_the_jobs_stop_over_the_connection_just_before_the_reboot_command_and_late_ones_warn():
    module = action(**dict(COMMANDS, stop_labels=["org.macops.exo", "com.example.train"], stop_timeout=20))
    module._stop_labels, module._stop_timeout, module._stopped = ["org.macops.exo", "com.example.train"], 20, None
    order = []

    def low_level(command, sudoable=True):
        order.append(("stop", sudoable, command))
        return {"rc": 0, "stdout": "macops-stop org.macops.exo 0\nmacops-stop com.example.train 143\n", "stderr": ""}

    with mock.patch.object(module, "_low_level_execute_command", side_effect=low_level), \
            mock.patch.object(node_reboot.RebootAction, "perform_reboot",
                              side_effect=lambda *args: order.append(("reboot",)) or {}):
        module.perform_reboot({}, {"name": "macosx"})
    assert [step[0] for step in order] == ["stop", "reboot"]
    assert order[0][1] is True and "bootout" in order[0][2] and "sleep 20" in order[0][2]
    assert [o["state"] for o in module._stopped] == ["stopped", "timeout"]


def test_without_labels_nothing_is_stopped():
    module = action(**COMMANDS)
    module._stop_labels, module._stopped = [], None
    with mock.patch.object(module, "_low_level_execute_command") as low_level, \
            mock.patch.object(node_reboot.RebootAction, "perform_reboot", return_value={}):
        module.perform_reboot({}, {"name": "macosx"})
    low_level.assert_not_called()
    assert module._stopped is None


def test_the_result_carries_every_outcome_and_a_warning_naming_the_late_jobs():
    module = action(**dict(COMMANDS, stop_labels=["org.macops.exo", "slow"], stop_timeout=5))

    def builtin_run(self, tmp=None, task_vars=None):
        self._stopped = node_reboot.stop_outcomes("macops-stop org.macops.exo 0\nmacops-stop slow 143\n",
                                                  ["org.macops.exo", "slow"], 5)
        return {"rebooted": True, "changed": True}

    with mock.patch.object(node_reboot.RebootAction, "run", builtin_run):
        result = module.run(task_vars={})
    assert [o["state"] for o in result["stopped"]] == ["stopped", "timeout"]
    assert result["warnings"] == ["slow: did not stop within 5 s; the reboot ends it"]
