"""_module_commands.run_many / run_parallel: reads run at once, results keep their order, and a
failure is reported for the first failing command in that order, after every command finished."""
import threading
import time

import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands


class Failed(Exception):
    pass


class SlowMac(object):
    """run_command that takes a while, so the commands overlap only when run at once."""

    def __init__(self, results):
        self.results, self.running, self.most = results, 0, 0
        self.lock = threading.Lock()
        self.calls = []

    def run_command(self, argv, **kwargs):
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


def test_reads_run_at_once_and_keep_their_order():
    mac = SlowMac({"a": (0, "A", ""), "b": (0, "B", ""), "c": (0, "C", "")})
    assert commands.run_many(mac, [["a"], ["b"], ["c"]]) == ["A", "B", "C"]
    assert mac.most == 3 and sorted(mac.calls) == [["a"], ["b"], ["c"]]


def test_missing_commands_are_none_and_not_run():
    mac = SlowMac({"a": (0, "A", "")})
    assert commands.run_parallel(mac, [None, ["a"], None]) == [None, (0, "A", ""), None]
    assert mac.calls == [["a"]]


def test_the_first_failure_in_order_is_reported_after_all_ran():
    mac = SlowMac({"a": (0, "A", ""), "b": (2, "", "b broke"), "c": (1, "", "c broke")})
    with pytest.raises(Failed) as failed:
        commands.run_many(mac, [["a"], ["b"], ["c"]])
    assert failed.value.args[0]["msg"] == "`b` failed with exit status 2: b broke"
    assert len(mac.calls) == 3


def test_a_command_that_cannot_start_is_exit_127_not_a_crash():
    mac = SlowMac({"a": (0, "A", "")})
    results = commands.run_parallel(mac, [["a"], ["/gone/tool", "-x"]])
    assert results[0] == (0, "A", "")
    assert results[1][0] == 127 and "cannot run /gone/tool" in results[1][2]
    with pytest.raises(Failed) as failed:
        commands.run_many(mac, [["a"], ["/gone/tool", "-x"]])
    assert failed.value.args[0]["msg"].startswith("`/gone/tool -x` failed with exit status 127: cannot run /gone/tool")
