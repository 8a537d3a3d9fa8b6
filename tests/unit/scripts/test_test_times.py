"""scripts/test_times.py: where make test spent its time, read back from the JUnit files and the
stage lines it writes, and which tests got slower between two runs."""
import importlib.util
import io
import json
import os

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
spec = importlib.util.spec_from_file_location("test_times", os.path.join(REPO, "scripts", "test_times.py"))
test_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(test_times)

PYTEST_JUNIT = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0"
failures="1" skipped="1" tests="4" time="60.0"><testcase classname="tests.e2e.site.test_site_doctor"
name="test_each_lab_fault[cut]" time="12.5" /><testcase classname="tests.e2e.site.test_site_doctor"
name="test_each_lab_fault[hang]" time="30.25"><failure message="assert">boom</failure></testcase>
<testcase classname="tests.e2e.site.test_site" name="test_site_converges" time="7.0" />
<testcase classname="tests.e2e.site.test_site" name="test_skipped" time="0.0"><skipped message="no" />
</testcase></testsuite></testsuites>"""
STAGE_JUNIT = """<testsuite name="lint" tests="1" failures="0" time="41.5"><testcase classname="make" name="lint"
time="41.5" /></testsuite>"""


def write(directory, name, text):
    path = os.path.join(str(directory), name)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def test_a_pytest_junit_file_gives_every_test_its_time_and_outcome(tmp_path):
    tests = test_times.read_junit(write(tmp_path, "e2e.xml", PYTEST_JUNIT))
    assert tests == [
        ("e2e", "tests.e2e.site.test_site_doctor::test_each_lab_fault[cut]", 12.5, "passed"),
        ("e2e", "tests.e2e.site.test_site_doctor::test_each_lab_fault[hang]", 30.25, "failed"),
        ("e2e", "tests.e2e.site.test_site::test_site_converges", 7.0, "passed"),
        ("e2e", "tests.e2e.site.test_site::test_skipped", 0.0, "skipped"),
    ]


def test_the_summary_lists_each_stage_with_its_counts_and_the_slowest_tests_first(tmp_path):
    write(tmp_path, "e2e.xml", PYTEST_JUNIT)
    write(tmp_path, "lint.xml", STAGE_JUNIT)
    write(tmp_path, "stages.jsonl", "\n".join(json.dumps(s) for s in [
        {"name": "lint", "seconds": 41.5, "status": 0}, {"name": "e2e", "seconds": 75.0, "status": 1}]) + "\n")
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    text = out.getvalue()
    lines = text.splitlines()
    assert [l.split()[:3] for l in lines if l.startswith(("lint ", "e2e ", "total "))] == [
        ["lint", "41.5", "ok"], ["e2e", "75.0", "rc"], ["total", "116.5"]]
    assert "2/1/1" in [l for l in lines if l.startswith("e2e ")][0]  # passed/failed/skipped
    slowest = lines[lines.index("== the 20 slowest tests") + 1:]
    # The tests by time; a stage's own case (lint here) is its wall time above, not a test.
    assert "test_each_lab_fault[hang]  (failed)" in slowest[0] and "test_each_lab_fault[cut]" in slowest[1]
    assert "test_site_converges" in slowest[2] and not [l for l in slowest if "make::lint" in l]


def test_compare_names_the_tests_that_got_slower_and_those_only_one_run_has(tmp_path):
    old_dir, new_dir = tmp_path / "old", tmp_path / "new"
    old_dir.mkdir()
    new_dir.mkdir()
    write(old_dir, "e2e.xml", PYTEST_JUNIT)
    write(new_dir, "e2e.xml", PYTEST_JUNIT.replace('time="12.5"', 'time="20.5"').replace(
        'time="30.25"', 'time="10.25"').replace('name="test_site_converges"', 'name="test_site_again"'))
    out = io.StringIO()
    both, only_old, only_new = test_times.compare(str(old_dir), str(new_dir), out=out)
    text = out.getvalue()
    slower = text.split("== faster")[0]
    assert "+8.0 s" in slower and "test_each_lab_fault[cut]" in slower and "[hang]" not in slower
    assert "-20.0 s" in text.split("== faster")[1].split("== only")[0]
    assert only_old == [("e2e", "tests.e2e.site.test_site::test_site_converges")]
    assert only_new == [("e2e", "tests.e2e.site.test_site::test_site_again")]


def test_the_command_line_takes_a_directory_and_two_files(tmp_path, capsys):
    old = write(tmp_path, "old.xml", PYTEST_JUNIT)
    assert test_times.main(["compare", old, old]) == 0
    assert "totals: 4 tests 49.8 s -> 4 tests 49.8 s" in capsys.readouterr().out
    assert test_times.main(["summary", str(tmp_path)]) == 0
    with pytest.raises(SystemExit):
        test_times.main(["compare", old])


def test_stages_that_ran_side_by_side_give_the_runs_own_wall_time(tmp_path):
    # lint from 0 to 40 s beside unit from 0 to 60 s, then e2e from 60 to 100 s: 140 s of stages, 100 s of run.
    write(tmp_path, "stages.jsonl", "\n".join(json.dumps(s) for s in [
        {"name": "lint", "seconds": 40.0, "status": 0, "started": 1000.0, "ended": 1040.0},
        {"name": "unit", "seconds": 60.0, "status": 0, "started": 1000.0, "ended": 1060.0},
        {"name": "e2e", "seconds": 40.0, "status": 0, "started": 1060.0, "ended": 1100.0}]) + "\n")
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    lines = out.getvalue().splitlines()
    assert [l.split()[:2] for l in lines if l.startswith(("total ", "wall "))] == [["total", "140.0"], ["wall", "100.0"]]


def test_the_summary_ends_with_what_failed_and_the_tail_of_why(tmp_path):
    # CI shows the run's last lines: the failed test, and a failed stage's log tail, come last.
    log = "\n".join("line %d" % n for n in range(40)) + "\nERROR: sanity: 1 failed"
    write(tmp_path, "e2e.xml", PYTEST_JUNIT)
    write(tmp_path, "sanity.xml", '<testsuite name="sanity" tests="1" failures="1"><testcase classname="make" '
          'name="sanity" time="9.0"><failure message="make sanity exited 2">%s</failure></testcase></testsuite>' % log)
    write(tmp_path, "stages.jsonl", "\n".join(json.dumps(s) for s in [
        {"name": "sanity", "seconds": 9.0, "status": 2}, {"name": "e2e", "seconds": 75.0, "status": 1}]) + "\n")
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    failed = out.getvalue().split("== what failed: 2 tests; stages sanity, e2e\n")[1]
    assert failed.index("test_each_lab_fault[hang]") < failed.index("boom")
    assert "make sanity exited 2" in failed and failed.rstrip().endswith("ERROR: sanity: 1 failed")
    assert "line 28" not in failed and "line 29" in failed  # the last FAILURE_LINES lines only
    assert "test_each_lab_fault[cut]" not in failed


def test_a_green_run_has_no_failure_section(tmp_path):
    write(tmp_path, "lint.xml", STAGE_JUNIT)
    write(tmp_path, "stages.jsonl", json.dumps({"name": "lint", "seconds": 41.5, "status": 0}) + "\n")
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    assert "what failed" not in out.getvalue()


def test_the_summary_adds_up_the_playbook_runs_per_lab_and_playbook_and_names_the_costliest_tests(tmp_path):
    runs = [
        {"lab": 0, "test": "tests/e2e/site/test_site.py::test_converges", "playbook": "site.yml", "seconds": 70.0,
         "controller_cpu": 30.0, "rc": 0},
        {"lab": 0, "test": "tests/e2e/site/test_site.py::test_converges", "playbook": "site.yml", "seconds": 30.0,
         "controller_cpu": 20.0, "rc": 0},
        {"lab": 2, "test": "tests/e2e/serve/test_serve.py::test_chat", "playbook": "serve-model.yml", "seconds": 40.0,
         "controller_cpu": 12.5, "rc": 2},
    ]
    write(tmp_path, "playbooks.jsonl", "".join(json.dumps(r) + "\n" for r in runs))
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    lines = out.getvalue().splitlines()
    assert "== playbook runs: 3, 140 s, 62 s of controller CPU" in lines
    table = lines[lines.index("== playbook runs: 3, 140 s, 62 s of controller CPU") + 2:][:2]
    # Costliest first: lab 0's two site.yml runs added up, then lab 2's serve run.
    assert [l.split() for l in table] == [["0", "site.yml", "2", "100.0", "50.0"],
                                         ["2", "serve-model.yml", "1", "40.0", "12.5"]]
    tests = lines[lines.index("== the 20 tests whose playbook runs took most controller CPU") + 1:]
    assert tests[0].split() == ["50.0", "s", "2", "runs", "tests/e2e/site/test_site.py::test_converges"]
    assert "test_chat" in tests[1]


def test_a_run_without_playbook_runs_prints_no_playbook_section(tmp_path):
    write(tmp_path, "e2e.xml", PYTEST_JUNIT)
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    assert "playbook runs" not in out.getvalue()


def test_the_summary_adds_up_each_lanes_cpu_and_names_the_tests_that_cost_most(tmp_path):
    tests = [{"lab": 0, "test": "tests/e2e/site/test_site.py::test_converges", "seconds": 90.0, "lane_cpu": 75.5},
             {"lab": 2, "test": "tests/e2e/serve/test_serve.py::test_chat", "seconds": 40.0, "lane_cpu": 120.0},
             {"lab": 0, "test": "tests/e2e/site/test_site.py::test_inputs", "seconds": 3.0, "lane_cpu": 2.5}]
    write(tmp_path, "tests_cpu.jsonl", "".join(json.dumps(t) + "\n" for t in tests))
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    lines = out.getvalue().splitlines()
    assert "== CPU by lane, over its tests: lab 0 78 s, lab 2 120 s" in lines
    costliest = lines[lines.index("== the 20 tests that cost their lane most CPU") + 1:]
    assert costliest[0].split() == ["120.0", "s", "40.0", "s", "wall", "lab", "2", "tests/e2e/serve/test_serve.py::test_chat"]
    assert "test_converges" in costliest[1] and "test_inputs" in costliest[2]


def test_a_run_without_lane_measurements_prints_no_lane_section(tmp_path):
    write(tmp_path, "e2e.xml", PYTEST_JUNIT)
    out = io.StringIO()
    test_times.summary(str(tmp_path), out)
    assert "CPU by lane" not in out.getvalue()
