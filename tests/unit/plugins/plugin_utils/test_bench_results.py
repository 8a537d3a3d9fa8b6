"""The benchmark's results document (plugins/plugin_utils/_bench_results.py): medians per cable and direction
judged against the expected cable's baseline, the probable cause from the node facts, failures as errors, check
mode judging nothing; the document valid against docs/report.schema.json ($defs/benchmark_results)."""
import copy
import json
import os

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import build_document, with_server_figures

from links_fixture import BASELINES, HOSTS, MACS, PLAN, TESTS, document, iperf_test
from report_schema import benchmark_schema

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def test_each_direction_is_the_median_of_its_repeats_and_a_tb4_cable_is_the_slow_one():
    doc = document(TESTS)
    results = dict((r["direction"], r) for r in doc["suites"]["links"]["results"])
    assert results["mac1->mac2"]["gbps"] == pytest.approx(3.8) and results["mac1->mac2"]["repeats"] == [3.7, 3.9]
    assert results["mac1->mac2"]["ok"] and results["mac1->mac2"]["floor_gbps"] == pytest.approx(3.4)
    low = sorted(r["direction"] for r in results.values() if not r["ok"])
    assert low == ["mac1->mac3", "mac3->mac1"]
    assert {results[d]["cause"] for d in low} == {"tb4_cable"} and results["mac1->mac3"]["kind"] == "tb4"
    problems = doc["problems"]
    assert [(p["code"], p["host"], p["port"], p["peer"]) for p in problems] == [
        ("bench_link_below_baseline", "mac1", "en4", "mac3"), ("bench_link_below_baseline", "mac3", "en3", "mac1")]
    assert "Thunderbolt 4 or USB-C cable" in problems[0]["message"] and problems[0]["severity"] == "warning"
    assert doc["versions"] == {"iperf3": "iperf 3.19"}
    assert doc["suites"]["links"]["rounds"] == 2 and doc["suites"]["links"]["one_at_a_time"] == 2


def test_a_cluster_of_tb4_macs_judges_against_the_tb4_baseline():
    doc = document(TESTS, expected="tb4")
    assert all(r["ok"] for r in doc["suites"]["links"]["results"]) and doc["problems"] == []


def test_a_slow_tb5_cable_on_the_port_next_to_ethernet_names_it_else_no_cause():
    macs = copy.deepcopy(MACS)
    macs["mac3"]["thunderbolt_ports"][0]["speed_gbps"] = 80
    macs["mac1"]["thunderbolt_ports"][1]["speed_gbps"] = 80
    macs["mac1"]["thunderbolt_ports"][1]["interface"] = "en2"  # the Mac Studio's port next to Ethernet
    plan = copy.deepcopy(PLAN)
    plan["mac1"]["en2"] = plan["mac1"].pop("en4")
    doc = document(TESTS, macs=macs, plan=plan)
    causes = sorted(set(r["cause"] for r in doc["suites"]["links"]["results"] if not r["ok"]))
    assert causes == ["port_next_to_ethernet"]
    macs["mac1"]["model_name"] = "Mac mini"
    doc = document(TESTS, macs=macs, plan=plan)
    assert sorted(set(r["cause"] for r in doc["suites"]["links"]["results"] if not r["ok"])) == ["unknown"]


def test_a_cable_iperf3_could_not_measure_is_an_error_naming_both_ends():
    tests = TESTS[:2] + [iperf_test("mac1:en4--mac3:en3", None, None, error="unable to connect to server: No route to host")]
    doc = document(tests)
    failed = [p for p in doc["problems"] if p["code"] == "bench_link_failed"]
    assert len(failed) == 1 and failed[0]["severity"] == "error" and failed[0]["peer"] == "mac3"
    assert "No route to host" in failed[0]["message"] and "198.19.0.6" in failed[0]["message"]
    missing = document(TESTS[:2])
    assert [p["code"] for p in missing["problems"]] == ["bench_link_failed"]
    assert "no test ran" in missing["problems"][0]["message"]


def test_a_client_that_measured_and_printed_nothing_takes_its_servers_figures():
    silent = iperf_test("mac1:en4--mac3:en3", None, None, error="iperf3 exited -11 and printed nothing")
    served = [dict(iperf_test("mac1:en4--mac3:en3", 0.97, 0.92), starts=1),
              # another repeat's record of the same cable, and one without figures: neither is taken
              dict(iperf_test("mac1:en4--mac3:en3", 0.1, 0.1, repeat=1)),
              dict(iperf_test("mac1:en3--mac2:en3", None, None, error="no client connected in time"))]
    tests = with_server_figures(TESTS[:2] + [silent], served)
    assert [t["measured_by"] for t in tests] == ["client", "client", "server"]
    assert tests[2]["client_error"] == "iperf3 exited -11 and printed nothing" and tests[2]["error"] is None
    doc = document(tests)
    assert not [p for p in doc["problems"] if p["code"] == "bench_link_failed"]
    results = dict((r["direction"], r) for r in doc["suites"]["links"]["results"])
    assert results["mac1->mac3"]["gbps"] == pytest.approx(0.97) and results["mac1->mac3"]["measured_by"] == ["server"]
    assert results["mac1->mac2"]["measured_by"] == ["client", "client"]
    # With no server record either, the cable is still the error it was.
    alone = document(with_server_figures(TESTS[:2] + [silent], []))
    assert [p["code"] for p in alone["problems"]].count("bench_link_failed") == 1


def test_check_mode_tests_without_results_judge_nothing():
    planned = [iperf_test("mac1:en3--mac2:en3", None, None), iperf_test("mac1:en4--mac3:en3", None, None)]
    doc = document(planned)
    assert doc["problems"] == [] and doc["suites"]["links"]["results"] == []


def test_the_document_validates_against_the_shipped_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = benchmark_schema()
    doc = json.loads(json.dumps(document(TESTS)))
    jsonschema.validate(doc, schema)
    broken = copy.deepcopy(doc)
    broken["suites"]["links"]["results"][0]["unit"] = "MB/s"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_a_run_without_the_links_suite_judges_no_cable():
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "suites": ["allsum"]}
    doc = build_document(run, HOSTS, links_plan(PLAN, HOSTS), [], MACS, BASELINES, 15.0, {}, {})
    assert doc["problems"] == [] and doc["suites"]["links"]["results"] == []
