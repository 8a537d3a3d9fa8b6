# -*- coding: utf-8 -*-
# PRIVATE to the collection: benchmark.yml's run as a section of the cluster report (action cluster_report).
# Names and behaviour may change without notice. Controller only (the plots need matplotlib).
"""From the benchmark role's raw runs to its section of the one report: the results document
(_bench_results, report.schema.json's $defs/benchmark_results), the run's files beside the report
(benchmark.json, runs/<id>.json, history.jsonl and the plots) and the section a person reads (one table
per suite, the plots, the findings in the report's problems)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ._bench_plots import draw_plots
from ._bench_results import build_document, history_entry, with_server_figures
from ._report_files import write_file
from ._report_sections import section, table

LINK_COLUMNS = ("direction", "port", "cable", "Gbit/s", "repeats", "floor", "verdict")
ALLSUM_COLUMNS = ("backend", "bytes", "latency (us)", "bus GB/s", "algorithm GB/s", "sum")
GENERATE_COLUMNS = ("model", "nodes", "backend", "prompt tokens/s", "generation tokens/s", "peak memory (GB)",
                    "trials", "verdict")
EXO_COLUMNS = ("model", "sharding", "instance", "nodes", "prompt tokens", "generated", "prompt tokens/s",
               "generation tokens/s", "peak memory (GB)", "repeats")
HPL_COLUMNS = ("N", "NB", "P x Q", "ranks", "time (s)", "Gflops", "scaled residual", "check")
SERVE_COLUMNS = ("model", "concurrency", "requests", "first token (s, median)", "first token (s, p90)",
                 "generation tokens/s (median per request)", "throughput tokens/s", "failed")
HISTORY = "history.jsonl"


def command_output(run):
    """{rc, stdout, stderr} of one command task result (a task that never started has only msg)."""
    return {"rc": run.get("rc", 1), "stdout": run.get("stdout", ""), "stderr": run.get("stderr") or run.get("msg", "")}


def allsum_by_backend(runs):
    """{backend: [{size, rc, stdout, stderr}]} from the sweep task's loop results (item: [backend, size])."""
    grouped = {}
    for run in runs:
        if run.get("skipped"):
            continue
        item = run.get("item") or [None, None]
        grouped.setdefault(str(item[0]), []).append(dict(command_output(run), size=item[1]))
    return grouped


def generate_outputs(runs):
    """[(run, {rc, stdout, stderr})] from the generate task's loop results (item: the planned run)."""
    return [(run["item"], command_output(run)) for run in runs
            if not run.get("skipped") and isinstance(run.get("item"), dict)]


def suite_input(run, skipped, settings):
    """A run-once suite's input to the document (exo, hpl): skipped with its reason, run, or not asked for."""
    if skipped:
        return {"skipped": skipped, "settings": settings}
    if run and not run.get("skipped"):
        return {"output": command_output(run), "settings": settings}
    return None


def run_record(given, now):
    record = dict(given)
    record.setdefault("finished", now.strftime("%Y-%m-%dT%H:%M:%SZ"))
    record.setdefault("id", now.strftime("%Y%m%dT%H%M%SZ"))
    return record


def benchmark_document(given, hosts, now):
    """The results document of the benchmark role's runs (the cluster_report action's ``benchmark`` option)."""
    margin = float(given.get("margin_percent", 15.0))
    if not 0 <= margin < 100:
        raise ValueError("margin_percent = %s is refused: it must be at least 0 and below 100" % margin)
    tests = with_server_figures(given.get("tests") or [], given.get("served") or [])
    plan = given["plan"]
    return build_document(run_record(given.get("run") or {}, now), hosts, plan, tests, given.get("macs") or {},
                          given.get("baselines") or {}, margin, given.get("settings") or {},
                          given.get("versions") or {}, given.get("expected_cable") or "tb5",
                          allsum_by_backend(given.get("allsum_runs") or []), given.get("allsum_settings") or {},
                          generate_outputs(given.get("generate_runs") or []), given.get("generate_settings") or {},
                          suite_input(given.get("exo_run"), given.get("exo_skipped"), given.get("exo_settings") or {}),
                          suite_input(given.get("hpl_run"), given.get("hpl_skipped"), dict(plan.get("hpl") or {})),
                          suite_input(given.get("serve_run"), given.get("serve_skipped"),
                                      given.get("serve_settings") or {}))


def read_history(path):
    """The history's entries, oldest first; a line that is not JSON is skipped (a torn write)."""
    entries = []
    if os.path.exists(path):
        with open(path) as handle:
            for line in handle:
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    continue
    return entries


def write_benchmark_files(root, document, write=True):
    """The run's own files beside the report: benchmark.json, runs/<id>.json, one more line of
    history.jsonl, and the plots. (images [(name, caption)], history length, names)."""
    history = read_history(os.path.join(root, HISTORY)) + [history_entry(document)]
    names = ["benchmark.json", "runs/%s.json" % document["run"]["id"], HISTORY]
    if not write:
        return [], len(history), names
    os.makedirs(os.path.join(root, "runs"), exist_ok=True)
    images = draw_plots(root, document, history)
    text = json.dumps(document, indent=2, sort_keys=True) + "\n"
    write_file(os.path.join(root, "benchmark.json"), text)
    write_file(os.path.join(root, "runs", "%s.json" % document["run"]["id"]), text)
    with open(os.path.join(root, HISTORY), "a") as handle:
        handle.write(json.dumps(history[-1], sort_keys=True) + "\n")
    return images, len(history), names + [name for name, _caption in images]


