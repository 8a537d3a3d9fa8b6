"""The exo suite: exo_bench's JSON (fixtures built from exo's source, see their README) turned into one
result per placement and size, failures and prefix-cache hits as problems, a skipped suite with its
reason, all in a document valid against the schema and shown in the report."""
import json
import os

import pytest
from report_schema import benchmark_schema

from benchmark_pages import benchmark_pages

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_section import benchmark_section
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_exo import (
    ExoBenchError,
    exo_results,
    parse_exo_bench,
)
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import build_document

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
HOSTS = ["mac1", "mac2", "mac3", "mac4"]


def test_every_row_is_flattened_with_its_placement_and_speeds():
    parsed = parse_exo_bench(read_fixture("exo_bench/two_placements.json"))
    assert parsed["nodes_in_cluster"] == 4 and len(parsed["rows"]) == 4
    first = parsed["rows"][0]
    assert (first["model"], first["sharding"], first["instance_meta"], first["nodes"]) == (
        "mlx-community/Qwen3.5-27B-4bit", "pipeline", "ring", 2)
    assert (first["pp_tokens"], first["tg"], first["repeat"]) == (512, 128, 0)
    assert first["prompt_tps"] == 912.4 and first["peak_memory_gb"] == pytest.approx(16.123, abs=1e-3)


def test_repeats_make_one_result_per_placement_and_a_prefix_cache_hit_is_a_warning():
    output = {"rc": 0, "stdout": read_fixture("exo_bench/two_placements.json"), "stderr": ""}
    results, problems = exo_results(output, "mac1")
    assert [(r["sharding"], r["instance_meta"], r["nodes"]) for r in results] == [("pipeline", "ring", 2),
                                                                                   ("tensor", "jaccl", 4)]
    assert results[0]["prompt_tps"] == pytest.approx(921.2) and results[0]["generation_tps"] == pytest.approx(31.4)
    assert len(results[1]["repeats"]) == 2 and results[1]["prefix_cache_hits"] == ["partial"]
    (warning,) = problems
    assert warning["code"] == "bench_exo_prefix_cache" and warning["severity"] == "warning"
    assert "tensor/jaccl on 4 nodes" in warning["message"]


@pytest.mark.parametrize("output, words", [
    ({"rc": 0, "stdout": read_fixture("exo_bench/no_placement.json"), "stderr": "ERROR | no valid placements"},
     "measured no placement (rc 0): ERROR | no valid placements"),
    ({"rc": 2, "stdout": "", "stderr": "error: Failed to spawn: `python`"}, "printed no JSON document"),
    ({"rc": 0, "stdout": '{"cluster": {}}', "stderr": ""}, "has no `runs` list"),
])
def test_a_run_that_measured_nothing_is_an_error_with_exo_benchs_last_words(output, words):
    results, problems = exo_results(output, "mac1")
    assert results == [] and [p["code"] for p in problems] == ["bench_exo_failed"]
    assert words in problems[0]["message"] and problems[0]["host"] == "mac1"


def test_output_that_is_not_exo_benchs_is_refused_by_the_parser():
    with pytest.raises(ExoBenchError):
        parse_exo_bench("[1, 2]")


def document(exo):
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "playbook": "benchmark.yml",
           "suites": ["exo"]}
    return build_document(run, HOSTS, links_plan({}, HOSTS, 1), [], {}, {}, 15.0, {}, {}, "tb5", exo=exo)


def test_the_suite_in_the_document_valid_against_the_schema_and_in_the_report():
    jsonschema = pytest.importorskip("jsonschema")
    schema = benchmark_schema()
    ran = document({"output": {"rc": 0, "stdout": read_fixture("exo_bench/two_placements.json"), "stderr": ""},
                    "settings": {"model": "mlx-community/Qwen3.5-27B-4bit", "use_prefix_cache": False}})
    jsonschema.validate(json.loads(json.dumps(ran)), schema)
    assert {m["name"] for m in ran["measurements"]} == {"exo_prompt_tps", "exo_generation_tps"}
    assert ran["suites"]["exo"]["skipped"] is None and len(ran["suites"]["exo"]["results"]) == 2
    page = benchmark_pages(None, ran, [])[1]
    assert "<h3>exo (bench/exo_bench.py)</h3>" in page and page.count("<tr") >= 3
    reason = "exo's bench/exo_bench.py is not at /opt/macops/exo/bench/exo_bench.py on mac1"
    skipped = document({"skipped": reason, "settings": {}})
    jsonschema.validate(json.loads(json.dumps(skipped)), schema)
    assert skipped["suites"]["exo"] == {"settings": {}, "skipped": reason, "results": []}
    assert skipped["problems"] == [] and "exo (bench/exo_bench.py): skipped: " + reason in benchmark_section(skipped)["notes"]
    assert "<h3>exo (bench/exo_bench.py)</h3>" not in benchmark_pages(None, skipped, [])[1]
