"""doctor.yml's judge (plugins/plugin_utils/_doctor_checks.py, filter doctor_findings): a healthy sweep
has no problem; each failure mode the sweep reads becomes its catalogue problem on the right host and
port with a fix; a node that was not swept gets its one finding; what the nodes share is computed once
per run; the counts a workflow branches on (the report's stats) add up."""
import copy

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import PROBLEM_KEYS, REGISTRY
from ansible_collections.macops.cluster.plugins.plugin_utils import _doctor_checks
from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_checks import cluster_findings, node_result
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import (nodes_from_hostvars,
                                                                                    problems_from_hostvars,
                                                                                    sections_from_hostvars)
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model, stats_of
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from cabling_builder import build_nodes
from doctor_sweep import MAC, NO_REPLY, PLAN_FILE, PYTHON_OK, healthy_sweep, three_studios_with_mac3_not_answering

PINS = {"mlx": "mlx==0.32.4", "mlx_lm": "mlx-lm==0.32.2", "exo": "exo==1.0.71"}


def judge(sweep, host="mac1", python=None, others=None, **settings):
    sweeps = dict({host: sweep}, **(others or {}))
    return node_result(host, sweep, PYTHON_OK if python is None else python, sweeps,
                       dict({"swept_at": "2026-12-02T06:00:00Z", "timeout": 120, "pins": PINS}, **settings))


def codes(result):
    return [(p["code"], p["host"], p["port"]) for p in result["problems"]]


def test_a_healthy_node_passes_every_check_and_has_no_problem():
    result = judge(healthy_sweep())
    assert result["problems"] == [] and result["reachable"] and result["swept"]
    assert [c["name"] for c in result["checks"]] == [
        "macos_version", "macos_build", "memory", "free_disk", "filevault", "remote_login", "thunderbolt_links",
        "thunderbolt_config", "rdma", "wired_limit", "exo", "exo_networksetup_daemon", "macos_updates", "macos_auto_updates", "power_sleep",
        "power_autorestart", "software", "sudo_rules", "ssh_mesh"]
    assert all(c["ok"] for c in result["checks"]) and result["summary"] == "mac1: healthy"


@pytest.mark.parametrize("change, expected", [
    (lambda s: s["links"].update(problems=[NO_REPLY]), [("tb_link_no_reply", "mac1", "en4")]),
    (lambda s: s["links"].update(plan_found=False, planned_links=0, links=[]), [("tb_plan_missing", "mac1", None)]),
    (lambda s: s["wired_limit"].update(live_mb=0), [("gpu_wired_limit_differs", "mac1", None)]),
    (lambda s: s["exo"].update(healthy=False, nodes_seen=2, message="exo on mac1: nodes in /state 2 of 4."),
     [("service_not_running", "mac1", None)]),
    (lambda s: s["launchd"].update({"io.exo.networksetup": True}), [("tb_exo_networksetup_daemon", "mac1", None)]),
    (lambda s: s.update(updates=[{"label": "macOS Tahoe 26.3-25D125", "title": "macOS Tahoe 26.3"}]),
     [("macos_update_pending", "mac1", None)]),
    (lambda s: s["filevault"].update(on=True, state="on", status="FileVault is On."), [("filevault_on", "mac1", None)]),
    (lambda s: s.update(sudo={"rc": 1, "problems": [dict(NO_REPLY, code="sudo_rules_inactive", port=None, peer=None)]}),
     [("sudo_rules_inactive", "mac1", None)]),
    (lambda s: s["ssh"].update(problems=[dict(NO_REPLY, code="ssh_peer_unreachable", port="en4", peer="mac3")]),
     [("ssh_peer_unreachable", "mac1", "en4")]),
    (lambda s: s["settings"]["power"].update(sleep="10"), [("power_sleep_on", "mac1", None)]),
    (lambda s: s["settings"]["power"].update(autorestart="0"), [("power_autorestart_off", "mac1", None)]),
    (lambda s: s["settings"]["auto_updates"].update(AutomaticallyInstallMacOSUpdates=True),
     [("macos_auto_update_on", "mac1", None)]),
    # A security response installed in the background changes the build as surely as an update.
    (lambda s: s["settings"]["auto_updates"].update(CriticalUpdateInstall=True), [("macos_auto_update_on", "mac1", None)]),
    (lambda s: s["settings"]["auto_updates"].update(SplatEnabled=True), [("macos_auto_update_on", "mac1", None)]),
    (lambda s: s["volumes"]["/"].update(free_gb=3.0), [("disk_space_low", "mac1", None)]),
    (lambda s: s["rdma"].update(ready=False, problems=[{
        "code": "rdma_port_down", "severity": "error", "host": None, "port": "en5", "peer": None,
        "message": "rdma_en5 is down", "fix": "Reseat the cable.", "details": {}}]),
     [("rdma_port_down", "mac1", "en5")]),
])
def test_each_failure_mode_is_its_problem_on_the_right_host_and_port(change, expected):
    sweep = healthy_sweep()
    change(sweep)
    result = judge(sweep)
    assert codes(result) == expected
    for found in result["problems"]:
        assert set(found) == set(PROBLEM_KEYS) and found["code"] in REGISTRY and found["fix"]
    failed = [c for c in result["checks"] if not c["ok"]]
    assert [c["code"] for c in failed] == [expected[0][0]]


