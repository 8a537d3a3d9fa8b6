# -*- coding: utf-8 -*-
# PRIVATE to the collection: HTML and Markdown of the cluster health report (roles/report).
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Render a report model (see _report_model) for people: one self-contained HTML page and a
Markdown twin for terminals and pull-request comments.

The page needs no network and no JavaScript: CSS and the cabling SVG are inline, so it can be
mailed, attached to a ticket or printed. Problems come first, each with its host, port and fix.
Every string from the inputs is escaped: host names, messages and fixes come from machines and
from other roles, and a report must never run what it displays.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from html import escape as _html_escape

from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import release

from ._markdown import md_table
from ._report_model import SEVERITIES, checked_model
from ._svg_cabling import draw_cabling
from ._topology_common import describe_speed

NOT_CHECKED = "not checked"
SEVERITY_LABELS = {"error": "Error", "warning": "Warning", "info": "Info"}
VERDICT_TEXT = {
    "healthy": "Healthy: every check passed.",
    "degraded": "Degraded: the cluster works, but not as intended.",
    "failed": "Failed: at least one problem blocks the cluster.",
}
SOFTWARE_COLUMNS = (("python", "Python"), ("mlx", "MLX"), ("mlx_lm", "mlx-lm"), ("exo", "exo"))

CSS = """
:root{--ok:#1a7f37;--ok-bg:#dafbe1;--warning:#9a6700;--warning-bg:#fff8c5;--error:#cf222e;--error-bg:#ffebe9;
--info:#0969da;--info-bg:#ddf4ff;--muted:#57606a;--line:#d0d7de;--ink:#1f2328;--paper:#fff;--panel:#f6f8fa}
*{box-sizing:border-box}
html{-webkit-print-color-adjust:exact;print-color-adjust:exact}
body{margin:0;background:var(--panel);color:var(--ink);
font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 24px 48px}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:18px;margin:32px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
code{background:rgba(175,184,193,.25);padding:1px 5px;border-radius:5px;overflow-wrap:anywhere}
.muted,.nc{color:var(--muted)}
.nc{font-style:italic}
header.top{display:flex;gap:20px;align-items:flex-start;justify-content:space-between;flex-wrap:wrap;
background:var(--paper);border:1px solid var(--line);border-radius:12px;padding:20px 24px}
header.top>div:first-child{flex:1 1 520px}
.verdict{flex:0 0 auto;border-radius:10px;padding:12px 18px;min-width:260px;border:2px solid}
.verdict strong{display:block;font-size:22px;text-transform:uppercase;letter-spacing:.04em}
.verdict-healthy{color:var(--ok);background:var(--ok-bg);border-color:var(--ok)}
.verdict-degraded{color:var(--warning);background:var(--warning-bg);border-color:var(--warning)}
.verdict-failed{color:var(--error);background:var(--error-bg);border-color:var(--error)}
.stats{display:flex;gap:10px;flex-wrap:wrap;margin-top:12px;padding:0;list-style:none}
.stats li{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:6px 12px}
.stats b{font-size:18px;margin-right:4px}
.run{margin-top:8px;font-size:12.5px}
.problems{display:grid;gap:10px}
.problem{background:var(--paper);border:1px solid var(--line);border-left:6px solid;border-radius:8px;
padding:12px 16px;break-inside:avoid}
.problem-error{border-left-color:var(--error)}.problem-warning{border-left-color:var(--warning)}
.problem-info{border-left-color:var(--info)}
.problem .head{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.problem p{margin:6px 0 0}
.where{font-weight:600}
.fix{margin-top:8px;background:var(--panel);border-radius:6px;padding:8px 12px}
.fix b{color:var(--ink)}
.sev{display:inline-block;border-radius:999px;padding:1px 10px;font-size:12px;font-weight:700}
.sev-error{background:var(--error-bg);color:var(--error)}.sev-warning{background:var(--warning-bg);color:var(--warning)}
.sev-info{background:var(--info-bg);color:var(--info)}.sev-ok{background:var(--ok-bg);color:var(--ok)}
.sev-unknown{background:#eaeef2;color:var(--muted)}
.none{background:var(--ok-bg);color:var(--ok);border:1px solid var(--ok);border-radius:8px;padding:12px 16px}
table{width:100%;border-collapse:collapse;background:var(--paper);border:1px solid var(--line);border-radius:8px;
overflow:hidden;font-size:13px}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel);font-size:12px;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}
tr:last-child td{border-bottom:0}
tr.row-error td:first-child{box-shadow:inset 4px 0 var(--error)}
tr.row-warning td:first-child{box-shadow:inset 4px 0 var(--warning)}
.figure{background:var(--paper);border:1px solid var(--line);border-radius:8px;padding:12px;text-align:center}
.figure svg{max-width:100%;height:auto}
figure img{max-width:100%;height:auto}
.figure p{margin:6px 0 0;font-size:12.5px}
footer{margin-top:36px;font-size:12px;color:var(--muted)}
@media print{body{background:#fff;font-size:11.5px}main{max-width:none;padding:0}
header.top,.problem,table,.figure{border-color:#999}h2{break-after:avoid}tr{break-inside:avoid}
.figure{break-inside:avoid}a{color:inherit;text-decoration:none}}
"""


