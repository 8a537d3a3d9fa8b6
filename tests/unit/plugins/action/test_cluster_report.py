"""The cluster_report action (plugins/action/cluster_report.py), through roles/report run by ansible-playbook: check
mode, real mode, idempotence, hostfiles, gating; and with an operation's inputs, as benchmark.yml and
deploy-model.yml call it: one task writes the one report with the benchmark's and the deployment's sections, the
benchmark's results document, history and plot beside it; report_write false writes nothing and still judges."""
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem, problem
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json
from ansible_collections.macops.cluster.plugins.plugin_utils._model_deployment import deployment
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from ansible_cli import run_in_project
from deployment_fixture import DEST, SOURCE, applied, empty_inventories, placement, volumes
from links_fixture import BASELINES, HOSTS, MACS, PLAN, TESTS
from report_fixture import planner_nodes, report_inputs
from report_schema import assert_valid_report

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
# No jaccl.json: the fixture's TB4 cable has an error, and jaccl needs every pair's cable.
REPORT_FILES = ["cabling.svg", "index.html", "report.json", "report.md",
                "hostfiles/jaccl-ring.json", "hostfiles/ring.json"]

PLAYBOOK = """
- name: Report on the fixture cluster
  hosts: localhost
  gather_facts: false
  vars_files: [inputs.json]
  roles:
    - role: macops.cluster.report
      vars:
        report_nodes: "{{ fixture_report_nodes }}"
        # the real planner, called the way site.yml calls it
        report_topology: "{{ fixture_planner_nodes | macops.cluster.thunderbolt_topology }}"
        report_problems: "{{ fixture_problems }}"
        report_dir: out/report
        report_run: {playbook: site.yml, ansible_version: "2.21"}
"""


@pytest.fixture
def project(tmp_path):
    nodes, _ = report_inputs()
    problems = [problem("reboot_exo_unhealthy", "exo /state on mac1 sees 3 of 4 nodes.",
                        "Toggle Local Network for exo on mac1.", host="mac1", severity="warning")]
    (tmp_path / "inputs.json").write_text(json.dumps({"fixture_report_nodes": nodes,
                                                      "fixture_planner_nodes": planner_nodes(),
                                                      "fixture_problems": problems}))
    (tmp_path / "report.yml").write_text(PLAYBOOK)
    return tmp_path


def play(project, *options):
    result = run_in_project([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local",
                          "report.yml"] + list(options), project)
    output = json.loads(result.stdout) if result.stdout.startswith("{") else None
    return result, output


def final_message(output):
    for task in output["plays"][0]["tasks"]:
        if task["task"]["name"].endswith("Show where the report is and what is wrong"):
            return task["hosts"]["localhost"]["msg"][0]
    raise AssertionError("no final message")


