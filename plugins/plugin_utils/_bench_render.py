# -*- coding: utf-8 -*-
# PRIVATE to the collection: the benchmark report's plots (matplotlib), HTML and Markdown.
# Names and behaviour may change without notice. Controller only (matplotlib is a controller
# requirement, imported when a plot is drawn).
"""Draw the benchmark's plots as PNG files and write the pages a person opens.

Plots: bandwidth per cable and direction against its baseline floor (links.png), all_sum latency
and bus bandwidth against size (allsum.png), tokens per second per model and node count
(generate.png), and each cable's bandwidth over the runs of the history (history.png, from the
second run on)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import html
import os

from ansible_collections.macops.cluster.plugins.plugin_utils._markdown import md_table

OK_COLOUR, LOW_COLOUR, FLOOR_COLOUR = "#2b8a3e", "#c92a2a", "#495057"


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError as exc:
        raise RuntimeError("the benchmark report draws its plots with matplotlib, which the controller lacks (%s): "
                           "pip install -r requirements/controller.txt" % exc)
    return pyplot


def plot_links(results, path):
    """Bars of Gbit/s per cable and direction, red when below the floor, the floor as a tick."""
    pyplot = _pyplot()
    labels = ["%s\n%s" % (r["direction"], r["port"]) for r in results]
    figure, axes = pyplot.subplots(figsize=(max(6.0, 0.9 * len(results) + 2), 4.2), dpi=110)
    positions = range(len(results))
    axes.bar(positions, [r["gbps"] for r in results],
             color=[OK_COLOUR if r["ok"] else LOW_COLOUR for r in results])
    for position, result in zip(positions, results):
        if result["floor_gbps"] is not None:
            axes.hlines(result["floor_gbps"], position - 0.4, position + 0.4, colors=FLOOR_COLOUR, linestyles="dashed")
        axes.annotate("%.2f" % result["gbps"], (position, result["gbps"]), ha="center", va="bottom", fontsize=8)
    axes.set_xticks(list(positions))
    axes.set_xticklabels(labels, fontsize=7)
    axes.set_ylabel("TCP bandwidth (Gbit/s)")
    axes.set_title("Bandwidth per cable and direction (dashed: baseline less the margin)")
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)


def _subjects(history, unit, prefix=""):
    """The history's subjects in one unit (early lines have one unit for all), optionally by name prefix."""
    found = set()
    for entry in history:
        units = entry.get("units") or dict((subject, entry.get("unit")) for subject in entry["values"])
        found.update(subject for subject, value in units.items() if value == unit and subject.startswith(prefix))
    return sorted(found)


def plot_allsum(results, path):
    """Latency and bus bandwidth against message size, one line per backend (log scales)."""
    pyplot = _pyplot()
    figure, (latency, bus) = pyplot.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    for backend in sorted(set(r["backend"] for r in results)):
        rows = sorted((r for r in results if r["backend"] == backend), key=lambda r: r["bytes"])
        sizes = [r["bytes"] for r in rows]
        latency.plot(sizes, [r["latency_us"] for r in rows], marker="o", label=backend)
        bus.plot(sizes, [r["bus_gbytes_per_s"] for r in rows], marker="o", label=backend)
    for axes, label in ((latency, "latency per all_sum (us)"), (bus, "bus bandwidth (GB/s)")):
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xlabel("message size (bytes)")
        axes.set_ylabel(label)
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
    latency.set_title("all_sum latency")
    bus.set_title("all_sum bus bandwidth")
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)