def test_rdma_off_on_a_cluster_that_does_not_ask_for_it_is_no_problem():
    sweep = healthy_sweep()
    sweep["rdma"] = {"enabled": False, "ready": False, "problems": [dict(NO_REPLY, code="rdma_disabled", port=None)]}
    assert judge(sweep)["problems"] == []
    assert codes(judge(sweep, rdma_required=True)) == [("rdma_disabled", "mac1", None)]


def test_rdma_off_where_the_hostfiles_promise_it_is_a_problem_without_rdma_required():
    sweep = healthy_sweep()
    sweep["rdma"] = {"enabled": False, "ready": False, "problems": [dict(NO_REPLY, code="rdma_disabled", port=None)]}
    jaccl = "/Library/Application Support/macops/hostfile-jaccl.json"
    sweep["files"] = {jaccl: {"exists": True, "content": "{}", "json": {}}}
    result = judge(sweep)
    assert codes(result) == [("rdma_disabled", "mac1", None)] and result["rdma"]["enabled"] is False
    sweep["files"][jaccl]["exists"] = False
    assert judge(sweep)["problems"] == []


def test_the_network_differences_the_sweep_found_are_its_problems_on_this_node():
    sweep = healthy_sweep()
    bridge = {"code": "tb_bridge_on", "severity": "error", "host": "mac1", "port": "bridge0", "peer": None,
              "message": "mac1: the Thunderbolt Bridge is back", "fix": "Run site.yml.", "details": {}}
    reset = dict(bridge, code="tb_address_differs", port="en4", message="mac1 en4: dhcp")
    sweep["network"] = {"plan_found": True, "problems": [bridge, reset],
                        "differences": [{"kind": "bridge", "device": "bridge0", "reason": "the live bridge exists"},
                                        {"kind": "address", "device": "en4", "reason": "Thunderbolt 3 is dhcp"}]}
    result = judge(sweep)
    assert codes(result) == [("tb_bridge_on", "mac1", "bridge0"), ("tb_address_differs", "mac1", "en4")]
    check = [c for c in result["checks"] if c["name"] == "thunderbolt_config"][0]
    assert not check["ok"] and check["code"] == "tb_bridge_on" and "2 difference" in check["detail"]
    # No applied plan: nothing to compare (the links check reports tb_plan_missing).
    sweep["network"] = {"plan_found": False, "differences": [], "problems": []}
    assert "thunderbolt_config" not in [c["name"] for c in judge(sweep)["checks"]]


