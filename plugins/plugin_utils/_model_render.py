# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the Markdown pages of a model placement and of a deployment.
"""What a person reads: which node runs which layers and why it fits, then what moved where and how fast."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.plugin_utils._markdown import md_table


def _size(size):
    """Bytes as a person reads them: GB from a gigabyte, MB below."""
    return "%.2f GB" % (size / 1e9) if size >= 1e9 else "%.1f MB" % (size / 1e6)


def plan_markdown(plan, model):
    lines = ["# Model placement: %s" % model.get("path", "?"), "",
             "%s %s, %s mode, %s copies. %d layers (%s), %s in %d files; KV cache reserved for %d tokens." % (
                 plan["runtime"], plan["version"], plan["mode"], plan.get("copies"), plan["layers"],
                 model.get("model_type"), _size(plan["model_bytes"]), len(plan["files"]), plan["context_tokens"]), ""]
    if plan.get("split_rule"):
        lines.extend(["Split: %s, %s layers per rank." % (plan["split_rule"], plan.get("split")), ""])
    if plan.get("split_needs_launcher"):
        lines.extend(["This split is not mlx-lm's even one: `--pipeline` on mlx-lm's own commands splits evenly, so "
                      "run it through a launcher that calls `pipeline(group, split=%s)`." % plan["split"], ""])
    rows = [(r["rank"], r["host"], "%d-%d" % (r["layers"][0], r["layers"][1] - 1), r["layer_count"], len(r["files"]),
             _size(r["disk_bytes"]), _size(r["weight_bytes"]), _size(r["kv_reserve_bytes"]), _size(r["need_bytes"]),
             "%s (%s)" % (_size(r["wired_limit_bytes"]), r["wired_limit_source"]), _size(r["headroom_bytes"]))
            for r in plan["ranks"]]
    lines.extend(md_table(("rank", "node", "layers", "count", "files", "disk", "weights", "KV cache", "needs",
                           "wired limit", "headroom"), rows))
    return "\n".join(lines) + "\n"


def deploy_markdown(report):
    lines = ["# Model deployment: %s" % report["model"], "",
             "%s crossed the Thunderbolt cables for %s the nodes lacked (%.3fx); the busiest cable carried %s."
             % (_size(report["wire_bytes"]), _size(report["needed_bytes"]),
                report["wire_bytes"] / float(report["needed_bytes"]) if report["needed_bytes"] else 0.0,
                _size(report["max_link_bytes"])), ""]
    rows = [(host, node["files"], node["linked"], node["pulled"], node["removed"], _size(node["bytes_received"]),
             "%.1f" % node["seconds"], "%.1f" % (node["bytes_received"] / 1e6 / node["seconds"]) if node["seconds"]
             else "-") for host, node in sorted(report["nodes"].items())]
    lines.extend(md_table(("node", "files held", "linked", "pulled", "removed", "received", "seconds", "MB/s"), rows))
    if report["link_bytes"]:
        lines.extend(["", "Bytes per cable and direction:", ""])
        lines.extend(md_table(("from > to", "bytes"), [(pair, _size(size))
                                                       for pair, size in sorted(report["link_bytes"].items())]))
    return "\n".join(lines) + "\n"


def progress_line(snapshot):
    """One line of a transfer's progress file (model_shard's .macops-progress.json), as a person reads it:
    bytes of the total, the share, the rate and the time left; None when it says nothing yet."""
    if not isinstance(snapshot, dict) or not snapshot.get("bytes_total"):
        return None
    done, total = int(snapshot.get("bytes_done") or 0), int(snapshot["bytes_total"])
    rate = float(snapshot.get("bytes_per_second") or 0)
    left = " about %d s left," % ((total - done) / rate) if rate and done < total else ""
    line = "%s of %s (%d%%), %.1f MB/s,%s" % (_size(done), _size(total), 100 * done // total, rate / 1e6, left)
    return line.rstrip(",") + ("; now %s" % snapshot["file"] if snapshot.get("file") and done < total else "")
