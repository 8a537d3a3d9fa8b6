"""The report model (plugins/plugin_utils/_report_model.py): verdict rules, partial input, problem merging and
ordering, the devices on Thunderbolt ports; and every report it makes valid against the one schema
(docs/report.schema.json), whose version is the model's, a report that breaks the shape refused."""
import copy
import json

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem, problem as registered_problem
from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import report_files
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import (SCHEMA_VERSION, ReportError,
                                                                                   build_report_model, checked_model,
                                                                                   problem_sort_key, verdict_of)
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown

from report_fixture import HOSTS, healthy_inputs, report_inputs, with_ssd_on_mac1_port6
from report_schema import assert_valid_report, report_schema, schema_errors


def problem(code, severity, host=None, port=None):
    return registered_problem(code, code + " happened", "undo " + code, host=host, port=port, severity=severity)


def test_fixture_cluster_fails_on_the_tb4_cable_and_rdma():
    nodes, topology = report_inputs()
    model = build_report_model(nodes, topology)
    assert model["verdict"] == "failed"
    # The TB4 cable also keeps the planner from writing a jaccl hostfile (a warning: jaccl-ring
    # and ring use the other cables).
    assert model["problem_codes"] == ["mlx_jaccl_unavailable", "rdma_disabled", "tb_link_tb4_speed"]
    assert model["summary"] == {"nodes": 4, "reachable": 4, "rdma_ready": 2, "links": 6,
                                "topology_class": "full_mesh",
                                "problems": {"error": 2, "warning": 1, "info": 0}}
    assert [n["status"] for n in model["nodes"]] == ["ok", "error", "error", "ok"]


def test_slow_cable_seen_by_planner_and_both_macs_is_reported_once():
    nodes, topology = report_inputs()
    # rdma_status on mac2 and mac3 both report the TB4 port; the planner reports the cable
    assert [p["code"] for n in ("mac2", "mac3") for p in nodes[n]["rdma"]["problems"]].count("tb_link_tb4_speed") == 2
    model = build_report_model(nodes, topology)
    slow = [p for p in model["problems"] if p["code"] == "tb_link_tb4_speed"]
    assert len(slow) == 1 and slow[0]["details"] == {"link_id": "mac2:en4--mac3:en4", "source": "topology"}
    tb4_link = [l for l in model["topology"]["links"] if l["id"] == "mac2:en4--mac3:en4"][0]
    assert tb4_link["problem_codes"] == ["tb_link_tb4_speed"] and tb4_link["severity"] == "error"
    assert tb4_link["speed_gbps"] == 40 and tb4_link["a"]["port"] == "en4 (port 3)"


@pytest.mark.parametrize("extra, verdict", [
    ([], "healthy"),
    ([problem("tb_address_renumbered", "info", "mac1")], "healthy"),
    ([problem("tb_duplicate_cable", "warning", "mac1")], "degraded"),
    ([problem("tb_duplicate_cable", "warning"), problem("tb_loopback_cable", "error", "mac4")], "failed"),
    # Not a problem (an unknown severity): an error of its own, never silence.
    ([dict(problem("tb_duplicate_cable", "warning", "mac1"), severity="catastrophic")], "failed"),
])
def test_verdict_follows_the_worst_severity(extra, verdict):
    nodes, topology = healthy_inputs()
    model = build_report_model(nodes, topology, extra)
    assert model["verdict"] == verdict


def test_no_nodes_is_a_failed_report_not_a_healthy_one():
    model = build_report_model({}, {})
    assert model["verdict"] == "failed" and model["problem_codes"] == ["report_no_nodes"]
    assert verdict_of([], 0) == "failed" and verdict_of([], 3) == "healthy"