def cabled(cables, min_link_gbps=80):
    """Healthy sweeps of two Studios whose macops_mac has the Thunderbolt ports of ``cables``, and
    the topology role's plan over them (its problems are what doctor.yml hands the judge)."""
    nodes = build_nodes({"mac1": "studio", "mac2": "studio"}, cables)
    sweeps = {}
    for host, node in nodes.items():
        sweeps[host] = healthy_sweep()
        sweeps[host]["mac"] = dict(node["mac"], **MAC)
    plan = build_topology(dict((host, {"mac": sweep["mac"]}) for host, sweep in sweeps.items()),
                          min_link_gbps=min_link_gbps)
    return sweeps, plan["problems"]


def test_a_tb4_cable_is_found_on_the_swept_nodes_and_a_healthy_mesh_has_no_cabling_finding():
    healthy, problems = cabled(["mac1:2 mac2:2"])
    result = judge(healthy["mac1"], others={"mac2": healthy["mac2"]}, topology_problems=problems)
    assert result["problems"] == [] and "cabling" in [c["name"] for c in result["checks"]]
    slow, problems = cabled(["mac1:2 mac2:2 @40"])
    result = judge(slow["mac1"], others={"mac2": slow["mac2"]}, topology_problems=problems)
    assert codes(result) == [("tb_link_tb4_speed", "mac1", "en3")] and "40 Gb/s" in result["problems"][0]["message"]
    # RDMA readiness sees the same slow port: one finding, the one that names the peer.
    slow["mac1"]["rdma"]["problems"] = [{
        "code": "tb_link_tb4_speed", "severity": "error", "host": None, "port": "en3", "peer": None,
        "message": "en3 (Thunderbolt 2): this link runs at 40 Gb/s", "fix": "Use a TB5 cable.", "details": {}}]
    result = judge(slow["mac1"], others={"mac2": slow["mac2"]}, topology_problems=problems)
    assert [(p["code"], p["port"], p["peer"]) for p in result["problems"]] == [("tb_link_tb4_speed", "en3", "mac2")]
    slow["mac1"]["rdma"]["problems"] = []
    # The plan's own findings that are no cable's state (a pair without a cable in a ring, addresses)
    # are not the doctor's; nor is a cable to a node that was not swept.
    ring = [dict(problems[0], code="tb_mesh_missing_pair"), dict(problems[0], peer="mac9")]
    assert judge(slow["mac1"], others={"mac2": slow["mac2"]}, topology_problems=ring)["problems"] == []
    # A single swept node, or no plan, has no cable to judge: no cabling check.
    assert "cabling" not in [c["name"] for c in judge(slow["mac1"], topology_problems=problems)["checks"]]
    assert "cabling" not in [c["name"] for c in judge(slow["mac1"], others={"mac2": slow["mac2"]})["checks"]]


def report_of(judged, settings=None):
    """The doctor's report model and stats, as the cluster_report action builds them from every node's
    macops_doctor (and the hardware the sweep set as a fact)."""
    hostvars = dict((host, {"macops_doctor": result, "ansible_facts": {"macops_mac": dict(MAC)} if result["swept"]
                            else {}}) for host, result in judged["nodes"].items())
    hosts = list(hostvars)
    run = {"playbook": "doctor.yml", "started": (settings or {}).get("swept_at", "2026-12-02T06:00:00Z")}
    model = build_report_model(nodes_from_hostvars(hosts, hostvars, [h for h in hosts if judged["nodes"][h]["swept"]]),
                               judged["topology"], problems_from_hostvars(hosts, hostvars), "Mac cluster doctor", run,
                               sections_from_hostvars(hosts, hostvars, run))
    return model, stats_of(model)


def judge_all(sweeps, pythons=None, topology=None, **settings):
    return cluster_findings(sweeps, dict((host, (pythons or {}).get(host, PYTHON_OK)) for host in sweeps),
                            topology or {}, dict({"swept_at": "2026-12-02T06:00:00Z", "timeout": 120, "pins": PINS},
                                                 **settings))


