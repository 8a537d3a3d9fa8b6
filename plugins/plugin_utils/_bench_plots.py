# -*- coding: utf-8 -*-
# PRIVATE to the collection: the benchmark's plots (matplotlib), files of its section of the report.
# Names and behaviour may change without notice. Controller only (matplotlib is a controller
# requirement, imported when a plot is drawn).
"""Draw the benchmark's plots as PNG files; the report's benchmark section shows them (_bench_section).

Plots: bandwidth per cable and direction against its baseline floor (links.png), all_sum latency
and bus bandwidth against size (allsum.png), tokens per second per model and node count
(generate.png), the served model's time to first token and tokens per second against concurrency
(serve.png), and each cable's bandwidth over the runs of the history (history.png, from the
second run on)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os

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


def plot_serve(results, path):
    """Against the number of concurrent clients: the time to first token (median, the bar up to the 90th
    percentile), and tokens per second (each request's median, and every client's together)."""
    pyplot = _pyplot()
    rows = sorted((r for r in results if r["answered"]), key=lambda r: r["concurrency"])
    levels = [r["concurrency"] for r in rows]
    figure, (first, rate) = pyplot.subplots(1, 2, figsize=(11, 4.2), dpi=110)
    medians = [r["ttft_s"] or 0 for r in rows]
    upper = [max(0.0, (r["ttft_s_p90"] or 0) - (r["ttft_s"] or 0)) for r in rows]
    first.errorbar(levels, medians, yerr=[[0] * len(rows), upper], marker="o", capsize=4, label="median (bar: p90)")
    rate.plot(levels, [r["generation_tps"] or 0 for r in rows], marker="o", label="per request (median)")
    rate.plot(levels, [r["throughput_tps"] or 0 for r in rows], marker="s", label="all clients together")
    for axes, label in ((first, "time to first token (s)"), (rate, "generation (tokens/s)")):
        axes.set_xscale("log", base=2)
        axes.set_xticks(levels)
        axes.set_xticklabels([str(level) for level in levels])
        axes.set_xlabel("concurrent clients")
        axes.set_ylabel(label)
        axes.set_ylim(bottom=0)
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize=8)
    model = rows[0]["model"] if rows else ""
    first.set_title("Time to first token: %s" % model)
    rate.set_title("Tokens per second through the endpoint")
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


def draw_plots(dest, document, history):
    """Draw the run's plots into dest: [(file name, caption)] of those there is data for."""
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
    serve = document["suites"].get("serve")
    if serve and any(r["answered"] for r in serve["results"]):
        plot_serve(serve["results"], os.path.join(dest, "serve.png"))
        images.append(("serve.png", "The served model: time to first token and tokens per second by concurrency"))
    if len(history) >= 2:
        plot_history(history, os.path.join(dest, "history.png"))
        images.append(("history.png", "Bandwidth and generation speed over the runs of the history"))
    return images