def test_problems_sorted_by_severity_then_cluster_wide_then_natural_host_order():
    nodes, topology = healthy_inputs()
    extra = [problem("tb_address_renumbered", "info", "mac1"), problem("tb_duplicate_cable", "warning", "mac10"),
             problem("tb_peer_unknown", "warning", "mac2", "en3"), problem("disk_space_low", "error", "mac3"),
             problem("mlx_jaccl_unavailable", "warning"), problem("mlx_no_control_ip", "error")]
    model = build_report_model(nodes, topology, extra)
    assert [(p["code"], p["host"]) for p in model["problems"]] == [
        ("mlx_no_control_ip", None), ("disk_space_low", "mac3"), ("mlx_jaccl_unavailable", None),
        ("tb_peer_unknown", "mac2"), ("tb_duplicate_cable", "mac10"), ("tb_address_renumbered", "mac1")]
    assert sorted(model["problems"], key=problem_sort_key) == model["problems"]


def test_node_that_failed_early_shows_not_checked_and_never_crashes():
    nodes, topology = healthy_inputs()
    nodes["mac2"] = {"reachable": False}
    nodes["mac4"] = {}
    nodes["mac5"] = {"software": None, "services": "garbage", "checks": "garbage", "rdma": []}
    model = build_report_model(nodes, topology)
    by_name = dict((n["name"], n) for n in model["nodes"])
    assert list(by_name) == ["mac1", "mac2", "mac3", "mac4", "mac5"]
    # mac2 and mac4 are still in the plan, so their hardware comes from the planner's summary
    assert by_name["mac2"]["hardware"]["model_name"] == "Mac Studio"
    assert by_name["mac2"]["hardware"]["memory_gb"] is None
    assert by_name["mac2"]["status"] == "error" and by_name["mac2"]["rdma"] is None
    assert by_name["mac4"]["software"] is None and by_name["mac4"]["services"] is None
    assert by_name["mac5"]["hardware"] is None and by_name["mac5"]["status"] == "warning"
    codes = [(p["code"], p["host"]) for p in model["problems"]]
    assert ("node_unreachable", "mac2") in codes and ("node_facts_missing", "mac5") in codes
    assert model["verdict"] == "failed"
    json.dumps(model)


def test_failed_checks_stopped_services_gpu_drift_and_version_skew_become_problems():
    nodes, topology = healthy_inputs()
    nodes["mac1"]["checks"].append({"name": "all_sum smoke", "ok": False, "detail": "timeout after 30 s"})
    nodes["mac2"]["checks"].append({"name": "exo state", "ok": False, "severity": "warning",
                                    "code": "reboot_exo_unhealthy", "fix": "Toggle Local Network for exo."})
    nodes["mac3"]["services"]["exo"] = {"running": False, "pid": None, "detail": "exited 78"}
    nodes["mac4"]["gpu"] = {"wired_limit_mb": 393216, "target_mb": 471859}
    nodes["mac4"]["software"]["mlx"] = "0.29.0"
    model = build_report_model(nodes, topology)
    found = dict((p["code"], p) for p in model["problems"])
    assert found["check_failed"]["severity"] == "error" and "timeout after 30 s" in found["check_failed"]["message"]
    assert found["reboot_exo_unhealthy"]["fix"] == "Toggle Local Network for exo."
    assert found["reboot_exo_unhealthy"]["severity"] == "warning" and found["reboot_exo_unhealthy"]["host"] == "mac2"
    assert found["service_not_running"]["host"] == "mac3" and "exited 78" in found["service_not_running"]["message"]
    assert "iogpu.wired_limit_mb=471859" in found["gpu_wired_limit_differs"]["fix"]
    skew = found["software_version_mismatch"]
    assert skew["host"] == "mac4" and "mlx 0.30.3" in skew["fix"]
    assert model["verdict"] == "failed"


def test_version_tie_goes_to_the_newer_version():
    nodes, topology = healthy_inputs()
    nodes["mac1"]["software"]["exo"] = nodes["mac2"]["software"]["exo"] = "1.0.10"
    nodes["mac3"]["software"]["exo"] = nodes["mac4"]["software"]["exo"] = "1.0.9"
    model = build_report_model(nodes, topology)
    skewed = sorted(p["host"] for p in model["problems"] if p["code"] == "software_version_mismatch")
    assert skewed == ["mac3", "mac4"]


