# -*- coding: utf-8 -*-
# PRIVATE to the collection: the exo suite, behind the cluster_report action's benchmark section.
# Names and behaviour may change without notice. Stdlib only and Python 3.9 compatible.
"""exo's own benchmark (`bench/exo_bench.py` of an exo source checkout) and its JSON output.

`exo_bench.py --stdout` prints one JSON document (exo at b5375f8, 2026-06; `bench/METHODOLOGY.md`):
- `runs`: one row per request: `model_id`, `placement_sharding` (pipeline or tensor),
  `placement_instance_meta` (ring or jaccl), `placement_nodes`, `pp_tokens` (the prompt's exact token
  count), `tg`, `repeat_index`, `concurrency`, `elapsed_s` and `stats` (exo's generation stats:
  `prompt_tps`, `generation_tps`, `prompt_tokens`, `generation_tokens`, `peak_memory_usage.inBytes`,
  `prefix_cache_hit`: none, partial or exact);
- `cluster`: exo's cluster snapshot; `system_metrics`: per-node samples (GPU, power, temperature).
Warm-up requests are not rows. A placement that failed has no rows (exo_bench logs the error and
goes on), so the rows say which placements ran."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import statistics

from ansible_collections.macops.cluster.plugins.module_utils._parsing import json_number as _number
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem


class ExoBenchError(ValueError):
    pass


def parse_exo_bench(text):
    """The rows of exo_bench's JSON, each flattened: placement, sizes, tokens per second, peak memory."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ExoBenchError("exo_bench printed no JSON document (%s)" % exc)
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        raise ExoBenchError("exo_bench's JSON has no `runs` list")
    rows = []
    for run in data["runs"]:
        if not isinstance(run, dict):
            continue
        stats = run.get("stats") or {}
        peak = (stats.get("peak_memory_usage") or {}).get("inBytes")
        rows.append({
            "model": run.get("model_id") or run.get("model_short_id"),
            "sharding": run.get("placement_sharding"), "instance_meta": run.get("placement_instance_meta"),
            "nodes": run.get("placement_nodes"), "pp_tokens": run.get("pp_tokens"), "tg": run.get("tg"),
            "repeat": run.get("repeat_index"), "concurrency": run.get("concurrency", 1),
            "prompt_tps": _number(stats.get("prompt_tps")), "generation_tps": _number(stats.get("generation_tps")),
            "peak_memory_gb": round(peak / 1e9, 3) if _number(peak) else None,
            "prefix_cache_hit": stats.get("prefix_cache_hit", "none"), "elapsed_s": _number(run.get("elapsed_s")),
        })
    return {"rows": rows, "nodes_in_cluster": _cluster_nodes(data.get("cluster"))}


def _cluster_nodes(cluster):
    if isinstance(cluster, dict):
        for key in ("nodes", "nodeProfiles", "node_profiles"):
            if isinstance(cluster.get(key), (list, dict)):
                return len(cluster[key])
    return None


def _mean(values):
    values = [v for v in values if v is not None]
    return round(statistics.mean(values), 3) if values else None


def placements(rows):
    """One result per placement and size (model, sharding, instance meta, nodes, pp, tg, concurrency):
    the mean of its repeats, every repeat kept; in the order exo_bench ran them."""
    grouped = {}
    for row in rows:
        key = (row["model"], row["sharding"], row["instance_meta"], row["nodes"], row["pp_tokens"], row["tg"],
               row["concurrency"])
        grouped.setdefault(key, []).append(row)
    results = []
    for key, repeats in grouped.items():
        model, sharding, meta, nodes, pp_tokens, tg, concurrency = key
        results.append({
            "model": model, "sharding": sharding, "instance_meta": meta, "nodes": nodes, "pp_tokens": pp_tokens,
            "tg": tg, "concurrency": concurrency, "unit": "tokens/s",
            "prompt_tps": _mean([r["prompt_tps"] for r in repeats]),
            "generation_tps": _mean([r["generation_tps"] for r in repeats]),
            "peak_memory_gb": max([r["peak_memory_gb"] for r in repeats if r["peak_memory_gb"] is not None] or [None]),
            "repeats": [{"prompt_tps": r["prompt_tps"], "generation_tps": r["generation_tps"]} for r in repeats],
            "prefix_cache_hits": sorted(set(r["prefix_cache_hit"] for r in repeats) - {"none"}),
        })
    return results


def exo_results(output, launcher):
    """(results, problems) from the exo_bench task's {rc, stdout, stderr}. No rows, a failed run or
    output that is not exo_bench's JSON is `bench_exo_failed`; a row served from exo's prefix cache
    (the suite turns it off) is `bench_exo_prefix_cache` (its speed is not a cold prompt's)."""
    words = (output.get("stderr") or "").strip().splitlines()
    try:
        parsed = parse_exo_bench(output.get("stdout") or "")
    except ExoBenchError as exc:
        return [], [problem("bench_exo_failed", "exo_bench on %s did not finish (rc %s): %s; %s" % (
            launcher, output.get("rc"), exc, " / ".join(words[-2:])[-300:] or "no output"), host=launcher)]
    results = placements(parsed["rows"])
    problems = []
    if output.get("rc") not in (0, None) or not results:
        problems.append(problem("bench_exo_failed", "exo_bench on %s measured no placement (rc %s): %s" % (
            launcher, output.get("rc"), " / ".join(words[-2:])[-300:] or "no rows"), host=launcher))
    for result in results:
        if result["prefix_cache_hits"]:
            problems.append(problem("bench_exo_prefix_cache", "exo answered %s %s/%s on %s nodes from its prefix cache "
                                    "(%s): its prompt speed is not a cold prompt's" % (
                                        result["model"], result["sharding"], result["instance_meta"], result["nodes"],
                                        ", ".join(result["prefix_cache_hits"])), host=launcher))
    return results, problems


def exo_measurements(results):
    found = []
    for entry in results:
        subject = "%s %s/%s %s nodes pp%s tg%s" % (entry["model"], entry["sharding"], entry["instance_meta"],
                                                   entry["nodes"], entry["pp_tokens"], entry["tg"])
        for name in ("prompt_tps", "generation_tps"):
            if entry[name] is not None:
                found.append({"suite": "exo", "name": "exo_" + name, "subject": subject, "value": entry[name],
                              "unit": "tokens/s", "repeats": [r[name] for r in entry["repeats"] if r[name] is not None]})
    return found