def _e(value):
    return _html_escape(str(value), quote=True)


def _rich(text):
    """Escaped text in which `backquoted` commands become <code>: fixes quote exact commands."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", _e(text))


def _nc():
    return '<span class="nc">%s</span>' % NOT_CHECKED


def _or_nc(value):
    return _nc() if value is None or value == "" else _e(value)


def _sev_chip(severity, text=None):
    return '<span class="sev sev-%s">%s</span>' % (_e(severity), _e(text or SEVERITY_LABELS.get(severity, severity)))


def _plural(count, word):
    # "info" is a mass noun: 2 errors, 1 warning, 3 info.
    return "%d %s%s" % (count, word, "" if count == 1 or word == "info" else "s")


def _where(problem):
    parts = []
    if problem.get("host"):
        parts.append(problem["host"])
    if problem.get("port"):
        parts.append("port " + problem["port"] if not str(problem["port"]).startswith("port") else problem["port"])
    where = " \u00b7 ".join(parts) or "whole cluster"
    if problem.get("peer"):
        where += " \u2192 " + problem["peer"]
    return where


def model_line(node):
    hardware = node.get("hardware")
    if not hardware:
        return None
    model = " ".join(v for v in (hardware.get("model_name"), "(%s)" % hardware["model_id"]
                                 if hardware.get("model_id") else None) if v)
    return " \u2013 ".join(v for v in (model, hardware.get("chip")) if v) or None


def memory_text(node):
    hardware = node.get("hardware") or {}
    return None if hardware.get("memory_gb") is None else "%d GB" % hardware["memory_gb"]


def macos_text(node):
    hardware = node.get("hardware") or {}
    if not hardware.get("macos_version"):
        return None
    return "%s (%s)" % (release(hardware["macos_version"], hardware.get("macos_version_extra")),
                        hardware.get("macos_build") or "build ?")


def rdma_text(node):
    rdma = node.get("rdma")
    if rdma is None:
        return None
    state = {True: "enabled", False: "disabled"}.get(rdma.get("enabled"), "unknown")
    ports = rdma.get("ports") or []
    active = len([p for p in ports if p.get("active")])
    text = "%s, %d/%d ports active" % (state, active, len(ports))
    return text + (", ready" if rdma.get("ready") else ", not ready")


def gpu_text(node):
    gpu = node.get("gpu")
    if gpu is None or gpu.get("wired_limit_mb") is None:
        return None
    text = "%s MB" % gpu["wired_limit_mb"]
    if gpu.get("target_mb") is not None and gpu["target_mb"] != gpu["wired_limit_mb"]:
        text += " (plan: %s MB)" % gpu["target_mb"]
    return text


def services_text(node):
    services = node.get("services")
    if services is None:
        return None
    if not services:
        return "none"
    return ", ".join("%s %s" % (s["name"], {True: "running", False: "STOPPED"}.get(s["running"], "unknown"))
                     for s in services)


def checks_text(node):
    checks = node.get("checks")
    if checks is None:
        return None
    passed = len([c for c in checks if c.get("ok") is True])
    return "%d/%d passed" % (passed, len(checks))


def reachable_text(node):
    return {True: "yes", False: "NO"}.get(node.get("reachable"))


def _status_text(status):
    return {"ok": "OK", "error": "Error", "warning": "Warning", "unknown": "Not checked"}.get(status, status)


def summary_facts(model):
    """(number, label) pairs for the header and the Markdown summary line. What the run did not read
    says so (a benchmark run plans no cables: "not checked", not 0)."""
    summary = model["summary"]
    rdma_read = any(node.get("rdma") for node in model["nodes"])
    return [
        (summary["nodes"], "nodes"),
        ("%d/%d" % (summary["reachable"], summary["nodes"]), "reachable"),
        ("%d/%d" % (summary["rdma_ready"], summary["nodes"]) if rdma_read else NOT_CHECKED, "RDMA ready"),
        (summary["links"] if model["topology"]["planned"] else NOT_CHECKED, "cables"),
        ((summary["topology_class"] or NOT_CHECKED).replace("_", " "), "topology"),
    ]


def counts_text(model):
    counts = model["summary"]["problems"]
    return ", ".join(_plural(counts[s], s) for s in SEVERITIES)


def run_facts(model):
    run = model.get("run") or {}
    labels = (("playbook", "Playbook"), ("started", "Started"), ("finished", "Finished"),
              ("ansible_version", "Ansible"), ("check_mode", "Check mode"))
    facts = [(label, run[key]) for key, label in labels if run.get(key) not in (None, "")]
    return facts


def _header(model):
    verdict = model["verdict"]
    stats = "".join("<li><b>%s</b>%s</li>" % (_e(number), _e(label)) for number, label in summary_facts(model))
    run = run_facts(model)
    run_html = ""
    if run:
        run_html = '<div class="run muted">%s</div>' % " \u00b7 ".join(
            "%s: <span class=\"mono\">%s</span>" % (_e(label), _e(value)) for label, value in run)
    return ('<header class="top"><div><h1>%s</h1><ul class="stats">%s</ul>%s</div>'
            '<div class="verdict verdict-%s" role="status"><strong>%s</strong>%s<br>%s</div></header>') % (
        _e(model["title"]), stats, run_html, _e(verdict), _e(verdict), _e(VERDICT_TEXT.get(verdict, "")),
        _e(counts_text(model)))


def _problems(model):
    problems = model["problems"]
    if not problems:
        return '<h2 id="problems">Problems</h2><div class="none">No problems found.</div>'
    cards = []
    for problem in problems:
        cards.append(
            '<article class="problem problem-%s"><div class="head">%s<code>%s</code><span class="where">%s</span>'
            '</div><p>%s</p><div class="fix"><b>Fix:</b> %s</div></article>' % (
                _e(problem["severity"]), _sev_chip(problem["severity"]), _e(problem["code"]),
                _e(_where(problem)), _rich(problem["message"]), _rich(problem["fix"])))
    return '<h2 id="problems">Problems (%s)</h2><div class="problems">%s</div>' % (
        _e(counts_text(model)), "".join(cards))


def _table(headers, rows, row_classes=None):
    head = "".join("<th>%s</th>" % _e(h) for h in headers)
    body = []
    for index, row in enumerate(rows):
        css = (row_classes or [None] * len(rows))[index]
        body.append("<tr%s>%s</tr>" % (' class="%s"' % _e(css) if css else "",
                                       "".join("<td>%s</td>" % cell for cell in row)))
    return "<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>" % (head, "".join(body))


def _nodes(model):
    nodes = model["nodes"]
    if not nodes:
        return '<h2 id="nodes">Nodes</h2><p class="nc">No nodes.</p>'
    rows, classes = [], []
    for node in nodes:
        rows.append([
            "<b>%s</b>" % _e(node["name"]), _sev_chip(node["status"], _status_text(node["status"])),
            _or_nc(reachable_text(node)), _or_nc(model_line(node)), _or_nc(memory_text(node)),
            _or_nc(macos_text(node)), _or_nc(rdma_text(node)), _or_nc(gpu_text(node)),
        ])
        classes.append("row-%s" % node["status"])
    hardware = _table(["Node", "Status", "Reachable", "Model", "Memory", "macOS", "RDMA", "GPU wired limit"],
                      rows, classes)
    software_rows = []
    for node in nodes:
        software = node.get("software")
        cells = ["<b>%s</b>" % _e(node["name"])]
        cells += [_nc() if software is None else _or_nc(software.get(key)) for key, _label in SOFTWARE_COLUMNS]
        cells += [_or_nc(services_text(node)), _or_nc(checks_text(node))]
        software_rows.append(cells)
    software_table = _table(["Node"] + [label for _key, label in SOFTWARE_COLUMNS] + ["Services", "Checks"],
                            software_rows)
    return '<h2 id="nodes">Nodes</h2>%s<h2 id="software">Software and services</h2>%s' % (hardware, software_table)


def model_rows(model):
    """[(name, runtime, where, size, state)] for the deployed models, as text, one row per model."""
    rows = []
    for entry in model.get("models") or []:
        runtime = " ".join(str(part) for part in (entry.get("runtime"), entry.get("runtime_version")) if part)
        if entry.get("copies"):
            runtime += " (%s)" % ("a full copy per node" if entry["copies"] == "full" else "each rank its files")
        where = ", ".join("%s %s" % (copy["host"], ("layers %d-%d" % (copy["layers"][0], copy["layers"][1] - 1))
                                     if isinstance(copy["layers"], list) and len(copy["layers"]) == 2 else "")
                          for copy in entry["nodes"])
        broken = [copy["host"] for copy in entry["nodes"] if not copy["complete"]]
        state = "complete on every node" if entry["complete"] else (
            "incomplete on %s" % ", ".join(broken) if broken else "a rank is on no node")
        name = entry.get("name") or "?"
        if entry.get("model_id"):
            name += " (%s)" % entry["model_id"]
        rows.append((name, runtime or None, where, "%.2f GB" % (entry["bytes"] / 1e9), state))
    return rows


def _section(anchor, title, headers, rows):
    """A titled table, or nothing when it has no rows."""
    return '<h2 id="%s">%s</h2>%s' % (anchor, _e(title), _table(headers, rows)) if rows else ""


def _models(model):
    return _section("models", "Deployed models", ["Model", "Runtime", "Nodes and layers", "On disk", "State"], [
        [_e(name), _or_nc(runtime), _e(where), _e(size),
         _sev_chip("ok" if state.startswith("complete") else "warning", state)]
        for name, runtime, where, size, state in model_rows(model)])


def _cabling(model, svg, graphviz_href):
    topology = model["topology"]
    figure = '<div class="figure">%s%s</div>' % (svg, (
        '<p><a href="%s">Graphviz rendering of the same cabling</a></p>' % _e(graphviz_href)) if graphviz_href else "")
    links = topology["links"]
    if links:
        rows, classes = [], []
        for link in links:
            problem_codes = ", ".join("<code>%s</code>" % _e(c) for c in link["problem_codes"])
            rows.append([
                "<b>%s</b> %s" % (_e(link["a"]["host"]), _e(link["a"]["port"])),
                "<b>%s</b> %s" % (_e(link["b"]["host"]), _e(link["b"]["port"])),
                _e(describe_speed(link["speed_gbps"])),
                _or_nc(link["subnet"]),
                "%s \u2194 %s" % (_or_nc(link["a"]["ip"]), _or_nc(link["b"]["ip"])),
                problem_codes or '<span class="muted">none</span>',
            ])
            classes.append("row-%s" % link["severity"] if link["severity"] in ("error", "warning") else None)
        table = _table(["From", "To", "Speed", "Subnet", "Addresses", "Problems"], rows, classes)
    else:
        table = '<p class="nc">No cables found.</p>'
    missing = ""
    if topology["missing_pairs"]:
        missing = '<p>Pairs without a cable (a full mesh needs one each): %s</p>' % ", ".join(
            "%s \u2013 %s" % (_e(a), _e(b)) for a, b in topology["missing_pairs"])
    ring = topology.get("ring_order")
    ring_html = '<p>Ring order: %s</p>' % _e(" \u2192 ".join(ring + ring[:1])) if ring else ""
    return '<h2 id="cabling">Cabling</h2>%s<h2 id="cables">Cables</h2>%s%s%s' % (figure, table, missing, ring_html)


def device_rows(model):
    """(node, port, device, link) for every drive, dock or display on a Thunderbolt port: the
    report lists them so that a port holding one is not mistaken for a free or missing cable."""
    rows = []
    for node in model["nodes"]:
        for device in (node.get("thunderbolt") or {}).get("devices") or []:
            link = ", ".join(v for v in (device.get("mode"), device.get("speed")) if v)
            if device.get("upstream"):
                link = ", ".join(v for v in (link, "behind " + device["upstream"]) if v)
            rows.append((node["name"], device["port"], device["description"], link))
    return rows


def _devices(model):
    return _section("devices", "Thunderbolt devices (not Macs)", ["Node", "Port", "Device", "Link"], [
        ["<b>%s</b>" % _e(node), _e(port), _e(device), _e(link) if link else '<span class="muted">\u2013</span>']
        for node, port, device, link in device_rows(model)])


def _hostfiles(model):
    rows = []
    for backend in sorted(model["topology"]["hostfiles"]):
        entry = model["topology"]["hostfiles"][backend]
        if entry["available"]:
            rows.append(["<code>%s</code>" % _e(backend), _sev_chip("ok", "written"),
                         '<a href="%s">%s</a>' % (_e(entry["path"]), _e(entry["path"])),
                         _e(" \u2192 ".join(entry["hosts"]))])
        else:
            rows.append(["<code>%s</code>" % _e(backend), _sev_chip("unknown", "unavailable"),
                         '<span class="muted">\u2013</span>',
                         '<span class="muted">the cabling does not allow it (see Problems)</span>'])
    choice = model["topology"].get("mlx_backend")
    chosen = ('<p>Backend: <code>%s</code>. %s</p>' % (_e(choice["backend"] or "none"), _e(choice["reason"]))
              if choice else '<p class="muted">Backend: not chosen (the rdma role did not run).</p>')
    return '<h2 id="hostfiles">MLX hostfiles</h2>%s%s' % (
        chosen, _table(["Backend", "State", "File", "Rank order"], rows))


def _file_links(entry):
    return " \u00b7 ".join('<a href="%s">%s</a>' % (_e(f["path"]), _e(f.get("label") or f["path"]))
                           for f in entry["files"])


def _operations(model):
    """Each operation's section (docs/report.md): its notes, its tables, and links to its own files
    (a plot is shown as its image)."""
    parts = []
    for entry in model.get("sections") or []:
        body = "".join("<p>%s</p>" % _e(note) for note in entry["notes"])
        for table in entry["tables"]:
            caption = "<h3>%s</h3>" % _e(table["caption"]) if table["caption"] else ""
            body += caption + (_table(table["columns"], [[_or_nc(cell) for cell in row] for row in table["rows"]])
                               if table["rows"] else '<p class="muted">none</p>')
        body += "".join('<figure><img src="%s" alt="%s"><figcaption>%s</figcaption></figure>' % (
            _e(f["path"]), _e(f.get("label") or f["path"]), _e(f.get("label") or f["path"]))
            for f in entry["files"] if f["path"].endswith(".png"))
        others = [f for f in entry["files"] if not f["path"].endswith(".png")]
        if others:
            body += "<p>%s</p>" % _file_links(dict(entry, files=others))
        parts.append('<h2 id="%s">%s</h2>%s' % (_e(entry["operation"]), _e(entry["title"]), body))
    return "".join(parts)


def render_html(model, graphviz_href=None, svg=None):
    """The whole page; `svg` defaults to draw_cabling(model), `graphviz_href` links a Graphviz drawing."""
    model = checked_model(model)
    if svg is None:
        svg = draw_cabling(model)
    footer = ("Report schema %s \u00b7 state fingerprint <span class=\"mono\">%s</span> \u00b7 written by the "
              "macops.cluster report role. Machine-readable: <a href=\"report.json\">report.json</a>, "
              "<a href=\"report.md\">report.md</a>.") % (_e(model["schema_version"]), _e(model["fingerprint"][:16]))
    benchmark = (model.get("run") or {}).get("benchmark_report")
    if benchmark:
        footer += " Latest benchmark: <a href=\"%s\">%s</a>." % (_e(benchmark), _e(benchmark))
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        "<title>%s \u2013 %s</title>" % (_e(model["title"]), _e(model["verdict"])),
        "<style>%s</style></head>\n<body><main>" % CSS.strip(),
        _header(model), _problems(model), _operations(model), _nodes(model), _models(model),
        _cabling(model, svg, graphviz_href),
        _devices(model),
        _hostfiles(model),
        "<footer>%s</footer></main></body></html>\n" % footer,
    ])


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md(value):
    """Text safe in a Markdown table cell: specials backslash-escaped (CommonMark), one line."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", re.sub(r"\s+", " ", str(value)))