def test_missing_pairs_and_hostfiles_follow_the_plan():
    nodes, topology = report_inputs()
    topology = copy.deepcopy(topology)
    topology["links"] = [l for l in topology["links"] if l["id"] != "mac1:en3--mac2:en3"]
    topology["hostfiles"]["jaccl"] = None
    model = build_report_model(nodes, topology)
    assert model["topology"]["missing_pairs"] == [["mac1", "mac2"]]
    assert model["topology"]["hostfiles"]["jaccl"] == {"available": False, "path": None, "hosts": [],
                                                       "hostfile": None}
    assert model["topology"]["hostfiles"]["ring"]["path"] == "hostfiles/ring.json"


def test_run_info_changes_only_the_run_section_and_not_the_fingerprint():
    nodes, topology = report_inputs()
    first = build_report_model(nodes, topology, run={"started": "2026-11-30T10:00:00Z"})
    second = build_report_model(copy.deepcopy(nodes), copy.deepcopy(topology), run={"started": "2026-11-30T11:00:00Z"})
    assert first["fingerprint"] == second["fingerprint"]
    assert dict(first, run=None) == dict(second, run=None)
    nodes["mac1"]["software"]["exo"] = "1.0.4"
    assert build_report_model(nodes, topology)["fingerprint"] != first["fingerprint"]


def test_same_input_in_another_order_gives_the_same_model():
    nodes, topology = report_inputs()
    shuffled = dict((name, nodes[name]) for name in reversed(HOSTS))
    topology_shuffled = copy.deepcopy(topology)
    topology_shuffled["problems"].reverse()
    assert json.dumps(build_report_model(nodes, topology), sort_keys=True) == \
        json.dumps(build_report_model(shuffled, topology_shuffled), sort_keys=True)


def test_checked_model_rejects_anything_else():
    nodes, topology = report_inputs()
    assert checked_model(build_report_model(nodes, topology))["schema_version"] == SCHEMA_VERSION
    for bad in (None, topology, {"schema_version": 99, "topology": {}, "nodes": []}):
        with pytest.raises(ReportError, match="expected the report model"):
            checked_model(bad)


def test_failed_check_a_role_reported_as_a_problem_is_reported_once():
    nodes, topology = healthy_inputs()
    nodes["mac2"]["checks"] = [{"name": "macos_build", "ok": False, "detail": "build 25C57", "code": "macos_build_mismatch"},
                               {"name": "disk", "ok": False, "detail": "full"}]
    extra = [problem("macos_build_mismatch", "error", host="mac2")]
    model = build_report_model(nodes, topology, extra)
    codes = [(p["code"], p["host"], p["details"]["source"]) for p in model["problems"]]
    assert ("macos_build_mismatch", "mac2", "report") in codes
    assert ("macos_build_mismatch", "mac2", "check") not in codes
    assert ("check_failed", "mac2", "check") in codes  # a check nobody explained keeps its own entry


def test_a_problem_the_report_derives_that_a_role_reported_itself_is_reported_once():
    nodes, topology = healthy_inputs()
    nodes["mac2"]["gpu"] = {"wired_limit_mb": 0, "target_mb": 507904}
    nodes["mac3"]["gpu"] = {"wired_limit_mb": 1, "target_mb": 507904}
    extra = [problem("gpu_wired_limit_differs", "warning", host="mac2")]
    codes = [(p["code"], p["host"], p["details"]["source"]) for p in build_report_model(nodes, topology, extra)["problems"]]
    assert codes.count(("gpu_wired_limit_differs", "mac2", "report")) == 1
    assert ("gpu_wired_limit_differs", "mac2", "node") not in codes
    assert ("gpu_wired_limit_differs", "mac3", "node") in codes  # nobody else reported it: the report's own


def test_every_problem_of_the_model_is_in_the_one_shape():
    nodes, topology = report_inputs()
    nodes["mac1"]["checks"].append({"name": "all_sum smoke", "ok": False, "detail": "timeout"})
    model = build_report_model(nodes, topology, [problem("tb_bridge_returned", "warning", "mac4", "bridge0")])
    assert model["problems"] and all(is_problem(p) for p in model["problems"])
    # rdma_status names no host: the report gives its problems the node they came from
    assert ("rdma_disabled", "mac3") in [(p["code"], p["host"]) for p in model["problems"]]


