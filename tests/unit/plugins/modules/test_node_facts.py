"""macops.cluster.node_facts: one run per node, each command at most once, facts set, a failing required read
failing the module; against mocked commands (each group's reads: module_utils/test_node_reads.py and
test_node_collect.py)."""

import pytest

from ansible_collections.macops.cluster.plugins.modules import node_facts

from fake_node import AUTHRESTART, DF_ROOT, FDESETUP, PORTS, PROFILE, SSHD, ok, studio
from module_harness import run_module


@pytest.mark.parametrize("check_mode", [False, True])
def test_defaults_read_each_command_once(monkeypatch, capsys, check_mode):
    result, calls = run_module(monkeypatch, capsys, node_facts.main,
                               {"set_facts": True, "_ansible_check_mode": check_mode}, studio())
    assert result.get("failed") is None, result.get("msg")
    # system_profiler has the macOS version and build (SPSoftwareDataType): no sw_vers.
    # FileVault is off: fdesetup supportsauthrestart is not asked (only a restart with FileVault on needs it).
    assert sorted(calls) == sorted([PROFILE, PORTS, DF_ROOT, FDESETUP, SSHD])
    assert result["changed"] is False
    assert result["macos"] == {"version": "26.2", "extra": None, "build": "25C56"}
    assert result["mac"]["chip"] == "Apple M3 Ultra"
    assert result["volumes"]["/"]["free_gb"] > 0
    assert result["filevault"]["state"] == "off" and result["filevault"]["on"] is False
    assert result["filevault"]["supports_authrestart"] is None and "launchd_disabled" not in result
    assert result["launchd"] == {"com.openssh.sshd": True}
    facts = result["ansible_facts"]
    assert facts["macops_mac"] == result["mac"]
    assert facts["macops_node"]["launchd"] == result["launchd"] and "mac" not in facts["macops_node"]
    assert set(facts) >= {"user_id", "user_dir"}


@pytest.mark.parametrize("answer, supports", [((0, "true\n", ""), True), ((0, "false\n", ""), False),
                                             ((1, "", "fdesetup: unknown verb\n"), None)])
def test_supportsauthrestart_is_asked_only_where_filevault_is_on(monkeypatch, capsys, answer, supports):
    on = {tuple(FDESETUP): ok("fdesetup/on.txt"), tuple(AUTHRESTART): answer}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["filevault"]}, studio(on))
    assert result.get("failed") is None, result.get("msg")
    assert calls == [FDESETUP, AUTHRESTART] and result["filevault"]["state"] == "on"
    assert result["filevault"]["supports_authrestart"] is supports


def test_a_failing_required_read_fails(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {},
                                studio({tuple(FDESETUP): (1, "", "fdesetup: not permitted\n")}))
    assert result["failed"] is True and "fdesetup status" in result["msg"]