def plot_generate(results, path):
    """Prompt and generation tokens per second, one group of bars per model, one bar per node count."""
    pyplot = _pyplot()
    rows = [r for r in results if r["ok"]]
    models = sorted(set(r["name"] for r in rows))
    counts = sorted(set(r["nodes"] for r in rows))
    figure, panels = pyplot.subplots(1, 2, figsize=(max(8.0, 2.5 * len(models) + 4), 4.2), dpi=110)
    width = 0.8 / max(1, len(counts))
    for axes, key, label in ((panels[0], "prompt_tps", "prompt (tokens/s)"),
                             (panels[1], "generation_tps", "generation (tokens/s)")):
        for offset, count in enumerate(counts):
            values = [next((r[key] for r in rows if r["name"] == model and r["nodes"] == count), 0) or 0
                      for model in models]
            positions = [index + offset * width for index in range(len(models))]
            bars = axes.bar(positions, values, width, label="%d node%s" % (count, "" if count == 1 else "s"))
            for patch, value in zip(bars, values):
                axes.annotate("%.1f" % value, (patch.get_x() + patch.get_width() / 2, value), ha="center", va="bottom",
                              fontsize=7)
        axes.set_xticks([index + width * (len(counts) - 1) / 2 for index in range(len(models))])
        axes.set_xticklabels(models, fontsize=8)
        axes.set_ylabel(label)
        axes.legend(fontsize=8)
    panels[0].set_title("Prompt processing")
    panels[1].set_title("Generation")
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)


def plot_history(history, path):
    """One line per cable and direction over the runs of the history; a second panel with each
    model's generation tokens per second when the history has them."""
    pyplot = _pyplot()
    panels = [(subjects, label, title) for subjects, label, title in (
        (_subjects(history, "Gbit/s"), "TCP bandwidth (Gbit/s)", "Bandwidth per cable and direction, run by run"),
        (_subjects(history, "tokens/s", "generation_tps "), "generation (tokens/s)", "Generation speed, run by run"))
        if subjects]
    times = [datetime.datetime.fromisoformat(entry["finished"].replace("Z", "+00:00")) for entry in history]
    figure, axes_list = pyplot.subplots(len(panels) or 1, 1, figsize=(10, 4.2 * max(1, len(panels))), dpi=110,
                                        squeeze=False)
    for (subjects, label, title), axes in zip(panels, [row[0] for row in axes_list]):
        for subject in subjects:
            points = [(when, entry["values"][subject]) for when, entry in zip(times, history)
                      if subject in entry["values"]]
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                      label=subject.replace("generation_tps ", ""))
        axes.set_ylabel(label)
        axes.set_title(title)
        if len(subjects) <= 12:
            axes.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    figure.autofmt_xdate()
    figure.tight_layout()
    figure.savefig(path, format="png")
    pyplot.close(figure)


def _rows(results):
    return [(r["direction"], r["port"], r["kind"], "%.2f" % r["gbps"], ", ".join("%.2f" % v for v in r["repeats"]),
             "-" if r["floor_gbps"] is None else "%.2f" % r["floor_gbps"], "ok" if r["ok"] else "LOW: " + r["cause"])
            for r in results]


HEADERS = ("direction", "port", "cable", "Gbit/s", "repeats", "floor", "verdict")
ALLSUM_HEADERS = ("backend", "bytes", "latency (us)", "bus GB/s", "algorithm GB/s", "sum")


def _allsum_rows(results):
    return [(r["backend"], str(r["bytes"]), "%.1f" % r["latency_us"], "%.3f" % r["bus_gbytes_per_s"],
             "%.3f" % r["algo_gbytes_per_s"], "right" if r["ok"] else "WRONG") for r in results]


GENERATE_HEADERS = ("model", "nodes", "backend", "prompt tokens/s", "generation tokens/s", "peak memory (GB)",
                    "trials", "verdict")


def _number(value, pattern="%.1f"):
    return "-" if value is None else pattern % value


def _generate_rows(results):
    return [(r["name"], str(r["nodes"]), "pipeline, %s" % r["backend"] if r["pipeline"] else "one node",
             _number(r["prompt_tps"]), _number(r["generation_tps"]), _number(r["peak_memory_gb"], "%.3f"),
             str(len(r["trials"])), "ok" if r["ok"] else "FAILED") for r in results]


EXO_HEADERS = ("model", "sharding", "instance", "nodes", "prompt tokens", "generated", "prompt tokens/s",
               "generation tokens/s", "peak memory (GB)", "repeats")


