"""macops.cluster.pf_status: main() against mocked pfctl runs."""
import pytest
from ansible.module_utils import basic
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import pf_status

INFO = ["/sbin/pfctl", "-s", "info"]
RULES = ["/sbin/pfctl", "-a", "macops", "-s", "rules"]
ALTQ = "No ALTQ support in kernel\nALTQ related functions disabled\n"


def mac(info=None, rules=None, installed=None):
    return FakeMac([
        (INFO, info or (0, read_fixture("pfctl/info_enabled.txt"), ALTQ)),
        (RULES, rules or (0, read_fixture("pfctl/anchor_rules.txt"), ALTQ)),
    ], installed=installed)


@pytest.mark.parametrize("check_mode", [False, True])
def test_enabled_with_the_anchor_loaded_in_one_run(monkeypatch, capsys, check_mode):
    result, calls = run_module(monkeypatch, capsys, pf_status.main, {"anchor": "macops", "_ansible_check_mode": check_mode},
                               mac())
    assert sorted(calls) == sorted([INFO, RULES])
    assert result["changed"] is False and result.get("failed") is None
    assert (result["enabled"], result["status"], result["anchor"]) == (True, "Enabled for 0 days 00:12:34", "macops")
    assert len(result["anchor_rules"]) == 5 and result["anchor_error"] is None


@pytest.mark.parametrize("info, rules, enabled, rule_count, error", [
    # Someone ran `pfctl -d`: the rules are still loaded.
    ((0, read_fixture("pfctl/info_disabled.txt"), ALTQ), None, False, 5, None),
    # A macOS update replaced /etc/pf.conf: pf runs, the anchor is empty.
    (None, (0, "", ALTQ), True, 0, None),
    # An anchor pfctl does not know: not a failure, the rules are empty and the error is kept.
    (None, (1, "", ALTQ + "pfctl: DIOCGETRULES: Invalid argument\n"), True, 0,
     "exit status 1: pfctl: DIOCGETRULES: Invalid argument"),
])
def test_what_needs_a_reload(monkeypatch, capsys, info, rules, enabled, rule_count, error):
    warned = []
    monkeypatch.setattr(basic.AnsibleModule, "warn", lambda module, text: warned.append(text))
    result, _calls = run_module(monkeypatch, capsys, pf_status.main, {"anchor": "macops"}, mac(info, rules))
    assert result.get("failed") is None, result.get("msg")
    assert (result["enabled"], len(result["anchor_rules"]), result["anchor_error"]) == (enabled, rule_count, error)
    # A failing anchor read is shown on every run, not only counted as "no rules".
    assert warned == ([
        "`/sbin/pfctl -a macops -s rules` failed (%s); counted as no rules loaded in anchor macops." % error
    ] if error else [])


def test_status_only_without_an_anchor(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, pf_status.main, {}, mac())
    assert calls == [INFO]
    assert (result["enabled"], result["anchor"], result["anchor_rules"]) == (True, None, [])


@pytest.mark.parametrize("args, fake, message", [
    ({"anchor": "macops"}, mac(info=(1, "", ALTQ + "pfctl: /dev/pf: Permission denied\n")),
     "`/sbin/pfctl -s info` failed with exit status 1: pfctl: /dev/pf: Permission denied. pfctl needs root"),
    ({"anchor": "macops"}, mac(info=(0, "pf enabled\n", "")), "cannot parse the output of `pfctl -s info`"),
    ({"anchor": " "}, mac(), "anchor must be an anchor name"),
    ({}, FakeMac([], installed=[]), "pfctl not found in /sbin or PATH"),
    # No root hint unless pfctl said so.
    ({}, mac(info=(1, "", "")), "`/sbin/pfctl -s info` failed with exit status 1: no output."),
])
def test_fails_cleanly(monkeypatch, capsys, args, fake, message):
    result, _calls = run_module(monkeypatch, capsys, pf_status.main, args, fake)
    assert result["failed"] is True
    assert result["msg"].startswith(message), result["msg"]
    assert "exception" not in result
