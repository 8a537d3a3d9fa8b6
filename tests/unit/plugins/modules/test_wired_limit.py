"""macops.cluster.wired_limit against a mocked sysctl: sets RAM minus the reserve and reads it back, changes only
what differs, predicts in check mode."""
from ansible_collections.macops.cluster.plugins.modules import wired_limit

from module_harness import FakeMac, run_module

READ = ["/usr/sbin/sysctl", "-n", "hw.memsize", "iogpu.wired_limit_mb"]
TABLE = [{"max_ram_mb": 98304, "reserve_mb": 8192}, {"max_ram_mb": 32768, "reserve_mb": 6144},
         {"max_ram_mb": 262144, "reserve_mb": 12288}, {"max_ram_mb": 999999999, "reserve_mb": 16384}]


def sysctl_out(memsize, limit):
    return (0, "%d\n%d\n" % (memsize, limit), "")


class SysctlMac(FakeMac):
    """A Mac whose live value changes when `sysctl -w` runs, as a real one's does."""

    def __init__(self, memsize, limit):
        super(SysctlMac, self).__init__([])
        self.memsize, self.limit = memsize, limit

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        if list(args) == READ:
            return sysctl_out(self.memsize, self.limit)
        if args[:2] == ["/usr/sbin/sysctl", "-w"] and args[2].startswith("iogpu.wired_limit_mb="):
            old, self.limit = self.limit, int(args[2].split("=")[1])
            return (0, "iogpu.wired_limit_mb: %d -> %d\n" % (old, self.limit), "")
        raise AssertionError("unexpected command %r" % (args,))


def test_sets_ram_minus_reserve_and_reads_it_back(monkeypatch, capsys):
    mac = SysctlMac(549755813888, 0)
    result, calls = run_module(monkeypatch, capsys, wired_limit.main, {"reserve_table": TABLE}, mac)
    assert calls == [READ, ["/usr/sbin/sysctl", "-w", "iogpu.wired_limit_mb=507904"], READ]
    assert result["changed"] is True
    assert (result["ram_mb"], result["reserve_mb"], result["target_mb"]) == (524288, 16384, 507904)
    assert (result["previous_mb"], result["wired_limit_mb"]) == (0, 507904)
    assert result["diff"] == {"before": "iogpu.wired_limit_mb=0\n", "after": "iogpu.wired_limit_mb=507904\n"}


def test_converged_mac_is_not_changed(monkeypatch, capsys):
    mac = SysctlMac(68719476736, 57344)
    result, calls = run_module(monkeypatch, capsys, wired_limit.main, {"reserve_table": TABLE}, mac)
    assert calls == [READ]
    assert result["changed"] is False and result["wired_limit_mb"] == 57344


def test_check_mode_predicts_without_writing(monkeypatch, capsys):
    mac = SysctlMac(68719476736, 0)
    result, calls = run_module(monkeypatch, capsys, wired_limit.main,
                               {"reserve_table": TABLE, "_ansible_check_mode": True}, mac)
    assert calls == [READ]
    assert result["changed"] is True and result["wired_limit_mb"] == 57344 and mac.limit == 0


def test_impossible_limit_fails_before_writing(monkeypatch, capsys):
    mac = SysctlMac(17179869184, 0)
    result, calls = run_module(monkeypatch, capsys, wired_limit.main, {"wired_limit_mb": 20000}, mac)
    assert calls == [READ]
    assert result["failed"] is True and "16384 MB of RAM" in result["msg"]