@pytest.mark.parametrize("arrived, reason", [
    ({"code": "rdma_disabled", "severity": "error", "msg": "old shape", "fix": "x"}, "missing details, host"),
    (dict(problem("tb_duplicate_cable", "warning", "mac1"), code="made_up_code"), "'made_up_code' is not in"),
    (dict(problem("tb_duplicate_cable", "warning", "mac1"), peer_host="mac2"), "extra peer_host"),
    ("a plain string", "a str, not a dict"),
    (dict(problem("tb_duplicate_cable", "warning", "mac1"), details="a--b"), "details is a str, not a dict"),
    (dict(problem("tb_duplicate_cable", "warning", "mac1"), message="", port=3),
     "message is not a non-empty string; port is a int, not a string or null"),
])
def test_anything_but_a_registered_problem_is_reported_as_problem_unregistered(arrived, reason):
    nodes, topology = healthy_inputs()
    model = build_report_model(nodes, topology, [copy.deepcopy(arrived)])
    (found,) = [p for p in model["problems"] if p["code"] == "problem_unregistered"]
    assert is_problem(found) and found["severity"] == "error" and model["verdict"] == "failed"
    assert reason in found["message"] and found["details"]["received"] == arrived
    assert found["details"]["source"] == "report"


def test_unregistered_findings_from_the_planner_rdma_and_checks_are_not_dropped():
    nodes, topology = healthy_inputs()
    topology["problems"] = [{"code": "tb_something", "severity": "error", "message": "m", "fix": "f"}]
    nodes["mac2"]["rdma"]["problems"] = [dict(problem("rdma_port_down", "error", port="en3"), code="rdma_gone")]
    nodes["mac3"]["checks"].append({"name": "odd", "ok": False, "code": "not_a_code", "detail": "x"})
    nodes["mac4"]["checks"].append({"name": "odd severity", "ok": False, "severity": "fatal", "detail": "y"})
    model = build_report_model(nodes, topology)
    unregistered = [p for p in model["problems"] if p["code"] == "problem_unregistered"]
    assert sorted((p["host"] or "", p["details"]["source"]) for p in unregistered) == [
        ("", "topology"), ("mac2", "rdma"), ("mac3", "check"), ("mac4", "check")]
    assert any("'tb_something'" in p["fix"] for p in unregistered)
    assert any("not_a_code" in p["message"] for p in unregistered)
    assert any("fatal" in p["message"] for p in unregistered)


def test_accepting_a_problem_does_not_change_the_caller_s_copy():
    nodes, topology = report_inputs()
    before = copy.deepcopy((nodes, topology))
    build_report_model(nodes, topology)
    assert (nodes, topology) == before


def test_an_rdma_problem_on_a_planned_port_gets_its_cable_and_peer_from_the_plan():
    nodes, topology = healthy_inputs()
    nodes["mac1"]["rdma"]["problems"] = [registered_problem("rdma_port_down", "rdma_en3 is DOWN", port="en3")]
    model = build_report_model(nodes, topology)
    (down,) = [p for p in model["problems"] if p["code"] == "rdma_port_down"]
    assert (down["host"], down["port"], down["peer"]) == ("mac1", "en3", "mac2")
    assert down["details"] == {"source": "rdma", "link_id": "mac1:en3--mac2:en3"}
    assert nodes["mac1"]["rdma"]["problems"][0]["details"] == {}


def test_a_nodes_problem_the_report_ties_to_its_cable_is_listed_once_when_its_untied_copy_arrives_too():
    # doctor.yml hands the report the node's RDMA read and its own copy of the same problem.
    nodes, topology = healthy_inputs()
    down = registered_problem("rdma_port_down", "rdma_en3 is DOWN", host="mac1", port="en3")
    nodes["mac1"]["rdma"]["problems"] = [dict(down, host=None)]
    model = build_report_model(nodes, topology, [down])
    (listed,) = [p for p in model["problems"] if p["code"] == "rdma_port_down"]
    assert (listed["peer"], listed["details"]["link_id"]) == ("mac2", "mac1:en3--mac2:en3")
    # Another port's problem is not a copy.
    model = build_report_model(nodes, topology, [dict(down, port="en4")])
    assert len([p for p in model["problems"] if p["code"] == "rdma_port_down"]) == 2