def test_role_check_mode_real_mode_and_idempotence(project):
    report_dir = project / "out" / "report"

    result, output = play(project, "--check")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert output["stats"]["localhost"]["changed"] > 0
    assert not report_dir.exists()
    assert "check mode: not written" in final_message(output)

    result, output = play(project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert output["stats"]["localhost"]["changed"] > 0
    # relative report_dir resolves against the directory ansible-playbook runs in
    assert final_message(output).startswith("Cluster report: %s/index.html verdict=failed" % report_dir)
    lines = [t for t in output["plays"][0]["tasks"] if t["task"]["name"].endswith("what is wrong")][0]
    problem_lines = lines["hosts"]["localhost"]["msg"][1:]
    assert len(problem_lines) == 4 and any(line.startswith("WARNING mac1: exo /state on mac1 sees 3 of 4 nodes.")
                                           and line.endswith("Fix: Toggle Local Network for exo on mac1.")
                                           for line in problem_lines), problem_lines
    written = sorted(str(p.relative_to(report_dir)) for p in report_dir.rglob("*") if p.is_file()
                     and p.parts[len(report_dir.parts)] != "history")
    # The run's own copy beside the latest (report_keep): report.json, report.md and index.html under history/TIME/.
    [run] = os.listdir(str(report_dir / "history"))
    assert sorted(os.listdir(str(report_dir / "history" / run))) == ["index.html", "report.json", "report.md"]
    expected = list(REPORT_FILES)
    if "graphviz version" in subprocess.run(["sh", "-c", "dot -V 2>&1 || true"], capture_output=True,
                                            text=True).stdout:
        expected.append("cabling-graphviz.svg")
    assert written == sorted(expected)

    report = json.loads((report_dir / "report.json").read_text())
    assert report["schema_version"] == 3 and report["verdict"] == "failed"
    assert report["problem_codes"] == ["mlx_jaccl_unavailable", "rdma_disabled", "reboot_exo_unhealthy",
                                       "tb_link_tb4_speed"]
    assert all(is_problem(p) for p in report["problems"])
    assert report["run"] == {"ansible_version": "2.21", "playbook": "site.yml"}
    topology = build_topology(planner_nodes())
    for backend in ("ring", "jaccl-ring"):
        assert (report_dir / "hostfiles" / (backend + ".json")).read_text() == hostfile_json(topology, backend)
    html = (report_dir / "index.html").read_text()
    assert "Toggle Local Network for exo on mac1." in html and "<svg" in html
    assert ("cabling-graphviz.svg" in html) == ("cabling-graphviz.svg" in expected)

    result, output = play(project)
    assert result.returncode == 0 and output["stats"]["localhost"]["changed"] == 0
    assert len(os.listdir(str(report_dir / "history"))) == 2  # history, never a change
    result, output = play(project, "--check")
    assert result.returncode == 0 and output["stats"]["localhost"]["changed"] == 0


def test_role_gates_on_the_verdict_after_writing(project):
    result, output = play(project, "-e", '{"report_fail_on": ["failed"]}')
    assert result.returncode != 0
    failures = [t for t in output["plays"][0]["tasks"] if t["hosts"]["localhost"].get("failed")]
    assert [t["task"]["name"] for t in failures] == [
        "macops.cluster.report : Write the JSON, HTML and Markdown report and the hostfiles on the controller"]
    assert "rdma_disabled" in failures[0]["hosts"]["localhost"]["msg"]
    # written first, then failed: CI gets the report that explains the failure
    assert (project / "out" / "report" / "index.html").exists()
    assert failures[0]["hosts"]["localhost"]["changed_files"]


def test_check_diff_shows_what_a_real_run_would_change(project):
    assert play(project)[0].returncode == 0
    inputs = json.loads((project / "inputs.json").read_text())
    inputs["fixture_problems"][0]["fix"] = "Restart exo on mac1."
    (project / "inputs.json").write_text(json.dumps(inputs))
    before = (project / "out" / "report" / "report.json").read_text()
    result, output = play(project, "--check", "--diff")
    assert result.returncode == 0, result.stdout[-3000:]
    write = output["plays"][0]["tasks"][1]["hosts"]["localhost"]
    assert write["changed"] and write["changed_files"] == ["index.html", "report.json", "report.md"]
    diff = [d for d in write["diff"] if d.get("after_header", "").endswith("report.json")][0]
    assert "Restart exo on mac1." in diff["after"] and "Restart exo on mac1." not in diff["before"]
    assert (project / "out" / "report" / "report.json").read_text() == before  # check mode wrote nothing


def test_role_drops_hostfiles_the_cabling_no_longer_allows(project):
    assert play(project)[0].returncode == 0
    nodes = planner_nodes()
    # unplug mac1-mac2: no full mesh any more, so no jaccl hostfile; and every cycle through mac2
    # now needs the TB4 mac2-mac3 cable, so no jaccl-ring either (ring, over TCP, may use it)
    for host, receptacle in (("mac1", 2), ("mac2", 2)):
        port = [p for p in nodes[host]["mac"]["thunderbolt_ports"] if p["receptacle"] == receptacle][0]
        port.update({"connected": False, "peer": None, "speed_gbps": None, "link": "down"})
    inputs = json.loads((project / "inputs.json").read_text())
    inputs["fixture_planner_nodes"] = nodes
    (project / "inputs.json").write_text(json.dumps(inputs))
    result, _ = play(project)
    assert result.returncode == 0, result.stdout[-3000:]
    hostfiles = sorted(p.name for p in (project / "out" / "report" / "hostfiles").iterdir())
    assert hostfiles == ["ring.json"]


OPERATIONS_PLAYBOOK = """
- name: Report a benchmark and a deployment
  hosts: localhost
  gather_facts: false
  vars_files: [inputs.json]
  tasks:
    - name: Write the report
      ansible.builtin.include_role:
        name: macops.cluster.report
      vars:
        report_hosts: "{{ fixture_hosts }}"
        report_dir: out/report
        report_write: "{{ fixture_write }}"
        report_run: {playbook: benchmark.yml}
        report_benchmark: "{{ fixture_benchmark }}"
        report_deploy: "{{ fixture_deploy }}"

    - name: Keep what the report published
      ansible.builtin.copy:
        content: "{{ macops_report | to_json }}"
        dest: "{{ playbook_dir }}/published.json"
        mode: "0644"
"""


def inputs(write):
    plan = placement()
    ranked = dict(plan, ranks=[dict(r, layers=[12 - 4 * r["rank"], 16 - 4 * r["rank"]], layer_count=4, disk_bytes=1,
                                    weight_bytes=1, kv_reserve_bytes=1, need_bytes=1, wired_limit_bytes=2,
                                    wired_limit_source="iogpu.wired_limit_mb", headroom_bytes=1)
                               for r in plan["ranks"]])
    moved = deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), applied(), 0, "/")
    return {"fixture_hosts": HOSTS, "fixture_write": write,
            "fixture_benchmark": {"plan": links_plan(PLAN, HOSTS), "tests": TESTS, "macs": MACS,
                                  "baselines": BASELINES, "margin_percent": 15,
                                  "run": {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z"}},
            "fixture_deploy": {"name": "m", "run_id": "run-1", "plan": ranked, "model": {"path": SOURCE},
                               "deployment": moved, "transfers": {"mac2": {"received": [{}], "bytes_received": 5,
                                                                           "seconds": 1.0}}}}


def play_operations(tmp_path, write):
    (tmp_path / "inputs.json").write_text(json.dumps(inputs(write)))
    (tmp_path / "report.yml").write_text(OPERATIONS_PLAYBOOK)
    result = run_in_project([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "report.yml"],
                         tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads((tmp_path / "published.json").read_text())


def test_the_benchmark_and_the_deployment_are_sections_of_the_one_report(tmp_path):
    pytest.importorskip("matplotlib")
    published = play_operations(tmp_path, True)
    out = tmp_path / "out" / "report"
    report = json.loads((out / "report.json").read_text())
    assert_valid_report(report)
    assert [entry["operation"] for entry in report["sections"]] == ["deploy", "benchmark"]
    document = json.loads((out / "benchmark.json").read_text())
    assert report["sections"][1]["data"] == document and (out / "runs" / "20261201T120000Z.json").exists()
    assert len((out / "history.jsonl").read_text().splitlines()) == 1 and (out / "links.png").stat().st_size > 5000
    # The benchmark's findings are the report's problems, and its verdict; the stats count them once.
    slow = [p for p in report["problems"] if p["code"] == "bench_link_below_baseline"]
    assert slow and [p["message"] for p in slow] == [p["message"] for p in document["problems"]]
    assert published["stats"]["verdict"] == report["verdict"] != "healthy"
    assert published["benchmark"]["problems"] == document["problems"]
    assert published["section_lines"]["benchmark"][0].endswith("findings")
    assert published["section_data"]["deploy"]["deployment"]["nodes"]["mac2"]["bytes_received"] == 5
    page = (out / "index.html").read_text()
    assert '<img src="links.png"' in page and "<h3>Placement</h3>" in page and "<h3>Links (iperf3)</h3>" in page


def test_report_write_false_judges_and_writes_nothing(tmp_path):
    published = play_operations(tmp_path, False)
    assert not (tmp_path / "out").exists()
    assert published["stats"]["verdict"] == published["verdict"] and published["files"] == []
    assert published["lines"][0].startswith("Cluster report: not written verdict=")
    assert published["benchmark"]["history_runs"] == 1
