"""One JSON Schema for report.json (docs/report.schema.json, issue 31): every report the renderer writes
validates against it - a cluster that fails, a healthy one, nodes that failed early, no nodes at all,
deployed models, and each operation's section (doctor's sweep, a reboot) built from what the roles
publish; the schema's version is the model's; and a report that breaks the shape is refused."""
import copy
import json

import pytest
from report_schema import assert_valid_report, report_schema, schema_errors

from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import report_files
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import (nodes_from_hostvars,
                                                                                    problems_from_hostvars,
                                                                                    sections_from_hostvars)
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import SCHEMA_VERSION, build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_sections import section, table

from report_fixture import report_inputs
from test_deployed_models import copy_on, four_ranks, with_models
from test_report_model import healthy_inputs

pytest.importorskip("jsonschema")


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


def test_deployed_models_complete_and_incomplete_validate():
    assert_valid_report(json.loads(json.dumps(with_models(four_ranks()))))
    broken = four_ranks()
    broken["mac2"] = [copy_on(1, [6, 12], complete=False, missing=["model-00002-of-00004.safetensors"])]
    model = with_models(broken)
    assert model["problems"] and not model["models"][0]["complete"]
    assert_valid_report(json.loads(json.dumps(model)))


def reboot_result(ok=True, back=True):
    checks = [{"name": "came_back", "ok": back, "detail": "", "code": "" if back else "reboot_node_not_back",
               "severity": "error", "fix": "" if back else "Look at the Mac."}]
    return {"selected": True, "rebooted": True, "back": back, "waited_seconds": 41, "power_cycled": False,
            "boot_session_before": "A", "checks": checks, "ok": ok and back, "rdma": None,
            "gpu": {"wired_limit_mb": 229376, "target_mb": "229376"},
            "problems": [] if back else [{"code": "reboot_node_not_back", "severity": "error", "host": "mac2",
                                          "port": None, "peer": None, "message": "mac2 did not come back after 41 s",
                                          "fix": "Look at the Mac.", "details": {}}]}


def test_a_reboot_report_built_from_what_the_role_published_validates():
    nodes, _topology = healthy_inputs()
    hostvars = dict((host, {"macops_reboot": reboot_result(back=host != "mac2"),
                            "ansible_facts": {"macops_mac": nodes[host]["mac"]}}) for host in nodes)
    hosts = sorted(hostvars)
    run = {"playbook": "reboot-cluster.yml", "mode": "parallel"}
    model = build_report_model(nodes_from_hostvars(hosts, hostvars, hosts), {}, problems_from_hostvars(hosts, hostvars),
                               "Mac cluster reboot", run, sections_from_hostvars(hosts, hostvars, run))
    assert_valid_report(json.loads(json.dumps(model)))
    [reboot] = model["sections"]
    assert reboot["summary"][:2] == ["mac1: OK, back after 41 s", "mac2: FAILED, NOT BACK after 41 s; failed: came_back"]
    assert reboot["data"]["mode"] == "parallel" and reboot["data"]["nodes"]["mac2"]["failed_checks"] == ["came_back"]
    # The role's own problem, once (not derived again from the failed check); mac2 not reachable.
    assert [(p["code"], p["host"]) for p in model["problems"]] == [("node_unreachable", "mac2"),
                                                                   ("reboot_node_not_back", "mac2")]
    by_name = dict((node["name"], node) for node in model["nodes"])
    assert by_name["mac1"]["gpu"] == {"wired_limit_mb": 229376, "target_mb": 229376}
    assert by_name["mac2"]["reachable"] is False


def test_every_operations_section_validates_in_its_envelope():
    nodes, topology = healthy_inputs()
    sections = [section("deploy", "Deploy", ["mac1: 5 files"], [table(["Node", "Files"], [["mac1", 5]], "Transfers")],
                        [{"path": "links.png", "label": "plot"}, {"path": "deploy.json"}],
                        {"name": "tiny", "run_id": None, "source": None, "plan": {"ranks": [], "files": {}},
                         "deployment": None},
                        ["5 files moved."]),
                section("reboot", "Reboot", data={"mode": None, "nodes": {}})]
    model = build_report_model(nodes, topology, sections=sections)
    assert [entry["operation"] for entry in model["sections"]] == ["reboot", "deploy"]
    assert model["sections"][1]["tables"][0]["rows"] == [["mac1", "5"]]
    assert_valid_report(json.loads(json.dumps(model)))
    # The one renderer draws every section: its notes, tables, plots and linked files.
    files, _stale = report_files(model, topology)
    assert '<h2 id="deploy">Deploy</h2><p>5 files moved.</p><h3>Transfers</h3>' in files["index.html"]
    assert '<img src="links.png" alt="plot">' in files["index.html"] and 'href="deploy.json"' in files["index.html"]
    assert "## Deploy\n\n5 files moved.\n\n**Transfers**\n\n| Node | Files |" in files["report.md"]


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
