"""From the benchmark role's raw runs to its part of the report (plugins/plugin_utils/_bench_section.py): the loop
results each suite's parser takes, the results document with the run's id and time, the run's files named (and the
history read back past a torn line), and the section a person reads."""
import datetime
import json

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils import _bench_section as bench
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan

from links_fixture import BASELINES, HOSTS, MACS, PLAN, TESTS

NOW = datetime.datetime(2026, 12, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)


def given(**changes):
    return dict({"plan": links_plan(PLAN, HOSTS), "tests": TESTS, "macs": MACS, "baselines": BASELINES,
                 "margin_percent": 15}, **changes)


def test_each_suite_takes_its_loop_results_and_a_task_that_never_started_failed():
    assert bench.command_output({"msg": "unreachable"}) == {"rc": 1, "stdout": "", "stderr": "unreachable"}
    runs = [{"item": ["ring", 1024], "rc": 0, "stdout": "{}", "stderr": ""}, {"item": ["ring", 4096], "skipped": True},
            {"item": ["jaccl", 1024], "rc": 2, "stdout": "", "stderr": "no device"}]
    assert bench.allsum_by_backend(runs) == {
        "ring": [{"rc": 0, "stdout": "{}", "stderr": "", "size": 1024}],
        "jaccl": [{"rc": 2, "stdout": "", "stderr": "no device", "size": 1024}]}
    planned = {"model": "/m", "nodes": 1}
    assert bench.generate_outputs([{"item": planned, "rc": 0, "stdout": "x"}, {"item": "not a run"},
                                   {"item": planned, "skipped": True}]) == [
        (planned, {"rc": 0, "stdout": "x", "stderr": ""})]
    assert bench.suite_input(None, "exo is not installed", {"a": 1}) == {
        "skipped": "exo is not installed", "settings": {"a": 1}}
    assert bench.suite_input({"rc": 0, "stdout": "out"}, None, {}) == {
        "output": {"rc": 0, "stdout": "out", "stderr": ""}, "settings": {}}
    assert bench.suite_input({"skipped": True}, None, {}) is None and bench.suite_input(None, None, {}) is None


def test_the_document_takes_the_run_s_id_and_time_from_now_unless_given():
    document = bench.benchmark_document(given(), HOSTS, NOW)
    assert (document["run"]["id"], document["run"]["finished"]) == ("20261201T120000Z", "2026-12-01T12:00:00Z")
    assert document["margin_percent"] == 15.0 and document["suites"]["links"]["results"]
    named = bench.benchmark_document(given(run={"id": "run-7"}), HOSTS, NOW)
    assert named["run"]["id"] == "run-7" and named["run"]["finished"] == "2026-12-01T12:00:00Z"


@pytest.mark.parametrize("margin", [-1, 100, 250])
def test_a_margin_outside_0_to_100_is_refused(margin):
    with pytest.raises(ValueError, match="margin_percent = %s is refused" % float(margin)):
        bench.benchmark_document(given(margin_percent=margin), HOSTS, NOW)


def test_the_run_s_files_are_named_and_nothing_is_written_when_asked_not_to(tmp_path):
    document = bench.benchmark_document(given(), HOSTS, NOW)
    (tmp_path / "history.jsonl").write_text(json.dumps({"run": "old"}) + "\n{torn\n")
    assert [entry["run"] for entry in bench.read_history(str(tmp_path / "history.jsonl"))] == ["old"]
    assert bench.read_history(str(tmp_path / "none.jsonl")) == []
    images, runs, names = bench.write_benchmark_files(str(tmp_path), document, write=False)
    assert (images, runs, names) == ([], 2, ["benchmark.json", "runs/20261201T120000Z.json", "history.jsonl"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.jsonl"]


def test_the_section_has_the_links_table_the_findings_and_a_skipped_suite_s_reason():
    document = bench.benchmark_document(given(exo_skipped="exo is not installed"), HOSTS, NOW)
    section = bench.benchmark_section(document, [("links.png", "Bandwidth per cable and direction")])
    assert section["operation"] == "benchmark" and section["data"] is document
    assert [t["caption"] for t in section["tables"]] == ["Links (iperf3)"]
    assert list(section["tables"][0]["columns"]) == list(bench.LINK_COLUMNS)
    assert section["summary"][0] == "2 cables in 2 rounds; %d findings" % len(document["problems"])  # both on mac1
    assert "exo (bench/exo_bench.py): skipped: exo is not installed" in section["notes"]
    assert [f["path"] for f in section["files"]] == ["links.png", "benchmark.json", "history.jsonl"]