def test_mlx_off_its_pin_and_off_the_other_nodes_is_found_on_that_node():
    odd = healthy_sweep()
    odd["packages"]["versions"]["mlx"] = "0.32.3"
    sweeps = dict([("mac1", odd)] + [("mac%d" % i, healthy_sweep()) for i in (2, 3, 4)])
    judged = judge_all(sweeps)
    # The pin is the doctor's check on the node; the versions across nodes are the report's, once.
    assert codes(judged["nodes"]["mac1"]) == [("software_pin_mismatch", "mac1", None)]
    assert "0.32.3" in judged["nodes"]["mac1"]["problems"][0]["message"]
    assert "mlx==0.32.4" in judged["nodes"]["mac1"]["problems"][0]["message"]
    model, _stats = report_of(judged)
    skew = [p for p in model["problems"] if p["code"] == "software_version_mismatch"]
    assert [p["host"] for p in skew] == ["mac1"] and "3 of 4 nodes run 0.32.4" in skew[0]["message"]
    # The nodes on the majority's version have neither finding, and the report shows every node's versions.
    assert judged["nodes"]["mac2"]["problems"] == [] and judged["nodes"]["mac2"]["software"]["mlx"] == "0.32.4"
    assert [n["software"]["mlx"] for n in model["nodes"]] == ["0.32.3", "0.32.4", "0.32.4", "0.32.4"]


def test_what_the_nodes_share_is_computed_once_per_run(monkeypatch):
    calls = []
    real = _doctor_checks.planned_peers
    monkeypatch.setattr(_doctor_checks, "planned_peers", lambda *args: calls.append(args) or real(*args))
    sweeps = dict(("mac%d" % i, healthy_sweep()) for i in (1, 2, 3, 4))
    judged = judge_all(sweeps, plan_file=PLAN_FILE)
    assert sorted(judged["nodes"]) == ["mac1", "mac2", "mac3", "mac4"] and len(calls) == 1


def exo_sweep(own, listed, version="1.0.71"):
    sweep = healthy_sweep()
    sweep["exo"].update(version=version, node_id=own, node_ids=sorted(listed))
    return sweep


def test_exo_off_its_pin_is_found_with_the_exo_roles_fix():
    ids = ["12D3KooWA", "12D3KooWB"]
    result = judge(exo_sweep(ids[0], ids[:1], version="1.0.70"), others={"mac2": exo_sweep(ids[1], ids)})
    pinned = [p for p in result["problems"] if p["code"] == "software_pin_mismatch"]
    assert [p["details"] for p in pinned] == [{"package": "exo", "installed": "1.0.70", "pinned": "exo==1.0.71"}]
    assert "--tags python_env,exo" in pinned[0]["fix"]
    assert judge(exo_sweep(ids[1], ids), host="mac2", others={"mac1": exo_sweep(ids[0], ids)})["problems"] == []


def test_an_exo_id_no_node_has_now_is_stale_where_it_is_listed():
    ids, old = ["12D3KooWA", "12D3KooWB", "12D3KooWC"], "12D3KooWold"
    others = {"mac2": exo_sweep(ids[1], ids), "mac3": exo_sweep(ids[2], ids + [old])}
    result = judge(exo_sweep(ids[0], ids + [old]), others=others)
    assert codes(result) == [("exo_stale_node_id", "mac1", None)]
    assert result["problems"][0]["details"]["stale_ids"] == [old] and old in result["problems"][0]["message"]
    assert "bootout" in result["problems"][0]["fix"] and "bootstrap" in result["problems"][0]["fix"]
    assert judge(others["mac2"], host="mac2", others={"mac1": exo_sweep(ids[0], ids), "mac3": others["mac3"]})[
        "problems"] == []
    # exo removed from a node: the id its peers still list is stale.
    gone = healthy_sweep()
    gone["exo"] = {"installed": False, "healthy": False, "node_id": None, "node_ids": [], "message": "not installed"}
    left = judge(exo_sweep(ids[0], ids), others={"mac2": exo_sweep(ids[1], ids), "mac3": gone})
    assert [p["details"]["stale_ids"] for p in left["problems"]] == [[ids[2]]]
    # A node whose exo did not answer with its id leaves the ids unjudged: the id listed may be its own.
    silent = exo_sweep(None, [])
    unjudged = judge(exo_sweep(ids[0], ids + [old]), others={"mac2": exo_sweep(ids[1], ids), "mac3": silent})
    check = [c for c in unjudged["checks"] if c["name"] == "exo_node_ids"][0]
    assert unjudged["problems"] == [] and check["ok"] and "not judged" in check["detail"]