def _md_or_nc(value):
    return "_%s_" % NOT_CHECKED if value is None or value == "" else md(value)


def _md_rich(text):
    """Escaped text whose `backquoted` commands stay code spans (their content is left verbatim)."""
    pieces = re.split(r"(`[^`]+`)", re.sub(r"\s+", " ", str(text)).strip())
    return "".join(p.replace("|", "\\|") if p.startswith("`") and p.endswith("`") and len(p) > 1 else md(p)
                   for p in pieces)


def render_markdown(model):
    """The report as GitHub-flavoured Markdown: same order as the HTML, problems first."""
    model = checked_model(model)
    lines = ["# %s: %s" % (md(model["title"]), model["verdict"].upper()), ""]
    lines.append("**%s** %s" % (model["verdict"], md(VERDICT_TEXT.get(model["verdict"], ""))))
    lines.append("")
    lines.append(" \u00b7 ".join("%s %s" % (md(number), label) for number, label in summary_facts(model)))
    run = run_facts(model)
    if run:
        lines += ["", " \u00b7 ".join("%s: %s" % (label, md(value)) for label, value in run)]
    if (model.get("run") or {}).get("benchmark_report"):
        lines += ["", "Latest benchmark: [%s](%s)" % (md(model["run"]["benchmark_report"]), model["run"]["benchmark_report"])]
    lines += ["", "## Problems (%s)" % counts_text(model), ""]
    if model["problems"]:
        for problem in model["problems"]:
            lines.append("- **%s** `%s` %s: %s  " % (
                SEVERITY_LABELS.get(problem["severity"], problem["severity"]).upper(), problem["code"],
                md(_where(problem)), _md_rich(problem["message"])))
            lines.append("  Fix: %s" % _md_rich(problem["fix"]))
    else:
        lines.append("No problems found.")
    for entry in model.get("sections") or []:
        lines += ["", "## %s" % md(entry["title"])]
        lines += sum([["", _md_rich(note)] for note in entry["notes"]], [])
        for table in entry["tables"]:
            lines += ["", "**%s**" % md(table["caption"]), ""] if table["caption"] else [""]
            lines += md_table([md(column) for column in table["columns"]],
                              [[_md_or_nc(cell) for cell in row] for row in table["rows"]]) \
                if table["rows"] else ["none"]
        if entry["files"]:
            lines += ["", " \u00b7 ".join("%s[%s](%s)" % ("!" if f["path"].endswith(".png") else "",
                                                          md(f.get("label") or f["path"]), f["path"])
                                          for f in entry["files"])]

    lines += ["", "## Nodes", ""]
    rows = []
    for node in model["nodes"]:
        software = node.get("software") or {}
        rows.append([md(node["name"]), _status_text(node["status"]), _md_or_nc(reachable_text(node)),
                     _md_or_nc(model_line(node)), _md_or_nc(memory_text(node)), _md_or_nc(macos_text(node)),
                     _md_or_nc(rdma_text(node)), _md_or_nc(gpu_text(node))]
                    + [_md_or_nc(software.get(key)) for key, _label in SOFTWARE_COLUMNS]
                    + [_md_or_nc(services_text(node)), _md_or_nc(checks_text(node))])
    lines += md_table(["Node", "Status", "Reachable", "Model", "Memory", "macOS", "RDMA", "GPU wired limit"]
                      + [label for _key, label in SOFTWARE_COLUMNS] + ["Services", "Checks"], rows)

    if model_rows(model):
        lines += ["", "## Deployed models", ""]
        lines += md_table(["Model", "Runtime", "Nodes and layers", "On disk", "State"],
                          [[md(name), _md_or_nc(runtime), md(where), md(size), md(state)]
                           for name, runtime, where, size, state in model_rows(model)])

    topology = model["topology"]
    lines += ["", "## Cables (%s)" % md((topology["class"] or NOT_CHECKED).replace("_", " ")), "",
              "Diagram: [cabling.svg](cabling.svg)", ""]
    lines += md_table(["From", "To", "Speed", "Subnet", "Problems"], [
        ["%s %s" % (md(l["a"]["host"]), md(l["a"]["port"])), "%s %s" % (md(l["b"]["host"]), md(l["b"]["port"])),
         describe_speed(l["speed_gbps"]), _md_or_nc(l["subnet"]),
         ", ".join("`%s`" % c for c in l["problem_codes"]) or "none"] for l in topology["links"]])
    if topology["missing_pairs"]:
        lines += ["", "Pairs without a cable: %s" % ", ".join("%s \u2013 %s" % (md(a), md(b))
                                                              for a, b in topology["missing_pairs"])]
    if device_rows(model):
        lines += ["", "## Thunderbolt devices (not Macs)", ""]
        lines += md_table(["Node", "Port", "Device", "Link"], [
            [md(node), md(port), md(device), md(link or "-")] for node, port, device, link in device_rows(model)])
    lines += ["", "## MLX hostfiles", ""]
    choice = topology.get("mlx_backend")
    lines += ["Backend: `%s`. %s" % (choice["backend"] or "none", md(choice["reason"])) if choice
              else "Backend: not chosen (the rdma role did not run).", ""]
    lines += md_table(["Backend", "File", "Rank order"], [
        ["`%s`" % backend, "[%s](%s)" % (entry["path"], entry["path"]) if entry["available"] else "unavailable",
         md(" -> ".join(entry["hosts"])) if entry["available"] else "-"]
        for backend, entry in sorted(topology["hostfiles"].items())])
    lines += ["", "_Report schema %s, state fingerprint `%s`._" % (model["schema_version"], model["fingerprint"][:16])]
    return "\n".join(lines) + "\n"
