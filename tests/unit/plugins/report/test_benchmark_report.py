"""The benchmark's results document: medians per cable and direction judged against the expected
cable's baseline, the probable cause from the node facts, failures as errors, check mode judging
nothing; the document valid against docs/report.schema.json ($defs/benchmark_results); the report's plots real PNGs."""
import copy
import json
import os

import pytest
from report_schema import benchmark_schema

from benchmark_pages import benchmark_pages

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import (
    build_document,
    history_entry,
    with_server_figures,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BASELINES = {"links": {"tb5": {"gbps": 4.0, "source": "the lab's shaping"}, "tb4": {"gbps": 1.0, "source": "lab"}}}
PLAN = {
    "mac1": {"en3": {"ip": "198.19.0.1", "link_id": "mac1:en3--mac2:en3", "peer_host": "mac2", "peer_ip": "198.19.0.2"},
             "en4": {"ip": "198.19.0.5", "link_id": "mac1:en4--mac3:en3", "peer_host": "mac3", "peer_ip": "198.19.0.6"}},
    "mac2": {"en3": {"ip": "198.19.0.2", "link_id": "mac1:en3--mac2:en3", "peer_host": "mac1", "peer_ip": "198.19.0.1"}},
    "mac3": {"en3": {"ip": "198.19.0.6", "link_id": "mac1:en4--mac3:en3", "peer_host": "mac1", "peer_ip": "198.19.0.5"}},
}
HOSTS = ["mac1", "mac2", "mac3"]


def mac(speeds, model="Mac Studio"):
    return {"model_name": model, "chip": "Apple M3 Ultra", "memory_bytes": 512 << 30, "macos_version": "26.2",
            "macos_build": "25C56", "thunderbolt_ports": [{"interface": port, "receptacle": number, "speed_gbps": gbps}
                                                          for number, (port, gbps) in enumerate(speeds, start=1)]}


MACS = {"mac1": mac([("en3", 80), ("en4", 40)]), "mac2": mac([("en3", 80)]), "mac3": mac([("en3", 40)])}


def direction(gbps):
    return {"from": "client", "bits_per_second": gbps * 1e9, "sender_bits_per_second": gbps * 1e9, "bytes": 1,
            "seconds": 5.0, "retransmits": 0}


def iperf_test(link_id, forward, backward, repeat=0, error=None):
    return {"link_id": link_id, "repeat": repeat, "error": error, "iperf3_version": "iperf 3.19",
            "forward": None if forward is None else direction(forward),
            "backward": None if backward is None else direction(backward)}


def document(tests, macs=MACS, expected="tb5", plan=PLAN):
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "playbook": "benchmark.yml",
           "suites": ["links"]}
    return build_document(run, HOSTS, links_plan(plan, HOSTS, 2), tests, macs, BASELINES, 15.0,
                          {"seconds": 5}, {}, expected)


TESTS = [iperf_test("mac1:en3--mac2:en3", 3.7, 3.8), iperf_test("mac1:en3--mac2:en3", 3.9, 3.6, repeat=1),
         iperf_test("mac1:en4--mac3:en3", 0.95, 0.94), iperf_test("mac1:en4--mac3:en3", 0.96, 0.93, repeat=1)]


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


def test_the_report_draws_real_plots_and_links_them(tmp_path):
    image = pytest.importorskip("matplotlib.image")
    doc = document(TESTS)
    later = json.loads(json.dumps(doc))
    later["run"].update(id="20261201T130000Z", finished="2026-12-01T13:00:00Z")
    history = [history_entry(doc), history_entry(later)]
    images, page, markdown = benchmark_pages(str(tmp_path), doc, history)
    assert [name for name, _ in images] == ["links.png", "history.png"]
    for name, _caption in images:
        pixels = image.imread(str(tmp_path / name))
        assert pixels.shape[0] > 200 and pixels.shape[1] > 400 and pixels[..., :3].std() > 0.05
    assert '<img src="links.png"' in page and '<img src="history.png"' in page and page.count("LOW: tb4_cable") == 2
    assert 'href="benchmark.json"' in page and 'href="history.jsonl"' in page
    assert "![Bandwidth per cable and direction](links.png)" in markdown
    first_only = benchmark_pages(str(tmp_path), doc, history[:1])[0]
    assert [name for name, _ in first_only] == ["links.png"]


def test_the_health_report_links_the_latest_benchmark_page():
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown
    model = build_report_model({"mac1": {}}, {}, [], "Mac cluster health",
                               {"playbook": "site.yml", "benchmark_report": "../benchmark/index.html"})
    assert 'Latest benchmark: <a href="../benchmark/index.html">' in render_html(model)
    assert "Latest benchmark: [../benchmark/index.html](../benchmark/index.html)" in render_markdown(model)
    plain = build_report_model({"mac1": {}}, {}, [], "Mac cluster health", {"playbook": "site.yml"})
    assert "Latest benchmark" not in render_html(plain)


def test_a_run_without_the_links_suite_judges_no_cable():
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "suites": ["allsum"]}
    doc = build_document(run, HOSTS, links_plan(PLAN, HOSTS), [], MACS, BASELINES, 15.0, {}, {})
    assert doc["problems"] == [] and doc["suites"]["links"]["results"] == []