def smoke_run(rc, oks, size=4):
    lines = ['{"rank": %d, "size": %d, "sum": 10.0, "expected": 10.0, "ok": %s, "mlx": "0.32.4", "seconds": 1.2}'
             % (rank, size, "true" if ok else "false") for rank, ok in enumerate(oks)]
    return {"changed": False, "rc": rc, "stdout_lines": ["[launcher] starting"] + lines, "stderr": "rank 3 hung up"}


def test_the_mlx_smoke_is_judged_on_the_node_that_launched_it():
    passed = judge(healthy_sweep(), mlx_smoke=smoke_run(0, [True] * 4), mlx_smoke_host="mac1")
    check = [c for c in passed["checks"] if c["name"] == "mlx_allsum"][0]
    assert check["ok"] and check["detail"] == "all_sum over 4 ranks = 10.0 (expected 10.0)" and passed["problems"] == []
    # A rank that never answered (exit 1): the one finding, on the launcher, with the ranks that were right.
    failed = judge(healthy_sweep(), mlx_smoke=smoke_run(1, [True] * 3), mlx_smoke_host="mac1")
    assert codes(failed) == [("mlx_smoke_failed", "mac1", None)]
    assert failed["problems"][0]["details"] == {"ranks_ok": [0, 1, 2], "ranks": 4, "rc": 1}
    assert "3 of 4 ranks" in failed["problems"][0]["message"] and "rank 3 hung up" in failed["problems"][0]["message"]
    wrong = judge(healthy_sweep(), mlx_smoke=smoke_run(1, [True, False, True, True]), mlx_smoke_host="mac1")
    assert wrong["problems"][0]["details"]["ranks_ok"] == [0, 2, 3]
    # A timeout: no rank line, the task's own message.
    hung = judge(healthy_sweep(), mlx_smoke={"failed": True, "msg": "The command action failed to execute in the "
                                                               "expected time frame (120)"}, mlx_smoke_host="mac1")
    assert codes(hung) == [("mlx_smoke_failed", "mac1", None)] and "time frame" in hung["problems"][0]["message"]
    # The other nodes have no smoke check; a skipped smoke (a node not swept) is said, not a finding.
    assert "mlx_allsum" not in [c["name"] for c in judge(healthy_sweep(), host="mac2", mlx_smoke=smoke_run(1, []),
                                                         mlx_smoke_host="mac1")["checks"]]
    skipped = judge(healthy_sweep(), mlx_smoke={"skipped": True, "changed": False}, mlx_smoke_host="mac1")
    assert skipped["problems"] == [] and [c["detail"] for c in skipped["checks"] if c["name"] == "mlx_allsum"][
        0].startswith("not run")


def test_a_peers_exo_that_does_not_answer_over_its_cable_is_found_on_that_port():
    mine = exo_sweep("12D3KooWA", ["12D3KooWA", "12D3KooWB", "12D3KooWC"])
    mine["exo"]["api_port"] = 52415
    mine["exo"]["peers"] = [
        {"interface": "en3", "peer": "mac2", "address": "198.19.0.2", "node_id": "12D3KooWB"},
        {"interface": "en4", "peer": "mac3", "address": "198.19.0.6", "node_id": None},
        {"interface": "en5", "peer": "mac4", "address": "198.19.0.10", "node_id": None}]
    mine["links"]["links"] = [{"interface": "en3", "ok": True}, {"interface": "en4", "ok": True},
                              {"interface": "en5", "ok": False}]
    others = {"mac2": exo_sweep("12D3KooWB", []), "mac3": exo_sweep("12D3KooWC", []), "mac4": exo_sweep("12D3KooWD", [])}
    result = judge(mine, others=others)
    # en5's cable does not answer pings (its own finding, here the links check's): no exo finding on it.
    found = [p for p in result["problems"] if p["code"] == "exo_port_unreachable"]
    assert [(p["host"], p["port"], p["peer"]) for p in found] == [("mac1", "en4", "mac3")]
    assert "198.19.0.6" in found[0]["message"] and "--tags firewall" in found[0]["fix"]
    assert found[0]["details"] == {"address": "198.19.0.6", "answered": None, "expected": "12D3KooWC"}
    # A peer whose exo did not answer on its own node is not judged over the cable.
    others["mac3"]["exo"]["node_id"] = None
    assert not [p for p in judge(mine, others=others)["problems"] if p["code"] == "exo_port_unreachable"]