def _exo_rows(results):
    return [(str(r["model"]), str(r["sharding"]), str(r["instance_meta"]), str(r["nodes"]), str(r["pp_tokens"]),
             str(r["tg"]), _number(r["prompt_tps"]), _number(r["generation_tps"]), _number(r["peak_memory_gb"], "%.3f"),
             str(len(r["repeats"]))) for r in results]


HPL_HEADERS = ("N", "NB", "P x Q", "ranks", "time (s)", "Gflops", "scaled residual", "check")


def _hpl_rows(results):
    return [(str(r["n"]), str(r["nb"]), "%d x %d" % (r["p"], r["q"]), str(r.get("ranks", "-")), "%.2f" % r["seconds"],
             "%.1f" % r["gflops"], _number(r["residual"], "%.3g"),
             "passed" if r["passed"] else "FAILED") for r in results]


def _run_once_suites(document):
    """(title, headers, rows, oks) of the exo and hpl sections that ran or were skipped; a skipped suite has
    rows None and its reason in place of oks."""
    sections = []
    for key, title, headers, rows_of, ok_of in (
            ("exo", "exo (bench/exo_bench.py)", EXO_HEADERS, _exo_rows, lambda r: True),
            ("hpl", "HPL", HPL_HEADERS, _hpl_rows, lambda r: r["passed"])):
        suite = document["suites"].get(key)
        if not suite:
            continue
        if suite.get("skipped"):
            sections.append((title, headers, None, suite["skipped"]))
        else:
            sections.append((title, headers, rows_of(suite["results"]), [ok_of(r) for r in suite["results"]]))
    return sections


def _html_table(headers, rows, oks):
    esc = html.escape
    parts = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % h for h in headers)]
    for row, ok in zip(rows, oks):
        parts.append("<tr%s>%s</tr>" % ("" if ok else " class='low'", "".join("<td>%s</td>" % esc(c) for c in row)))
    parts.append("</table>")
    return "".join(parts)