def _number(value, pattern="%.1f"):
    return "-" if value is None else pattern % value


def _link_rows(results):
    return [(r["direction"], r["port"], r["kind"], "%.2f" % r["gbps"], ", ".join("%.2f" % v for v in r["repeats"]),
             "-" if r["floor_gbps"] is None else "%.2f" % r["floor_gbps"], "ok" if r["ok"] else "LOW: " + r["cause"])
            for r in results]


def _allsum_rows(results):
    return [(r["backend"], r["bytes"], "%.1f" % r["latency_us"], "%.3f" % r["bus_gbytes_per_s"],
             "%.3f" % r["algo_gbytes_per_s"], "right" if r["ok"] else "WRONG") for r in results]


def _generate_rows(results):
    return [(r["name"], r["nodes"], "%s, %s" % (r["mode"], r["backend"]) if r["nodes"] > 1 else "one node",
             _number(r["prompt_tps"]), _number(r["generation_tps"]), _number(r["peak_memory_gb"], "%.3f"),
             len(r["trials"]), "ok" if r["ok"] else "FAILED") for r in results]


def _exo_rows(results):
    return [(r["model"], r["sharding"], r["instance_meta"], r["nodes"], r["pp_tokens"], r["tg"], _number(r["prompt_tps"]),
             _number(r["generation_tps"]), _number(r["peak_memory_gb"], "%.3f"), len(r["repeats"])) for r in results]


def _hpl_rows(results):
    return [(r["n"], r["nb"], "%d x %d" % (r["p"], r["q"]), r.get("ranks", "-"), "%.2f" % r["seconds"],
             "%.1f" % r["gflops"], _number(r["residual"], "%.3g"), "passed" if r["passed"] else "FAILED")
            for r in results]


def _serve_rows(results):
    return [(r["model"], r["concurrency"], r["requests"], _number(r["ttft_s"], "%.3f"), _number(r["ttft_s_p90"], "%.3f"),
             _number(r["generation_tps"]), _number(r["throughput_tps"]), r["failed"]) for r in results]


SUITES = (("allsum", "all_sum", ALLSUM_COLUMNS, _allsum_rows),
          ("generate", "Generation (mlx_lm.benchmark)", GENERATE_COLUMNS, _generate_rows),
          ("exo", "exo (bench/exo_bench.py)", EXO_COLUMNS, _exo_rows),
          ("hpl", "HPL", HPL_COLUMNS, _hpl_rows),
          ("serve", "Serving (through the endpoint)", SERVE_COLUMNS, _serve_rows))


def benchmark_section(document, images=()):
    """benchmark.yml's section: one table per suite that ran (a skipped suite says why), the plots and the
    run's files; its data is the results document. The findings are the report's problems."""
    links = document["suites"]["links"]
    notes = ["Run %s, finished %s. %d nodes, %d cables measured in %d rounds (one cable at a time: %d)." % (
        document["run"]["id"], document["run"]["finished"], len(document["cluster"]["nodes"]),
        len(document["cluster"]["cables"]), links["rounds"], links["one_at_a_time"])]
    if not document["problems"]:
        notes.append("Every cable is at or above its baseline less %s %%." % document["margin_percent"])
    notes.append("Baselines: %s." % "; ".join("%s %s Gbit/s (%s)" % (kind, value.get("gbps"), value.get("source", ""))
                                              for kind, value in sorted((document["baselines"].get("links") or {}).items())))
    tables = [table(LINK_COLUMNS, _link_rows(links["results"]), "Links (iperf3)")]
    for key, title, columns, rows_of in SUITES:
        suite = document["suites"].get(key)
        if not suite:
            continue
        if suite.get("skipped"):
            notes.append("%s: skipped: %s" % (title, suite["skipped"]))
            continue
        settings = suite.get("settings") or {}
        if key == "generate":
            notes.append("Generation: %s prompt tokens, %s generated tokens, %s trials after one warm-up run." % (
                settings.get("prompt_tokens", "?"), settings.get("generation_tokens", "?"), settings.get("trials", "?")))
        if key == "serve":
            notes.append("Serving: %s (%s over %s ranks, %s) through %s, streamed chat completions of up to %s tokens, "
                         "%s per client at each concurrency after %s warm-up request(s)." % (
                             settings.get("model", "?"), settings.get("mode") or "?", settings.get("ranks") or "?",
                             settings.get("backend") or "?", settings.get("url", "?"), settings.get("max_tokens", "?"),
                             settings.get("requests", "?"), settings.get("warmup", "?")))
        tables.append(table(columns, rows_of(suite["results"]), title))
    summary = ["%d cables in %d rounds; %d findings" % (
        len(document["cluster"]["cables"]), links["rounds"], len(document["problems"]))]
    summary += ["%s %s: %s" % (p["severity"].upper(), p["code"], p["message"]) for p in document["problems"]]
    files = [{"path": name, "label": caption} for name, caption in images]
    files += [{"path": "benchmark.json", "label": "results (benchmark.json)"},
              {"path": HISTORY, "label": "history (%s)" % HISTORY}]
    return section("benchmark", "Benchmark", summary, tables, files, document, notes)