PF_PLIST = "/Library/LaunchDaemons/org.macops.pf.plist"


def pf_read(enabled=True, rules=("pass in quick inet proto tcp from 198.19.0.0/16 to any port = 52415",)):
    return {"changed": False, "enabled": enabled, "status": "Enabled" if enabled else "Disabled", "anchor": "macops",
            "anchor_rules": list(rules), "anchor_error": None}


def test_pf_must_be_on_with_the_clusters_rules_where_the_firewall_role_put_its_daemon():
    sweep = healthy_sweep()
    sweep["files"] = {PF_PLIST: {"exists": True}}
    firewall = {"plist": PF_PLIST}

    def pf(read):
        return dict(firewall, pf_by_host={"mac1": read})

    on = judge(sweep, firewall=pf(pf_read()))
    assert on["problems"] == [] and [c["detail"] for c in on["checks"] if c["name"] == "firewall"] == [
        "pf enabled, 1 rules in anchor macops"]
    assert codes(judge(sweep, firewall=pf(pf_read(enabled=False)))) == [("firewall_pf_disabled", "mac1", None)]
    assert codes(judge(sweep, firewall=pf(pf_read(rules=())))) == [("firewall_rules_missing", "mac1", None)]
    refused = judge(sweep, firewall=pf({"failed": True, "msg": "sudo: a password is required"}))
    assert codes(refused) == [("check_failed", "mac1", None)] and "password" in refused["problems"][0]["message"]
    # No firewall role on the node (its own firewall, or firewall_state absent), or the check off: nothing to judge.
    sweep["files"] = {PF_PLIST: {"exists": False}}
    assert judge(sweep, firewall=pf(pf_read(enabled=False)))["problems"] == []
    assert "firewall" not in [c["name"] for c in judge(sweep, firewall=dict(firewall, pf_by_host=None))["checks"]]


def test_each_node_is_judged_on_its_own_pf_read():
    """pf off on mac1 alone is mac1's finding: every node's firewall check reads that node's pf."""
    sweeps = {}
    for host in ("mac1", "mac2", "mac3", "mac4"):
        sweeps[host] = healthy_sweep()
        sweeps[host]["files"] = {PF_PLIST: {"exists": True}}
    reads = dict((host, pf_read(enabled=host != "mac1")) for host in sweeps)
    judged = judge_all(sweeps, firewall={"plist": PF_PLIST, "pf_by_host": reads})
    assert [(h, [p["code"] for p in judged["nodes"][h]["problems"]]) for h in sorted(sweeps)] == [
        ("mac1", ["firewall_pf_disabled"]), ("mac2", []), ("mac3", []), ("mac4", [])]


def test_a_node_without_the_cluster_environment_is_one_finding():
    sweep = healthy_sweep()
    sweep["packages"] = {"python_path": "/opt/macops/venv/bin/python", "found": False, "python": None,
                         "versions": {"mlx": None, "mlx-lm": None}, "error": "/opt/macops/venv/bin/python is not there"}
    result = judge(sweep)
    assert codes(result) == [("software_missing", "mac1", None)] and "is not there" in result["problems"][0]["message"]
    assert "software" not in result


def test_exo_missing_is_a_problem_only_where_exo_is_expected():
    sweep = healthy_sweep()
    sweep["exo"] = {"installed": False, "healthy": False, "message": "exo on mac1 is not installed."}
    assert judge(sweep)["problems"] == []
    assert codes(judge(sweep, exo_expected=True)) == [("service_not_running", "mac1", None)]


