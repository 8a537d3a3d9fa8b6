# -*- coding: utf-8 -*-
# PRIVATE to the collection: the serve suite, behind the cluster_report action's benchmark section.
# Names and behaviour may change without notice. Stdlib only and Python 3.9 compatible.
"""The served model measured through its endpoint: roles/benchmark/files/serve_bench.py and its JSON.

serve_bench.py prints one document: ``endpoint``, ``model``, ``settings`` and ``levels``, one per
concurrency level, each with its ``requests`` (``ok``, ``ttft_s``, ``tokens``, ``generation_tps``, ``error``)
and the level's figures: ``ttft_s_median``, ``ttft_s_p90``, ``generation_tps_median`` (per request, after its
first token) and ``throughput_tps`` (every client's tokens per second of the level's wall time)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.macops.cluster.plugins.module_utils._parsing import json_number as _number
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem


class ServeBenchError(ValueError):
    pass


def parse_serve_bench(text):
    """The document serve_bench.py printed (its last line that is a JSON object)."""
    for line in reversed((text or "").strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("levels"), list):
            return data
    raise ServeBenchError("serve_bench printed no JSON document with levels")


def level_result(model, level):
    requests = [r for r in level.get("requests") or [] if isinstance(r, dict)]
    answered = [r for r in requests if r.get("ok")]
    errors = sorted(set(str(r.get("error")) for r in requests if not r.get("ok")))
    return {
        "model": model, "concurrency": int(level.get("concurrency") or 0), "requests": len(requests),
        "answered": len(answered), "failed": len(requests) - len(answered), "unit": "tokens/s",
        "ttft_s": _number(level.get("ttft_s_median")), "ttft_s_p90": _number(level.get("ttft_s_p90")),
        "generation_tps": _number(level.get("generation_tps_median")),
        "throughput_tps": _number(level.get("throughput_tps")), "wall_s": _number(level.get("wall_s")),
        "repeats": [{"ttft_s": _number(r.get("ttft_s")), "generation_tps": _number(r.get("generation_tps")),
                     "tokens": r.get("tokens")} for r in answered],
        "errors": errors[:3],
    }


def serve_results(output, host):
    """(results, problems) from the serve task's {rc, stdout, stderr}: one result per concurrency level. No
    document, or a level where a request failed, is ``bench_serve_failed`` on rank 0's node (`host`)."""
    words = " / ".join((output.get("stderr") or "").strip().splitlines()[-2:])[-300:]
    try:
        data = parse_serve_bench(output.get("stdout"))
    except ServeBenchError as exc:
        return [], [problem("bench_serve_failed", "The serve suite measured nothing through the endpoint (rc %s): %s; "
                            "%s" % (output.get("rc"), exc, words or "no output"), host=host)]
    results = [level_result(data.get("model"), level) for level in data["levels"] if isinstance(level, dict)]
    problems = []
    for result in results:
        if result["failed"]:
            problems.append(problem(
                "bench_serve_failed", "%d of %d requests at concurrency %d to %s through %s failed: %s" % (
                    result["failed"], result["requests"], result["concurrency"], result["model"],
                    data.get("endpoint"), "; ".join(result["errors"])[:300]),
                host=host, details={"concurrency": result["concurrency"], "endpoint": data.get("endpoint")}))
    if not results:
        problems.append(problem("bench_serve_failed", "The serve suite ran no concurrency level (rc %s): %s" % (
            output.get("rc"), words or "no output"), host=host))
    return results, problems


def serve_measurements(results):
    """Time to first token (s), tokens/s per request and the cluster's throughput, per concurrency level."""
    found = []
    for entry in results:
        subject = "%s concurrency %d" % (entry["model"], entry["concurrency"])
        ttfts = [r["ttft_s"] for r in entry["repeats"] if r["ttft_s"] is not None]
        rates = [r["generation_tps"] for r in entry["repeats"] if r["generation_tps"] is not None]
        for name, value, unit, repeats in (("serve_ttft_s", entry["ttft_s"], "s", ttfts),
                                           ("serve_generation_tps", entry["generation_tps"], "tokens/s", rates),
                                           ("serve_throughput_tps", entry["throughput_tps"], "tokens/s",
                                            [entry["throughput_tps"]])):
            if value is not None and repeats:
                found.append({"suite": "serve", "name": name, "subject": subject, "value": value, "unit": unit,
                              "repeats": repeats})
    return found
