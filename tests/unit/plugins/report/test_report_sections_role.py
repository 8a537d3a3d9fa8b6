"""roles/report run by ansible-playbook with an operation's inputs, as benchmark.yml and deploy-model.yml
call it: one task writes the one report with the benchmark's and the deployment's sections (report.json
valid against docs/report.schema.json), the benchmark's results document, history and plot beside it;
the published macops_report carries the verdict, the stats and each section's lines; report_write false
writes nothing and still judges."""
import json
import os

import pytest
from report_schema import assert_valid_report

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._model_deployment import deployment

from test_benchmark_report import BASELINES, HOSTS, MACS, PLAN, TESTS
from test_report_role import BIN, run_ansible  # its report_fixture puts tests/unit/plugins/filter on the path
from test_model_deployment import DEST, SOURCE, applied, empty_inventories, placement, volumes  # noqa: E402

PLAYBOOK = """
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


def play(tmp_path, write):
    (tmp_path / "inputs.json").write_text(json.dumps(inputs(write)))
    (tmp_path / "report.yml").write_text(PLAYBOOK)
    result = run_ansible([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "report.yml"],
                         tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads((tmp_path / "published.json").read_text())


def test_the_benchmark_and_the_deployment_are_sections_of_the_one_report(tmp_path):
    pytest.importorskip("matplotlib")
    published = play(tmp_path, True)
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
    published = play(tmp_path, False)
    assert not (tmp_path / "out").exists()
    assert published["stats"]["verdict"] == published["verdict"] and published["files"] == []
    assert published["lines"][0].startswith("Cluster report: not written verdict=")
    assert published["benchmark"]["history_runs"] == 1