def test_a_build_off_the_cluster_is_judged_against_every_swept_node():
    odd = healthy_sweep()
    odd["mac"]["macos_build"] = "25C99"
    others = dict(("mac%d" % i, healthy_sweep()) for i in (2, 3, 4))
    assert codes(judge(odd, others=others)) == [("macos_build_mismatch", "mac1", None)]
    # A node that was not swept (no mac) does not count for the majority.
    others["mac4"] = {"unreachable": True}
    assert codes(judge(healthy_sweep(), host="mac2", others=dict(others, mac1=odd))) == []


def test_nodes_that_were_not_swept_get_their_one_finding():
    unreachable = judge({"unreachable": True, "msg": "ssh: connect to host timed out"},
                        python={"unreachable": True})
    assert not unreachable["reachable"] and unreachable["problems"] == []
    assert unreachable["summary"] == "mac1: NOT SWEPT (unreachable)"
    stub = judge({"skipped": True}, python={"version": None, "msg": "mac1: /usr/bin/python3 is only the stub"})
    assert codes(stub) == [("node_python_unusable", "mac1", None)] and "stub" in stub["problems"][0]["message"]
    hung = judge({"failed": False, "msg": "The task exceeded the timeout of 120 seconds.", "timedout": {"period": 120}})
    assert codes(hung) == [("doctor_sweep_timeout", "mac1", None)] and "120 s" in hung["problems"][0]["message"]
    broken = judge({"failed": False, "msg": "system_profiler failed"})
    assert codes(broken) == [("check_failed", "mac1", None)]


def test_a_node_with_power_that_does_not_answer_is_named_and_its_peers_are_not_blamed():
    sweeps, topology = three_studios_with_mac3_not_answering()
    # What the planner says over the swept nodes alone: each peer has a port to a Mac it does not know.
    unknown = sorted((p["code"], p["host"], p["port"]) for p in topology["problems"] if p["code"] == "tb_peer_unknown")
    assert unknown == [("tb_peer_unknown", "mac1", "en5"), ("tb_peer_unknown", "mac2", "en4")]
    settings = {"topology_problems": topology["problems"], "plan_file": PLAN_FILE}
    others = {"mac2": sweeps["mac2"], "mac3": {"unreachable": True, "msg": "Connection refused"}}
    assert judge(sweeps["mac1"], others=others, **settings)["problems"] == []
    mac3 = judge({"unreachable": True}, host="mac3", python={"unreachable": True},
                 others={"mac1": sweeps["mac1"], "mac2": sweeps["mac2"]}, **settings)
    assert not mac3["reachable"] and codes(mac3) == [("node_not_answering", "mac3", None)]
    assert mac3["problems"][0]["details"]["lit_cables"] == [{"peer": "mac1", "port": "en5"},
                                                            {"peer": "mac2", "port": "en4"}]
    assert "mac1 en5, mac2 en4 are lit" in mac3["problems"][0]["message"]
    assert mac3["summary"] == "mac3: NOT SWEPT (node_not_answering)"
    # The report's cables: the same findings, without those two; mac3 is its own finding there too.
    pythons = {"mac3": {"unreachable": True}}
    judged = judge_all(dict(others, mac1=sweeps["mac1"]), pythons, topology, plan_file=PLAN_FILE)
    assert [p for p in judged["topology"]["problems"] if p["code"] == "tb_peer_unknown"] == []
    assert codes(judged["nodes"]["mac3"]) == [("node_not_answering", "mac3", None)]
    assert judged["nodes"]["mac1"]["problems"] == [] and judged["nodes"]["mac2"]["problems"] == []
    # Without the applied plan there is no telling whose port it is: the planner's finding stays.
    unplanned = dict((host, dict(sweep, files={})) for host, sweep in sweeps.items())
    judged = judge_all(dict(unplanned, mac3={"unreachable": True}), pythons, topology, plan_file=PLAN_FILE)
    assert [p["code"] for p in judged["topology"]["problems"]].count("tb_peer_unknown") == 2
    # A port the plan cables to a swept node, now showing a Mac nobody knows, stays that node's finding.
    moved = copy.deepcopy(sweeps)
    for sweep in moved.values():
        sweep["files"][PLAN_FILE]["json"]["hosts"]["mac1"]["en5"]["peer_host"] = "mac2"
    assert codes(judge(moved["mac1"], others={"mac2": moved["mac2"]}, **settings)) == [
        ("tb_peer_unknown", "mac1", "en5")]
    # A node that is down (its cables dark) is unreachable only, as before.
    dark = judge({"unreachable": True}, host="mac3", python={"unreachable": True},
                 others={"mac1": sweeps["mac1"], "mac2": sweeps["mac2"]},
                 topology_problems=[p for p in topology["problems"] if p["code"] != "tb_peer_unknown"],
                 plan_file=PLAN_FILE)
    assert dark["problems"] == []


