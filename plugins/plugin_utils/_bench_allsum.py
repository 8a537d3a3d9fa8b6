# -*- coding: utf-8 -*-
# PRIVATE to the collection: the allsum suite's results, behind the cluster_report action's benchmark section.
# Names and behaviour may change without notice. Stdlib only and Python 3.9 compatible.
"""From the all_sum sweep's output (roles/benchmark/files/allsum_bench.py, one JSON line per rank
and size, under mlx.launch) to latency and bus bandwidth per backend and size, each sum checked.

Bandwidth as nccl-tests and MLX's allreduce_bench print it: algorithm bandwidth = bytes / time,
bus bandwidth = algorithm bandwidth x 2 (n - 1) / n (what each link carries in a ring all-reduce),
in GB/s (10^9 bytes). Each rank times with its own clock; the slowest rank's time counts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem


def rank_lines(stdout):
    """The JSON objects of a run's output, one per line that is one (mlx.launch adds nothing else)."""
    found = []
    for line in (stdout or "").splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
    return found


def size_result(backend, size_bytes, lines, ranks):
    """One size of one backend: the slowest rank's time, bandwidths, and whether every rank's sum was right."""
    reported = sorted(set(line["rank"] for line in lines))
    seconds = max(line["seconds"] for line in lines)
    algo = size_bytes / seconds / 1e9 if seconds > 0 else 0.0
    bus = algo * 2.0 * (ranks - 1) / ranks
    return {"backend": backend, "bytes": size_bytes, "ranks": ranks, "ranks_reported": reported,
            "latency_us": round(seconds * 1e6, 2), "algo_gbytes_per_s": round(algo, 4),
            "bus_gbytes_per_s": round(bus, 4), "unit": "GB/s",
            "ok": len(reported) == ranks and all(line.get("ok") for line in lines),
            "sums": sorted(set(line.get("sum") for line in lines)), "expected": lines[0].get("expected")}


def allsum_results(runs, first_host):
    """(results, problems) from the runs {backend: [{size, rc, stdout, stderr}]} of the sweep."""
    results, problems = [], []
    for backend in sorted(runs):
        for run in runs[backend]:
            lines = [line for line in rank_lines(run.get("stdout")) if "seconds" in line]
            if not lines:
                problems.append(problem("bench_allsum_failed", "all_sum over %s at %s bytes did not run (rc %s): %s" % (
                    backend, run.get("size"), run.get("rc"), (run.get("stderr") or run.get("stdout") or "").strip()[-300:]),
                    host=first_host, details={"backend": backend, "bytes": run.get("size")}))
                continue
            ranks = lines[0]["size"]
            entry = size_result(backend, lines[0]["bytes"], lines, ranks)
            results.append(entry)
            if not entry["ok"]:
                problems.append(problem("bench_allsum_wrong_sum", "all_sum over %s at %d bytes: ranks %s reported, sums %s, "
                                        "expected %s from each of %d ranks" % (
                                            backend, entry["bytes"], entry["ranks_reported"], entry["sums"],
                                            entry["expected"], ranks),
                                        host=first_host, details={"backend": backend, "bytes": entry["bytes"]}))
    return results, problems


def allsum_measurements(results):
    found = []
    for entry in results:
        subject = "%s %d B" % (entry["backend"], entry["bytes"])
        found.append({"suite": "allsum", "name": "allsum_latency", "subject": subject, "value": entry["latency_us"],
                      "unit": "us", "repeats": [entry["latency_us"]]})
        found.append({"suite": "allsum", "name": "allsum_bus_bandwidth", "subject": subject,
                      "value": entry["bus_gbytes_per_s"], "unit": "GB/s", "repeats": [entry["bus_gbytes_per_s"]]})
    return found
