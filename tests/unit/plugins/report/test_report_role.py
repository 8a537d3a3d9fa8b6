"""roles/report run by ansible-playbook: check mode, real mode, idempotence, hostfiles, gating."""
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem, problem
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from report_fixture import planner_nodes, report_inputs

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


def run_ansible(args, cwd, extra_env=None):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(cwd / ".tmp"),
               ANSIBLE_HOME=str(cwd / ".ansible"), ANSIBLE_STDOUT_CALLBACK="json",
               ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_NOCOLOR="1", **(extra_env or {}))
    return subprocess.run(args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300)


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
    result = run_ansible([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local",
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

