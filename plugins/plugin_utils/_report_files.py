# -*- coding: utf-8 -*-
# PRIVATE to the collection: the files of the cluster health report (action cluster_report).
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""What the report directory holds for one report model, as {relative path: text}: report.json,
the page, the Markdown, the drawing and the MLX hostfiles, each rendered once here."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

from ._mlx_hostfiles import hostfile_json
from ._report_model import HOSTFILE_BACKENDS
from ._report_render import render_html, render_markdown
from ._svg_cabling import cabling_svg

GRAPHVIZ_FILE = "cabling-graphviz.svg"
# Each run's report beside the latest: history/<UTC time>/ with these files, the newest `keep` of them (runs/ is the
# benchmark's own results, one file per run).
RUNS_DIR = "history"
RUN_FILES = ("report.json", "report.md", "index.html")


def write_file(path, text):
    """Write text through a temporary file in the same directory (made if missing), so a reader
    never sees half a file; the report and the benchmark's files beside it are written this way."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o755)
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "wb") as handle:
        handle.write(text.encode("utf-8"))
    os.chmod(temporary, 0o644)
    os.rename(temporary, path)


def report_json(model):
    """report.json: sorted keys and two-space indents, so a diff between two runs stays small."""
    return json.dumps(model, indent=2, sort_keys=True, separators=(",", ": "), ensure_ascii=False) + "\n"


def report_files(model, topology, graphviz_svg=None):
    """(files, stale): `files` maps each path under the report directory to its text, `stale`
    lists the paths that must not be left behind (a hostfile the cabling no longer allows, a
    Graphviz drawing this run could not render)."""
    files = {
        "report.json": report_json(model),
        "cabling.svg": cabling_svg(model),
        "index.html": render_html(model, graphviz_href=GRAPHVIZ_FILE if graphviz_svg else None),
        "report.md": render_markdown(model),
    }
    stale = []
    if graphviz_svg:
        files[GRAPHVIZ_FILE] = graphviz_svg.rstrip("\n") + "\n"
    else:
        stale.append(GRAPHVIZ_FILE)
    hostfiles = (model.get("topology") or {}).get("hostfiles") or {}
    for backend in HOSTFILE_BACKENDS:
        entry = hostfiles.get(backend) or {}
        if entry.get("available"):
            files[entry.get("path") or "hostfiles/%s.json" % backend] = hostfile_json(topology, backend)
        else:
            stale.append("hostfiles/%s.json" % backend)
    return files, stale


def keep_run(root, files, keep, stamp):
    """This run's report.json, report.md and index.html copied to root/history/STAMP/ (an AWX job's or a nightly
    doctor's reports otherwise overwrite each other), then only the newest `keep` runs left; the runs removed.
    `keep` 0 keeps none (and removes none)."""
    if keep <= 0:
        return []
    runs = os.path.join(root, RUNS_DIR)
    for name in RUN_FILES:
        if name in files:
            write_file(os.path.join(runs, stamp, name), files[name])
    kept = sorted(name for name in os.listdir(runs) if os.path.isdir(os.path.join(runs, name)))
    removed = kept[:-keep]
    for name in removed:
        for entry in os.listdir(os.path.join(runs, name)):
            os.unlink(os.path.join(runs, name, entry))
        os.rmdir(os.path.join(runs, name))
    return removed