def render_html(document, images):
    links = document["suites"]["links"]
    allsum_image = any(name == "allsum.png" for name, _caption in images)
    esc = html.escape
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Mac cluster benchmark</title>",
             "<style>body{font-family:-apple-system,Helvetica,Arial,sans-serif;margin:2em;max-width:70em}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}"
             ".low{color:%s;font-weight:bold}img{max-width:100%%}</style></head><body>" % LOW_COLOUR,
             "<h1>Mac cluster benchmark</h1>",
             "<p>Run %s, finished %s. %d nodes, %d cables measured in %d rounds (one cable at a time: %d).</p>" % (
                 esc(document["run"]["id"]), esc(document["run"]["finished"]), len(document["cluster"]["nodes"]),
                 len(document["cluster"]["cables"]), links["rounds"], links["one_at_a_time"])]
    problems = document["problems"]
    parts.append("<h2>Findings</h2>")
    if problems:
        parts.append("<ul>" + "".join("<li class='low'>%s %s: %s <br>Fix: %s</li>" % (
            esc(p["severity"]), esc(p["code"]), esc(p["message"]), esc(p["fix"] or "")) for p in problems) + "</ul>")
    else:
        parts.append("<p>Every cable is at or above its baseline less %s %%.</p>" % document["margin_percent"])
    parts.append("<h2>Links</h2>")
    for name, caption in [image for image in images if image[0] not in ("allsum.png", "generate.png")]:
        parts.append("<figure><img src='%s' alt='%s'><figcaption>%s</figcaption></figure>" % (
            esc(name), esc(caption), esc(caption)))
    parts.append(_html_table(HEADERS, _rows(links["results"]), [r["ok"] for r in links["results"]]))
    allsum = document["suites"].get("allsum")
    if allsum:
        parts.append("<h2>all_sum</h2>")
        if allsum_image:
            parts.append("<figure><img src='allsum.png' alt='all_sum latency and bus bandwidth'><figcaption>"
                         "all_sum latency and bus bandwidth per message size and backend</figcaption></figure>")
        parts.append(_html_table(ALLSUM_HEADERS, _allsum_rows(allsum["results"]), [r["ok"] for r in allsum["results"]]))
    generate = document["suites"].get("generate")
    if generate:
        parts.append("<h2>Generation (mlx_lm.benchmark)</h2>")
        settings = generate.get("settings") or {}
        parts.append("<p>%s prompt tokens, %s generated tokens, %s trials after one warm-up run.</p>" % (
            esc(str(settings.get("prompt_tokens", "?"))), esc(str(settings.get("generation_tokens", "?"))),
            esc(str(settings.get("trials", "?")))))
        if any(name == "generate.png" for name, _caption in images):
            parts.append("<figure><img src='generate.png' alt='tokens per second per model and node count'>"
                         "<figcaption>Tokens per second per model and node count</figcaption></figure>")
        parts.append(_html_table(GENERATE_HEADERS, _generate_rows(generate["results"]),
                                 [r["ok"] for r in generate["results"]]))
    for title, headers, rows, oks in _run_once_suites(document):
        parts.append("<h2>%s</h2>" % esc(title))
        if rows is None:
            parts.append("<p>Skipped: %s</p>" % esc(oks))
        else:
            parts.append(_html_table(headers, rows, oks))
    parts.append("<p>Baselines: %s. Machine-readable results: <a href='benchmark.json'>benchmark.json</a>, "
                 "history: <a href='history.jsonl'>history.jsonl</a>.</p>" % esc(
                     "; ".join("%s %s Gbit/s (%s)" % (kind, value.get("gbps"), value.get("source", ""))
                               for kind, value in sorted((document["baselines"].get("links") or {}).items()))))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def render_markdown(document, images):
    links = document["suites"]["links"]
    lines = ["# Mac cluster benchmark", "",
             "Run %s, finished %s: %d cables in %d rounds (one at a time: %d)." % (
                 document["run"]["id"], document["run"]["finished"], len(document["cluster"]["cables"]),
                 links["rounds"], links["one_at_a_time"]), ""]
    for problem in document["problems"]:
        lines.append("- **%s** `%s`: %s Fix: %s" % (
            problem["severity"], problem["code"], problem["message"], problem["fix"]))
    if not document["problems"]:
        lines.append("Every cable is at or above its baseline less %s %%." % document["margin_percent"])
    lines.append("")
    lines.extend("![%s](%s)" % (caption, name) for name, caption in images)
    lines.extend([""] + md_table(HEADERS, _rows(links["results"])))
    allsum = document["suites"].get("allsum")
    if allsum:
        lines.extend(["", "## all_sum", ""] + md_table(ALLSUM_HEADERS, _allsum_rows(allsum["results"])))
    generate = document["suites"].get("generate")
    if generate:
        lines.extend(["", "## Generation (mlx_lm.benchmark)", ""]
                     + md_table(GENERATE_HEADERS, _generate_rows(generate["results"])))
    for title, headers, rows, oks in _run_once_suites(document):
        lines.extend(["", "## %s" % title, ""])
        lines.extend(["Skipped: %s" % oks] if rows is None else md_table(headers, rows))
    return "\n".join(lines) + "\n"


def write_report(dest, document, history):
    """Write the plots, index.html and README.md into dest; the image file names with captions."""
    images = []
    if document["suites"]["links"]["results"]:
        plot_links(document["suites"]["links"]["results"], os.path.join(dest, "links.png"))
        images.append(("links.png", "Bandwidth per cable and direction"))
    allsum = document["suites"].get("allsum")
    if allsum and allsum["results"]:
        plot_allsum(allsum["results"], os.path.join(dest, "allsum.png"))
        images.append(("allsum.png", "all_sum latency and bus bandwidth"))
    generate = document["suites"].get("generate")
    if generate and any(r["ok"] for r in generate["results"]):
        plot_generate(generate["results"], os.path.join(dest, "generate.png"))
        images.append(("generate.png", "Tokens per second per model and node count"))
    if len(history) >= 2:
        plot_history(history, os.path.join(dest, "history.png"))
        images.append(("history.png", "Bandwidth and generation speed over the runs of the history"))
    return images, render_html(document, images), render_markdown(document, images)
