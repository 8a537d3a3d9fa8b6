# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: deploy-model.yml's section of the cluster report, and a transfer's progress line.
"""What a person reads of a model deployment, as a section of the one report (_report_sections): which
node runs which layers and why it fits, then what moved where and how fast; report.json's section data
holds the placement and the deployment's record for machines. A model's removal is a section of the
same operation: what each node removed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ._model_deployment import deploy_report
from ._report_sections import section, table

PLACEMENT_COLUMNS = ("rank", "node", "layers", "count", "files", "disk", "weights", "KV cache", "needs",
                     "wired limit", "headroom")
TRANSFER_COLUMNS = ("node", "files held", "linked", "pulled", "removed", "received", "seconds", "MB/s")


def size_text(size):
    """Bytes as a person reads them: GB from a gigabyte, MB below."""
    return "%.2f GB" % (size / 1e9) if size >= 1e9 else "%.1f MB" % (size / 1e6)


def _layers(rank):
    return "%d-%d" % (rank["layers"][0], rank["layers"][1] - 1)


def placement_notes(plan, model):
    notes = ["%s %s, %s mode, %s copies. %d layers (%s), %s in %d files; KV cache reserved for %d tokens." % (
        plan["runtime"], plan["version"], plan["mode"], plan.get("copies"), plan["layers"], model.get("model_type"),
        size_text(plan["model_bytes"]), len(plan["files"]), plan["context_tokens"])]
    if plan.get("split_rule"):
        notes.append("Split: %s, %s layers per rank." % (plan["split_rule"], plan.get("split")))
    if plan.get("split_needs_launcher"):
        notes.append("This split is not mlx-lm's even one: `--pipeline` on mlx-lm's own commands splits evenly, so "
                     "run it through a launcher that calls `pipeline(group, split=%s)`." % plan["split"])
    return notes


def placement_table(plan):
    return table(PLACEMENT_COLUMNS, [
        (r["rank"], r["host"], _layers(r), r["layer_count"], len(r["files"]), size_text(r["disk_bytes"]),
         size_text(r["weight_bytes"]), size_text(r["kv_reserve_bytes"]), size_text(r["need_bytes"]),
         "%s (%s)" % (size_text(r["wired_limit_bytes"]), r["wired_limit_source"]), size_text(r["headroom_bytes"]))
        for r in plan["ranks"]], "Placement")


def _rate(node):
    return "%.1f" % (node["bytes_received"] / 1e6 / node["seconds"]) if node["seconds"] else "-"


def transfer_tables(report):
    tables = [table(TRANSFER_COLUMNS, [
        (host, node["files"], node["linked"], node["pulled"], node["removed"], size_text(node["bytes_received"]),
         "%.1f" % node["seconds"], _rate(node)) for host, node in sorted(report["nodes"].items())], "Transfers")]
    if report["link_bytes"]:
        tables.append(table(("from > to", "bytes"), [(pair, size_text(size))
                                                     for pair, size in sorted(report["link_bytes"].items())],
                            "Bytes per cable and direction"))
    return tables


def wire_note(report):
    return "%s crossed the Thunderbolt cables for %s the nodes lacked (%.3fx); the busiest cable carried %s." % (
        size_text(report["wire_bytes"]), size_text(report["needed_bytes"]),
        report["wire_bytes"] / float(report["needed_bytes"]) if report["needed_bytes"] else 0.0,
        size_text(report["max_link_bytes"]))


def removal_section(name, removed):
    """deploy-model.yml's section when it removed a model (deploy_model_state absent): ``removed`` maps each node
    to model_shard's ``removed`` (each directory with its bytes; none where the node held nothing)."""
    rows, summary = [], []
    for host in sorted(removed):
        entries = removed[host] or []
        rows += [[host, entry["path"], size_text(entry["bytes"])] for entry in entries]
        summary.append("%s: %s" % (host, "removed %d director%s, %s" % (
            len(entries), "y" if len(entries) == 1 else "ies", size_text(sum(e["bytes"] for e in entries)))
            if entries else "held nothing of it"))
    total = sum(entry["bytes"] for entries in removed.values() for entry in entries or [])
    notes = ["%s is gone from every node: %s of files removed." % (name, size_text(total))]
    return section("deploy", "Model removal: %s" % name, summary, [table(["node", "directory", "files"], rows)],
                   data={"name": name, "removed": dict((host, list(removed[host] or [])) for host in removed)},
                   notes=notes)


def deploy_section(deploy):
    """deploy-model.yml's section from its run: ``deploy`` holds ``name``, ``run_id``, ``plan`` and ``model``
    (model_shard's placement), and, once the files moved, ``deployment`` (the model_deployment filter's
    transfer plan) and ``transfers`` (each node's model_shard result, by host). Without the deployment (check
    mode, or a run that stopped before any byte moved) the section is the placement alone. A removal
    (deploy_model_state absent) holds ``name`` and ``removed`` instead (removal_section)."""
    if "removed" in deploy:
        return removal_section(deploy.get("name") or "?", deploy["removed"] or {})
    plan, model = deploy["plan"], deploy.get("model") or {}
    name = deploy.get("name") or model.get("path") or "?"
    summary = ["rank %s: %s, layers %s, %d files, needs %s of %s" % (
        r["rank"], r["host"], _layers(r), len(r["files"]), size_text(r["need_bytes"]), size_text(r["wired_limit_bytes"]))
        for r in plan["ranks"]]
    notes, tables = placement_notes(plan, model), [placement_table(plan)]
    data = {"name": name, "run_id": deploy.get("run_id"), "source": model.get("path"), "plan": plan, "deployment": None}
    if deploy.get("deployment"):
        report = deploy_report(deploy["deployment"], deploy.get("transfers") or {}, name, deploy.get("run_id"))
        notes.append(wire_note(report))
        tables += transfer_tables(report)
        summary += ["%s: %s received in %.1f s (%d linked, %d pulled)%s" % (
            host, size_text(node["bytes_received"]), node["seconds"], node["linked"], node["pulled"],
            "; FAILED: %s" % node["msg"] if node["failed"] else "") for host, node in sorted(report["nodes"].items())]
        data["deployment"] = report
    return section("deploy", "Model deployment: %s" % name, summary, tables, data=data, notes=notes)


def progress_line(snapshot):
    """One line of a transfer's progress file (model_shard's .macops-progress.json), as a person reads it:
    bytes of the total, the share, the rate and the time left; None when it says nothing yet."""
    if not isinstance(snapshot, dict) or not snapshot.get("bytes_total"):
        return None
    done, total = int(snapshot.get("bytes_done") or 0), int(snapshot["bytes_total"])
    rate = float(snapshot.get("bytes_per_second") or 0)
    left = " about %d s left," % ((total - done) / rate) if rate and done < total else ""
    line = "%s of %s (%d%%), %.1f MB/s,%s" % (size_text(done), size_text(total), 100 * done // total, rate / 1e6, left)
    return line.rstrip(",") + ("; now %s" % snapshot["file"] if snapshot.get("file") and done < total else "")