def test_a_node_that_takes_the_connection_but_never_answers_is_not_answering():
    hung = judge({"skipped": True}, python={"failed": True, "timedout": {"period": 20},
                                            "msg": "The node_python action failed to execute in the expected time "
                                                   "frame (20) and was terminated"}, timeout=20)
    assert not hung["reachable"] and codes(hung) == [("node_not_answering", "mac1", None)]
    assert "did not answer within 20 s" in hung["problems"][0]["message"]
    assert hung["problems"][0]["details"] == {"lit_cables": [], "timed_out": True}


def test_the_counts_add_up_per_severity_and_per_node():
    sick = healthy_sweep()
    sick["links"]["problems"] = [NO_REPLY]
    sick["wired_limit"]["live_mb"] = 0
    judged = judge_all({"mac1": healthy_sweep(), "mac2": sick, "mac4": {"unreachable": True}},
                       {"mac4": {"unreachable": True}})
    model, stats = report_of(judged)
    assert (stats["errors"], stats["warnings"], stats["info"], stats["healthy"]) == (2, 1, 0, False)
    assert stats["codes"] == ["gpu_wired_limit_differs", "node_unreachable", "tb_link_no_reply"]
    assert stats["unreachable"] == ["mac4"] and stats["started"] == "2026-12-02T06:00:00Z"
    assert stats["verdict"] == model["verdict"] == "failed"
    assert stats["hosts"]["mac2"] == {"reachable": True, "errors": 1, "warnings": 1,
                                      "codes": ["gpu_wired_limit_differs", "tb_link_no_reply"]}
    assert stats["hosts"]["mac4"]["errors"] == 1 and not stats["hosts"]["mac4"]["reachable"]
    # The report's errors are the doctor's findings, each once: the wired-limit check's own problem is
    # not derived again from the wired limit the report shows, nor from the failed check.
    assert [(p["code"], p["host"], p["details"]["source"]) for p in model["problems"]] == [
        ("tb_link_no_reply", "mac2", "report"), ("node_unreachable", "mac4", "node"),
        ("gpu_wired_limit_differs", "mac2", "report")]
    # The doctor's section: one line per node, as the run prints them.
    [doctor] = model["sections"]
    assert doctor["operation"] == "doctor" and doctor["summary"][0] == "mac1: healthy"
    assert doctor["summary"][2] == "mac4: NOT SWEPT (unreachable)"
    assert report_of(judge_all({"mac1": healthy_sweep()}))[1]["healthy"] is True


def test_the_report_is_shown_what_the_sweep_read_where_a_roles_result_would_be():
    result = judge(healthy_sweep())
    assert result["gpu"] == {"wired_limit_mb": 507904, "target_mb": 507904}
    assert result["exo"] == {"running": None, "version": None, "detail": ""} and result["rdma"]["ready"] is True
    off = healthy_sweep()
    off["rdma"] = {"enabled": False, "ready": False, "problems": [dict(NO_REPLY, code="rdma_disabled", port=None)]}
    off["wired_limit"]["target_mb"] = None
    assert "rdma" not in judge(off) and "gpu" not in judge(off)
    assert "rdma" in judge(off, rdma_required=True)
