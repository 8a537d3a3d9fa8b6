"""The hpl suite (plugins/plugin_utils/_bench_hpl.py): N sized from the smallest node's memory, the grid over
every rank, HPL.dat as xhpl reads it, and xhpl's report parsed from real captures (Debian's hpcc, see the
fixtures' README)."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_hpl import (HplError, grid, hpl_dat, hpl_plan,
                                                                                hpl_results, parse_hpl, problem_size)

from fixture_files import read_fixture
from hpl_fixture import GIB, MACS
from report_schema import benchmark_schema


@pytest.mark.parametrize("ranks, expected", [(1, (1, 1)), (4, (2, 2)), (6, (2, 3)), (48, (6, 8)), (7, (1, 7)),
                                              (96, (8, 12))])
def test_the_grid_is_as_square_as_it_goes_and_never_taller_than_wide(ranks, expected):
    assert grid(ranks) == expected


def test_n_fills_the_share_of_memory_the_smallest_node_bounds():
    plan = hpl_plan(["mac1", "mac2"], MACS, fraction=0.75, nb=256)
    # sqrt(0.75 * 256 GiB * 2 / 8) = 227,023, rounded down to a multiple of 256.
    assert plan["n"] == 226816 and plan["n"] % 256 == 0 and plan["n"] == problem_size(256 * GIB, 2, 0.75, 256)
    assert plan["matrix_bytes"] <= 0.75 * 256 * GIB * 2
    assert (plan["slots"], plan["ranks"], plan["p"], plan["q"]) == (24, 48, 6, 8)
    fixed = hpl_plan(["mac1", "mac2"], MACS, nb=192, ranks_per_node=2, n=20000)
    assert (fixed["n"], fixed["ranks"], fixed["p"], fixed["q"], fixed["memory_bytes_per_node"]) == (20000, 4, 2, 2, None)


def test_a_node_without_memory_or_cores_in_its_facts_is_refused_with_the_fix():
    with pytest.raises(HplError, match="lack the memory of mac3: give benchmark_hpl_n"):
        hpl_plan(["mac1", "mac3"], MACS)
    with pytest.raises(HplError, match="give benchmark_hpl_ranks_per_node"):
        hpl_plan(["mac1"], {"mac1": {"memory_bytes": GIB}})


def test_hpl_dat_has_hpls_31_lines_with_the_plans_sizes_in_place():
    lines = hpl_dat({"n": 207872, "nb": 256, "p": 6, "q": 8}).splitlines()
    assert len(lines) == 31 and lines[0] == "HPLinpack benchmark input file"
    values = [line.split()[0] for line in lines[2:]]
    # HPL reads each value from the start of its line: device out, one N, one NB, one grid.
    assert (values[1], values[2], values[3], values[4], values[5]) == ("6", "1", "207872", "1", "256")
    assert (values[7], values[8], values[9], values[10]) == ("1", "6", "8", "16")


def test_one_passed_test_gives_its_sizes_time_rate_and_residual():
    parsed = parse_hpl(read_fixture("hpl/one_test_passed.txt"))
    assert parsed["version"] == "HPLinpack 2.0" and parsed["threshold"] == 16.0
    assert parsed["tests"] == [{"variant": "WR11C2R4", "n": 2000, "nb": 128, "p": 1, "q": 2, "seconds": 0.70,
                                "gflops": 7.627, "residual": 0.0058305, "passed": True}]


def test_two_sizes_in_one_run_are_two_tests_each_with_its_residual():
    tests = parse_hpl(read_fixture("hpl/two_sizes_passed.txt"))["tests"]
    assert [(t["n"], t["passed"]) for t in tests] == [(1000, True), (2000, True)]
    assert tests[0]["residual"] == 0.0076264 and tests[1]["gflops"] == 8.217


def test_a_failed_residual_check_is_an_error_however_fast():
    plan = {"ranks": 2, "hosts": ["mac1"]}
    results, problems = hpl_results({"rc": 0, "stdout": read_fixture("hpl/residual_failed.txt")}, plan, "mac1")
    assert results[0]["passed"] is False and results[0]["unit"] == "Gflops"
    assert [p["code"] for p in problems] == ["bench_hpl_residual_failed"]
    assert "N=1000 NB=128 on 1x2" in problems[0]["message"] and "not a valid result" in problems[0]["message"]


def test_a_run_that_printed_no_test_is_an_error_with_its_last_words():
    plan = {"ranks": 48, "hosts": ["mac1", "mac2"]}
    output = {"rc": 1, "stdout": "", "stderr": "mpirun was unable to launch the specified application\n"}
    results, problems = hpl_results(output, plan, "mac1")
    assert results == [] and [p["code"] for p in problems] == ["bench_hpl_failed"]
    assert "48 ranks (2 nodes)" in problems[0]["message"] and "unable to launch" in problems[0]["message"]


def test_the_suite_in_the_document_valid_against_the_schema_and_in_the_report():
    import json
    import os

    jsonschema = pytest.importorskip("jsonschema")
    from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
    from benchmark_pages import benchmark_pages
    from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import build_document

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
    schema = benchmark_schema()
    plan = dict(hpl_plan(["mac1"], {"mac1": {"memory_bytes": GIB, "cores_performance": 2}}, n=2000, nb=128))
    plan["hpl_dat"] = hpl_dat(plan)
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "playbook": "benchmark.yml", "suites": ["hpl"]}
    doc = build_document(run, ["mac1"], links_plan({}, ["mac1"], 1), [], {}, {}, 15.0, {}, {}, "tb5",
                         hpl={"output": {"rc": 0, "stdout": read_fixture("hpl/two_sizes_passed.txt")}, "settings": plan})
    jsonschema.validate(json.loads(json.dumps(doc)), schema)
    assert [m["value"] for m in doc["measurements"]] == [7.648, 8.217] and doc["problems"] == []
    assert doc["suites"]["hpl"]["plan"]["hpl_dat"].startswith("HPLinpack benchmark input file")
    _images, page, markdown = benchmark_pages(None, doc, [])
    assert "<h3>HPL</h3>" in page and "| 2000 | 128 | 1 x 2 |" in markdown
    skipped = build_document(run, ["mac1"], links_plan({}, ["mac1"], 1), [], {}, {}, 15.0, {}, {}, "tb5",
                             hpl={"skipped": "/opt/macops/hpl/bin/xhpl not on mac1", "settings": plan})
    jsonschema.validate(json.loads(json.dumps(skipped)), schema)
    assert skipped["suites"]["hpl"]["skipped"] == "/opt/macops/hpl/bin/xhpl not on mac1"