def written(model, topology):
    """report.json as the cluster_report action writes it, read back."""
    files, _stale = report_files(model, topology)
    return json.loads(files["report.json"])


def test_the_schema_is_the_models_version():
    schema = report_schema()
    assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}
    assert schema["$id"].endswith("/report/%d" % SCHEMA_VERSION)


def test_a_failing_cluster_and_a_healthy_one_validate():
    nodes, topology = report_inputs()
    model = build_report_model(nodes, topology, [], "Mac cluster health", {"playbook": "site.yml"})
    assert model["verdict"] == "failed" and model["topology"]["links"]
    assert_valid_report(written(model, topology))
    nodes, topology = healthy_inputs()
    model = build_report_model(nodes, topology)
    assert model["verdict"] == "healthy"
    assert_valid_report(written(model, topology))


def test_nodes_that_failed_early_and_no_nodes_validate():
    nodes, topology = healthy_inputs()
    nodes["mac2"] = {"reachable": False}
    nodes["mac4"] = {}
    nodes["mac5"] = {"software": None, "services": "garbage", "checks": "garbage", "rdma": []}
    assert_valid_report(written(build_report_model(nodes, topology), topology))
    empty = build_report_model({}, {})
    assert empty["verdict"] == "failed" and empty["topology"]["planned"] is False
    assert_valid_report(written(empty, {}))


@pytest.mark.parametrize("break_it, where", [
    (lambda r: r.pop("sections"), "(top)"),
    (lambda r: r.update(verdict="fine"), "verdict"),
    (lambda r: r.update(schema_version=2), "schema_version"),
    (lambda r: r["problems"][0].pop("fix"), "problems/0"),
    (lambda r: r["problems"][0].update(severity="fatal"), "problems/0/severity"),
    (lambda r: r["nodes"][0].update(reachable="yes"), "nodes/0/reachable"),
    (lambda r: r["sections"].append({"operation": "reboot", "title": "Reboot", "summary": [], "files": [], "notes": [],
                                     "tables": [], "data": {"nodes": {"mac1": {}}}}),
     "sections/0/data"),
    (lambda r: r.update(extra=1), "(top)"),
])
def test_a_report_that_breaks_the_shape_is_refused(break_it, where):
    nodes, topology = report_inputs()
    report = json.loads(json.dumps(build_report_model(nodes, topology)))
    assert schema_errors(report) == []
    broken = copy.deepcopy(report)
    break_it(broken)
    errors = schema_errors(broken)
    assert errors and any(error.startswith(where) for error in errors), errors


def test_the_drive_is_listed_on_its_port_and_is_no_cable_and_no_peer():
    nodes, topology = with_ssd_on_mac1_port6()
    model = build_report_model(nodes, topology)
    mac1 = next(n for n in model["nodes"] if n["name"] == "mac1")
    assert mac1["thunderbolt"]["devices"] == [{
        "receptacle": 6, "interface": "en7", "port": "en7 (port 6)", "name": "Envoy Ultra",
        "vendor": "Other World Computing", "mode": "usb_four_v2", "speed": "80 Gb/s", "upstream": None,
        "description": "Envoy Ultra (Other World Computing)"}]
    assert model["summary"]["links"] == 6
    assert not any("Envoy" in p["message"] for p in model["problems"])
    assert not [p for p in model["problems"] if p["code"] == "tb_peer_unknown"]
    html, markdown = render_html(model), render_markdown(model)
    assert "<h2 id=\"devices\">Thunderbolt devices (not Macs)</h2>" in html
    assert "<td><b>mac1</b></td><td>en7 (port 6)</td><td>Envoy Ultra (Other World Computing)</td>" \
           "<td>usb_four_v2, 80 Gb/s</td>" in html
    assert "| mac1 | en7 (port 6) | Envoy Ultra (Other World Computing) | usb\\_four\\_v2, 80 Gb/s |" in markdown
