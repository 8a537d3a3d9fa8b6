"""macops.cluster.pmset against a mocked pmset: reads first, changes only what differs."""
import pytest
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import pmset

GET = ["/usr/bin/pmset", "-g"]
CLUSTER = {"sleep": 0, "disksleep": 0, "displaysleep": 10, "autorestart": True, "womp": True}
SET_CLUSTER = ["/usr/bin/pmset", "-a", "autorestart", "1", "disksleep", "0", "sleep", "0"]


class SequencedMac(FakeMac):
    """A Mac whose `pmset -g` answers change after `pmset -a`, as a real one's do."""

    def __init__(self, outputs_before, outputs_after, set_argv):
        super(SequencedMac, self).__init__([(GET, outputs_before), (set_argv, (0, "", ""))])
        self.after = outputs_after
        self.set_argv = set_argv

    def run_command(self, args, **kwargs):
        result = super(SequencedMac, self).run_command(args, **kwargs)
        if list(args) == self.set_argv:
            self.outputs[tuple(GET)] = self.after
        return result


def ok(fixture):
    return (0, read_fixture(fixture), "")


def test_changes_only_the_settings_that_differ(monkeypatch, capsys):
    mac = SequencedMac(ok("pmset/studio_default.txt"), ok("pmset/studio_cluster.txt"), SET_CLUSTER)
    result, calls = run_module(monkeypatch, capsys, pmset.main, {"settings": CLUSTER}, mac)
    assert calls == [GET, SET_CLUSTER, GET]
    assert result["changed"] is True
    assert result["changes"] == {"autorestart": "1", "disksleep": "0", "sleep": "0"}
    assert result["settings"]["sleep"] == "0"
    assert result["diff"]["before"]["sleep"] == "1"
    assert result["diff"]["after"]["sleep"] == "0"
    assert result["notes"] == {"displaysleep": "display sleep prevented by coreaudiod"}


def test_converged_mac_is_not_changed(monkeypatch, capsys):
    mac = FakeMac([(GET, ok("pmset/studio_cluster.txt"))])
    result, calls = run_module(monkeypatch, capsys, pmset.main, {"settings": CLUSTER}, mac)
    assert calls == [GET]
    assert result["changed"] is False
    assert result["changes"] == {}


def test_check_mode_predicts_without_running_pmset_a(monkeypatch, capsys):
    mac = FakeMac([(GET, ok("pmset/studio_default.txt"))])
    result, calls = run_module(monkeypatch, capsys, pmset.main,
                               {"settings": CLUSTER, "_ansible_check_mode": True}, mac)
    assert calls == [GET]
    assert result["changed"] is True
    assert result["settings"]["autorestart"] == "1"


def test_fails_when_the_mac_ignores_a_setting(monkeypatch, capsys):
    set_lidwake = ["/usr/bin/pmset", "-a", "lidwake", "0"]
    mac = SequencedMac(ok("pmset/studio_cluster.txt"), ok("pmset/studio_cluster.txt"), set_lidwake)
    result, calls = run_module(monkeypatch, capsys, pmset.main, {"settings": {"lidwake": 0}}, mac)
    assert calls == [GET, set_lidwake, GET]
    assert result["failed"] is True
    assert "pmset did not take lidwake=0: this Mac reports lidwake=(absent)" in result["msg"]


def test_rejects_a_value_with_shell_text_before_running_anything(monkeypatch, capsys):
    mac = FakeMac([])
    result, calls = run_module(monkeypatch, capsys, pmset.main, {"settings": {"sleep": "0 && reboot"}}, mac)
    assert calls == []
    assert result["failed"] is True
    assert result["msg"].startswith("settings: '0 && reboot' is not a value")


def test_fails_with_pmset_stderr_when_it_cannot_run(monkeypatch, capsys):
    mac = FakeMac([(GET, (1, "", "pmset: something broke\n"))])
    result, _calls = run_module(monkeypatch, capsys, pmset.main, {"settings": CLUSTER}, mac)
    assert result["failed"] is True
    assert "pmset: something broke" in result["msg"]
