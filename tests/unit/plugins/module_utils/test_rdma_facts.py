"""RDMA readiness from the commands a module already ran (plugins/module_utils/_rdma_facts.py), as node_facts'
rdma group reads it: no second system_profiler run, RDMA disabled a problem and no failure, no ports a failure
with the reason."""
from ansible_collections.macops.cluster.plugins.modules import node_facts

from fake_node import IBV_DEVICES, IBV_DEVINFO, RDMA_CTL, ok, studio
from module_harness import run_module


def test_rdma_with_an_earlier_mac_fact_runs_no_system_profiler(monkeypatch, capsys):
    first, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["mac", "macos"]}, studio())
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["rdma"], "mac": first["mac"]},
                               studio())
    assert result.get("failed") is None, result.get("msg")
    assert sorted(calls) == sorted([RDMA_CTL, IBV_DEVICES, IBV_DEVINFO])
    rdma = result["rdma"]
    assert (rdma["enabled"], rdma["ready"], rdma["macos_version"], rdma["macos_build"]) == (True, True, "26.2", "25C56")
    assert [port["interface"] for port in rdma["ports"] if port["cabled"]] == ["en3", "en4"]


def test_rdma_disabled_is_a_problem_not_a_failure(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["mac", "macos", "rdma"]},
                               studio({tuple(RDMA_CTL): ok("rdma_ctl/disabled.txt"),
                                         tuple(IBV_DEVICES): ok("ibv_devices/rdma_disabled.txt")}))
    assert [call[0] for call in calls].count("/usr/sbin/system_profiler") == 1
    # ibv_devinfo ran with the others, once; without devices its answer is not judged
    assert calls.count(IBV_DEVINFO) == 1
    assert [problem["code"] for problem in result["rdma"]["problems"]] == ["rdma_disabled"]


def test_rdma_without_ports_fails_with_a_reason(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["rdma"]}, studio())
    assert result["failed"] is True and "gather mac too" in result["msg"]
