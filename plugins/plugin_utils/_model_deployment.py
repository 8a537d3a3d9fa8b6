# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the controller's half of a model deployment.
"""From the placement (model_shard plan), each node's inventory (model_shard inventory), each node's free
disk (node_facts) and the applied Thunderbolt plan: what each node must hold, the disk check before any
byte moves, and the transfer plan with each pull's parent directory and whether the parent relays."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import cables_from_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._model_transfer import TransferError, transfer_plan


def node_files(plan):
    """{host: [{file, size, sha256}]}: what each node of the placement must hold (model_shard's rank entries)."""
    return dict((rank["host"], rank["entries"]) for rank in plan["ranks"])


def _gb(size):
    return "%.2f GB" % (size / 1e9)


def disk_problems(inventories, volumes, margin_bytes, local_bytes):
    """shard_disk_full for each node whose volume has less free space than the bytes it still needs plus the
    margin; local_bytes are bytes a node takes by hard link from a source on the same volume (free)."""
    problems = []
    for host in sorted(inventories):
        volume = volumes.get(host) or {}
        free = int(volume.get("free_kib", 0)) * 1024
        need = inventories[host]["missing_bytes"] - local_bytes.get(host, 0)
        if need > 0 and free < need + margin_bytes:
            problems.append(problem(
                "shard_disk_full",
                "%s needs %s more on %s for its part of the model (plus a margin of %s) but %s is free." % (
                    host, _gb(need), volume.get("mounted_on") or volume.get("path") or "its volume",
                    _gb(margin_bytes), _gb(free)),
                host=host, details={"need_bytes": need, "free_bytes": free, "margin_bytes": margin_bytes}))
    return problems


def deployment(plan, source, source_dir, dest, inventories, volumes, applied_hosts, margin_bytes=0,
               source_mount=None):
    """{files, pulls, local, problems, lacking_bytes, link_bytes, wire_bytes, missing_bytes, max_link_bytes}.

    lacking_bytes: per receiving node, the bytes it lacks (a partial file's bytes count as held); the transfer
    plan's missing_bytes and wire_bytes count whole files.

    source: the node holding the model at source_dir (its own part comes by link or copy from there);
    dest: the model's directory on every node; inventories: {host: model_shard inventory}; volumes: {host:
    node_facts volume of dest}; applied_hosts: the applied Thunderbolt plan's hosts; source_mount: the
    mount point of source_dir (a hard link costs no space when it is dest's)."""
    files = node_files(plan)
    sizes = dict((name, {"size": size, "sha256": (plan.get("sha256") or {}).get(name)})
                 for name, size in plan["files"].items())
    in_place = source_dir.rstrip("/") == dest.rstrip("/")
    holders = {source: sorted(plan["files"])}
    needs, local, local_bytes, lacking = {}, {}, {}, {}
    for host, entries in files.items():
        held = (inventories.get(host) or {}).get("files") or {}
        good = [name for name, state in held.items() if state.get("state") == "ok"]
        if host == source:
            local[host] = sorted(e["file"] for e in entries if (held.get(e["file"]) or {}).get("state") != "ok")
            same_volume = not in_place and source_mount is not None and \
                (volumes.get(host) or {}).get("mounted_on") == source_mount
            local_bytes[host] = sum(sizes[name]["size"] for name in local[host]) if same_volume else 0
            continue
        holders[host] = good
        needs[host] = [e["file"] for e in entries]
        lacking[host] = (inventories.get(host) or {}).get("missing_bytes", 0)
    problems = disk_problems(inventories, volumes, margin_bytes, local_bytes)
    result = {"files": files, "local": local, "problems": problems, "pulls": dict((h, []) for h in files),
              "lacking_bytes": lacking,
              "link_bytes": {}, "wire_bytes": 0, "missing_bytes": {}, "max_link_bytes": 0}
    if problems:
        return result
    try:
        transfers = transfer_plan(sizes, needs, holders, cables_from_plan(applied_hosts, list(files)))
    except TransferError as exc:
        result["problems"] = [problem("shard_unreachable", "%s." % exc)]
        return result
    for host, pulls in transfers["pulls"].items():
        result["pulls"][host] = [dict(pull, parent_dir=source_dir if pull["parent"] == source else dest,
                                      relay=pull["file"] not in holders.get(pull["parent"], []))
                                 for pull in pulls]
    result.update((key, transfers[key]) for key in ("link_bytes", "wire_bytes", "missing_bytes", "max_link_bytes"))
    return result


def deploy_report(deployment, results, model, run_id):
    """The deployment's report document: {model, run_id, wire_bytes, needed_bytes, max_link_bytes, link_bytes,
    nodes: {host: {files, linked, pulled, removed, bytes_received, seconds, failed, msg}}}.

    results: {host: model_shard present result}. needed_bytes is what the nodes lacked before the run, partial
    files counted as held (over the cables; the source's own part is linked locally): wire_bytes, the bytes
    received, is at most that plus what a failed pull had to send again."""
    nodes = {}
    for host in sorted(deployment["files"]):
        result = results.get(host) or {}
        nodes[host] = {"files": len(deployment["files"][host]), "linked": len(result.get("linked") or []),
                       "pulled": len(result.get("received") or []), "removed": len(result.get("removed") or []),
                       "bytes_received": int(result.get("bytes_received") or 0),
                       "seconds": float(result.get("seconds") or 0.0), "failed": bool(result.get("failed")),
                       "msg": result.get("msg") if result.get("failed") else None}
    return {"model": model, "run_id": run_id, "wire_bytes": sum(n["bytes_received"] for n in nodes.values()),
            "planned_wire_bytes": deployment["wire_bytes"], "needed_bytes": sum(deployment["lacking_bytes"].values()),
            "max_link_bytes": deployment["max_link_bytes"], "link_bytes": deployment["link_bytes"], "nodes": nodes}
