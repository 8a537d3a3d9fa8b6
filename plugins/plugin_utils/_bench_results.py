# -*- coding: utf-8 -*-
# PRIVATE to the collection: the benchmark's results document, behind the cluster_report action's benchmark section.
# Names and behaviour may change without notice. Stdlib only and Python 3.9 compatible.
"""From the links suite's raw iperf3 tests, the plan and the node facts to the results document
(`docs/report.schema.json`, `$defs/benchmark_results`, version SCHEMA_VERSION): every measurement with its unit and
repeats, each cable and direction judged against its baseline, and a problem in the catalogue's
shape for each one below it, naming the probable cause the facts show."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import statistics

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_allsum import allsum_measurements, allsum_results
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_exo import exo_measurements, exo_results
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_hpl import hpl_measurements, hpl_results
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_serve import serve_measurements, serve_results
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_generate import (
    generate_measurements,
    generate_results,
)
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import (
    TB5_LINK_GBPS,
    is_port_next_to_ethernet,
)

SCHEMA_ID = "https://macops.cluster/schemas/benchmark/1"
SCHEMA_VERSION = 1
GBIT = 1e9


def _ports(mac):
    return {port.get("interface"): port for port in (mac or {}).get("thunderbolt_ports") or [] if port.get("interface")}


def cable_kind(cable, macs):
    """`tb5` when both ports negotiate Thunderbolt 5's 80 Gb/s, `tb4` when either negotiates less
    (a Thunderbolt 4 or USB-C cable, or a TB4 port), `unknown` when the facts do not say."""
    speeds = []
    for host, port in ((cable["a"], cable["a_port"]), (cable["b"], cable["b_port"])):
        speed = _ports(macs.get(host)).get(port, {}).get("speed_gbps")
        if speed is not None:
            speeds.append(speed)
    if not speeds:
        return "unknown", None
    slowest = min(speeds)
    return ("tb5" if slowest >= TB5_LINK_GBPS else "tb4"), slowest


def probable_cause(cable, macs, kind, speed_gbps):
    """(cause code, words) the facts point at for a slow cable, or ("unknown", ...)."""
    if kind == "tb4":
        return "tb4_cable", ("the cable negotiates %s Gb/s, not Thunderbolt 5's %d: a Thunderbolt 4 or USB-C cable "
                             "(or a Thunderbolt 4 port)" % (speed_gbps, TB5_LINK_GBPS))
    for host, port in ((cable["a"], cable["a_port"]), (cable["b"], cable["b_port"])):
        mac = macs.get(host) or {}
        receptacle = _ports(mac).get(port, {}).get("receptacle")
        if is_port_next_to_ethernet(mac, port, receptacle):
            return "port_next_to_ethernet", "%s's %s is the Mac Studio port next to Ethernet" % (host, port)
    return "unknown", "the node facts show no cause (reseat the cable; look for a dock, hub or damaged cable)"


def baseline_for(baselines, kind):
    """The link baseline {gbps, source} of a cable kind, else of `tb5`, else None."""
    links = (baselines or {}).get("links") or {}
    return links.get(kind) or links.get("tb5")


def _median(values):
    return statistics.median(values) if values else None


def _test_key(test):
    return (test.get("link_id"), test.get("repeat"), test.get("round"))


def with_server_figures(tests, served):
    """The client tests, each one that has no figures completed from its server's record of the same
    cable, repeat and round when the server has them (a client that measured, then died before it
    printed: the server saw the whole test). `measured_by` says whose figures a test holds."""
    by_key = {_test_key(record): record for record in served or [] if record.get("forward")}
    completed = []
    for test in tests:
        record = by_key.get(_test_key(test))
        if test.get("forward") or record is None:
            completed.append(dict(test, measured_by="client") if test.get("forward") else test)
            continue
        completed.append(dict(test, forward=record["forward"], backward=record.get("backward"), error=None,
                              client_error=test.get("error"), measured_by="server"))
    return completed


def link_results(plan, tests, macs, baselines, margin_percent, expected_kind="tb5"):
    """(results, problems): one result per cable and direction, the median of its repeats, judged
    against the baseline of the cables the cluster is built for (`expected_kind`): a Thunderbolt 4
    cable between Thunderbolt 5 Macs is the slow cable to find, not a cable with a lower bar."""
    by_cable = {}
    for test in tests:
        by_cable.setdefault(test["link_id"], []).append(test)
    results, problems = [], []
    for cable in plan["cables"]:
        kind, speed = cable_kind(cable, macs)
        baseline = baseline_for(baselines, expected_kind)
        runs = by_cable.get(cable["link_id"], [])
        # Check mode plans the tests without running them: no error and no result, nothing to judge.
        planned_only = runs and all(not t.get("error") and not t.get("forward") for t in runs)
        if planned_only:
            continue
        failed = [t for t in runs if t.get("error") or not t.get("forward")]
        if failed or not runs:
            error = failed[0].get("error") if failed else "no test ran (the cable's round did not reach it)"
            problems.append(problem("bench_link_failed", "iperf3 from %s (%s) to %s (%s) over %s failed: %s" % (
                cable["a"], cable["a_ip"], cable["b"], cable["b_ip"], cable["link_id"], error),
                host=cable["a"], port=cable["a_port"], peer=cable["b"], details={"link_id": cable["link_id"]}))
        directions = [("forward", cable["a"], cable["b"], cable["a_port"]),
                      ("backward", cable["b"], cable["a"], cable["b_port"])]
        for key, sender, receiver, port in directions:
            measured = [t for t in runs if t.get(key)]
            samples = [t[key]["bits_per_second"] / GBIT for t in measured]
            if not samples:
                continue
            gbps = round(_median(samples), 3)
            retransmits = [t[key]["retransmits"] for t in runs if t.get(key) and t[key].get("retransmits") is not None]
            floor = None if baseline is None else round(baseline["gbps"] * (1 - margin_percent / 100.0), 3)
            below = floor is not None and gbps < floor
            cause, words = probable_cause(cable, macs, kind, speed) if below else (None, None)
            results.append({
                "link_id": cable["link_id"], "from": sender, "to": receiver, "port": port,
                "direction": "%s->%s" % (sender, receiver), "kind": kind, "speed_gbps": speed,
                "gbps": gbps, "unit": "Gbit/s", "repeats": [round(s, 3) for s in samples],
                "measured_by": [t.get("measured_by", "client") for t in measured],
                "retransmits": sum(retransmits) if retransmits else None,
                "baseline_gbps": None if baseline is None else baseline["gbps"], "floor_gbps": floor,
                "ok": not below, "cause": cause,
            })
            if below:
                problems.append(problem("bench_link_below_baseline", "%s -> %s over %s: %.2f Gbit/s, below the %s "
                                        "baseline of %s Gbit/s by more than %s %%; probable cause: %s." % (
                                            sender, receiver, cable["link_id"], gbps, expected_kind, baseline["gbps"],
                                            margin_percent, words),
                                        host=sender, port=port, peer=receiver,
                                        details={"link_id": cable["link_id"], "direction": "%s->%s" % (sender, receiver),
                                                 "gbps": gbps, "floor_gbps": floor, "cause": cause}))
    return results, problems


def cluster_shape(hosts, plan, macs):
    nodes = []
    for host in hosts:
        mac = macs.get(host) or {}
        nodes.append({"name": host, "model": mac.get("model_name"), "chip": mac.get("chip"),
                      "memory_bytes": mac.get("memory_bytes"), "macos_version": mac.get("macos_version"),
                      "macos_build": mac.get("macos_build")})
    cables = []
    for cable in plan["cables"]:
        kind, speed = cable_kind(cable, macs)
        cables.append(dict(cable, kind=kind, speed_gbps=speed))
    return {"nodes": nodes, "cables": cables}


def measurements(links):
    """The flat list every suite adds to: name, subject, value, unit, repeats."""
    return [{"suite": "links", "name": "tcp_bandwidth", "subject": "%s %s" % (r["link_id"], r["direction"]),
             "value": r["gbps"], "unit": r["unit"], "repeats": r["repeats"]} for r in links]


def tool_versions(tests, given):
    """The versions the document records: the caller's, plus iperf3's as the tests report it."""
    versions = dict(given or {})
    found = sorted(set(t.get("iperf3_version") for t in tests if t.get("iperf3_version")))
    if found and "iperf3" not in versions:
        versions["iperf3"] = ", ".join(found)
    return versions


def build_document(run, hosts, plan, tests, macs, baselines, margin_percent, settings, versions, expected_kind="tb5",
                   allsum_runs=None, allsum_settings=None, generate_runs=None, generate_settings=None, exo=None,
                   hpl=None, serve=None):
    """The results document. exo, hpl and serve: {output, settings, skipped} of that suite, when it was asked
    for (hpl's settings are its plan; serve's name rank 0's node, which its problems are on)."""
    # The links suite is judged only when it ran (a run with --tags allsum measures no cable).
    if "links" in (run.get("suites") or ["links"]):
        links, problems = link_results(plan, tests, macs, baselines, margin_percent, expected_kind)
    else:
        links, problems = [], []
    suites = {"links": {"settings": settings, "rounds": len(plan["rounds"]), "one_at_a_time": plan["one_at_a_time"],
                        "results": links}}
    found = measurements(links)
    # The first node launches every MLX and exo run: their problems are its.
    first = hosts[0] if hosts else None
    if allsum_runs:
        results, allsum_problems = allsum_results(allsum_runs, first)
        suites["allsum"] = {"settings": allsum_settings or {}, "backends": sorted(allsum_runs), "results": results}
        found += allsum_measurements(results)
        problems += allsum_problems
    if generate_runs:
        results, generate_problems = generate_results([run for run, _output in generate_runs],
                                                      [output for _run, output in generate_runs], first)
        suites["generate"] = {"settings": generate_settings or {}, "results": results}
        found += generate_measurements(results)
        problems += generate_problems
    if exo and exo.get("skipped"):
        suites["exo"] = {"settings": exo.get("settings") or {}, "skipped": exo["skipped"], "results": []}
    elif exo and exo.get("output"):
        results, exo_problems = exo_results(exo["output"], first)
        suites["exo"] = {"settings": exo.get("settings") or {}, "skipped": None, "results": results}
        found += exo_measurements(results)
        problems += exo_problems
    if hpl and hpl.get("skipped"):
        suites["hpl"] = {"plan": hpl.get("settings") or {}, "skipped": hpl["skipped"], "results": []}
    elif hpl and hpl.get("output"):
        results, hpl_problems = hpl_results(hpl["output"], hpl["settings"], hosts[0] if hosts else None)
        suites["hpl"] = {"plan": hpl["settings"], "skipped": None, "results": results}
        found += hpl_measurements(results)
        problems += hpl_problems
    if serve and serve.get("skipped"):
        suites["serve"] = {"settings": serve.get("settings") or {}, "skipped": serve["skipped"], "results": []}
    elif serve and serve.get("output"):
        settings = serve.get("settings") or {}
        results, serve_problems = serve_results(serve["output"], settings.get("host") or first)
        suites["serve"] = {"settings": settings, "skipped": None, "results": results}
        found += serve_measurements(results)
        problems += serve_problems
    return {
        "$schema": SCHEMA_ID,
        "schema_version": SCHEMA_VERSION,
        "run": run,
        "cluster": cluster_shape(hosts, plan, macs),
        "versions": tool_versions(tests, versions),
        "baselines": baselines,
        "expected_cable": expected_kind,
        "margin_percent": margin_percent,
        "suites": suites,
        "measurements": found,
        "problems": problems,
    }


def history_entry(document):
    """One line of the history: when, and each measurement's value and unit, by name and subject."""
    measured = document["measurements"]
    return {"run_id": document["run"]["id"], "finished": document["run"]["finished"],
            "values": dict((_history_key(m), m["value"]) for m in measured),
            "units": dict((_history_key(m), m["unit"]) for m in measured), "problems": len(document["problems"])}


def _history_key(measurement):
    # The links suite's subjects stay as they were in the first history lines (cable and direction).
    if measurement["suite"] == "links":
        return measurement["subject"]
    return "%s %s" % (measurement["name"], measurement["subject"])
