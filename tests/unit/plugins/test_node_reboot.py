"""macops.cluster.node_reboot: ansible.builtin.reboot checking at a steady pace, without the setup
run when every command is given; the option is judged before anything connects."""
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
