# -*- coding: utf-8 -*-
# PRIVATE to the collection: the operations' sections of the cluster report (action cluster_report).
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""One section per operation of the run, beside the cluster's state in the one report model.

Every section has the same envelope, so one renderer draws them all (the HTML page and the
Markdown, plugins/plugin_utils/_report_render.py) and one schema describes them
(docs/report.schema.json): ``{operation, title, summary, notes, tables: [{caption, columns, rows}],
files, data}``. ``summary`` is what the run prints (one line per node), ``notes`` and ``tables`` what a
person reads (sentences, and tables of text cells), ``files`` the section's own files in the report
directory (a benchmark's plots) and ``data`` what a machine reads, in the operation's own shape."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ._topology_common import natural_key

# The order sections appear in, whatever order the inputs name them.
OPERATIONS = ("doctor", "update", "reboot", "deploy", "serve", "benchmark")


def table(columns, rows, caption=""):
    """One table of a section; cells are text (None shown as not checked)."""
    return {"caption": caption, "columns": [str(column) for column in columns],
            "rows": [[None if cell is None else str(cell) for cell in row] for row in rows]}


def section(operation, title, summary=None, tables=None, files=None, data=None, notes=None):
    """A section in the one envelope."""
    return {"operation": operation, "title": title, "summary": list(summary or []), "notes": list(notes or []),
            "tables": list(tables or []), "files": list(files or []), "data": data if isinstance(data, dict) else {}}


def _hosts(results):
    return sorted((host for host, result in results.items() if isinstance(result, dict)), key=natural_key)


def reboot_line(host, result):
    """``mac1: OK, back after 42 s`` (or FAILED, NOT BACK, not rebooted, power-cycled, the failed checks)."""
    line = "%s: %s" % (host, "OK" if result.get("ok") else "FAILED")
    if result.get("rebooted"):
        line += "%s after %s s" % (", back" if result.get("back") else ", NOT BACK", result.get("waited_seconds", 0))
    else:
        line += ", not rebooted"
    if result.get("power_cycled"):
        line += ", power-cycled"
    failed = [check.get("name") for check in result.get("checks") or [] if isinstance(check, dict)
              and not check.get("ok")]
    if not result.get("ok"):
        line += "; failed: %s" % ", ".join(str(name) for name in failed)
    return line


def reboot_section(results, run=None):
    """reboot-cluster.yml's section from each node's macops_reboot (the nodes handled so far)."""
    hosts = _hosts(results)
    nodes = {}
    rows = []
    for host in hosts:
        result = results[host]
        failed = [str(check.get("name")) for check in result.get("checks") or []
                  if isinstance(check, dict) and not check.get("ok")]
        nodes[host] = {"selected": bool(result.get("selected")), "rebooted": bool(result.get("rebooted")),
                       "back": bool(result.get("back", True)), "waited_seconds": int(result.get("waited_seconds") or 0),
                       "power_cycled": bool(result.get("power_cycled")), "ok": bool(result.get("ok")),
                       "failed_checks": failed}
        entry = nodes[host]
        rows.append([host, "OK" if entry["ok"] else "FAILED", "yes" if entry["rebooted"] else "no",
                     ("%d s" % entry["waited_seconds"]) if entry["rebooted"] and entry["back"]
                     else ("not back after %d s" % entry["waited_seconds"]) if entry["rebooted"] else "-",
                     "yes" if entry["power_cycled"] else "no", ", ".join(failed) or "-"])
    return section("reboot", "Reboot", [reboot_line(host, results[host]) for host in hosts],
                   [table(["Node", "Result", "Rebooted", "Back after", "Power-cycled", "Failed checks"], rows)],
                   data={"mode": (run or {}).get("mode"), "nodes": nodes})


def doctor_section(results):
    """doctor.yml's section from each node's macops_doctor: swept or not, and the sweep's one line."""
    hosts = _hosts(results)
    nodes = dict((host, {"reachable": bool(results[host].get("reachable")), "swept": bool(results[host].get("swept")),
                         "checks": len(results[host].get("checks") or [])}) for host in hosts)
    rows = [[host, "yes" if nodes[host]["swept"] else "no", nodes[host]["checks"], results[host].get("summary") or ""]
            for host in hosts]
    return section("doctor", "Doctor's sweep", [results[host].get("summary") or host for host in hosts],
                   [table(["Node", "Swept", "Checks", "Finding"], rows)], data={"nodes": nodes})


def ordered(sections):
    """The sections in OPERATIONS order (an unknown operation last, by name)."""
    rank = dict((name, index) for index, name in enumerate(OPERATIONS))
    return sorted(sections, key=lambda entry: (rank.get(entry["operation"], len(OPERATIONS)), entry["operation"]))
