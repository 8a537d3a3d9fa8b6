# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report's deployed ML models (not the report model, _report_model.py): what deploy-model.yml left
on each node, gathered by site.yml's one node read (node_facts' models group reads each model
directory's record, .macops-model.json, and checks its files by name and size), grouped by model,
with a problem for each copy that would not load. (module_utils/_model_deploy.deployed_models is the
node side: it reads those records.)"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

from ._topology_common import natural_key

MODEL_COPY_INCOMPLETE = "model_copy_incomplete"
RERUN = ("Run deploy-model.yml again with the same source and name (ansible-playbook deploy-model.yml -e "
         "deploy_model_source=... -e deploy_model_source_host=...): it sends only what is missing.")


def _incomplete(message, host=None):
    return problem(MODEL_COPY_INCOMPLETE, message, RERUN, host=host, details={"source": "report"})


def _layers_text(layers):
    if isinstance(layers, list) and len(layers) == 2 and all(isinstance(n, int) for n in layers):
        return "layers %d-%d" % (layers[0], layers[1] - 1) if layers[1] > layers[0] else "no layers"
    return "layers unknown"


def _node_copy(host, entry):
    return {"host": host, "rank": entry.get("rank"), "layers": entry.get("layers"), "files": entry.get("files"),
            "bytes": entry.get("bytes"), "complete": entry.get("complete") is True, "path": entry.get("path"),
            "missing": list(entry.get("missing") or []), "wrong_size": list(entry.get("wrong_size") or [])}


def _copy_problem(name, copy):
    lacking = copy["missing"] + copy["wrong_size"]
    one = len(lacking) == 1
    return _incomplete("%s on %s (rank %s, %s) cannot load: %d of its %s files %s (%s)." % (
        name, copy["host"], copy["rank"], _layers_text(copy["layers"]), len(lacking), copy["files"],
        ("is" if one else "are") + " missing or of the wrong size" if copy["missing"] and copy["wrong_size"]
        else ("is" if one else "are") + " missing" if copy["missing"] else ("has" if one else "have") + " the wrong size",
        ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")), host=copy["host"])


def group_deployed_models(report_nodes, names):
    """([model], [problem]) from each node's `models` entry (None when the node was not read).

    model: {name, model_id, runtime, runtime_version, mode, copies, ranks, bytes, complete, nodes: [{host, rank,
    layers, files, bytes, complete, path, missing, wrong_size}] in rank order}."""
    models, problems = {}, []
    for host in names:
        for entry in (report_nodes.get(host) or {}).get("models") or []:
            if not isinstance(entry, dict):
                continue
            if entry.get("error"):
                problems.append(_incomplete("The record of a deployed model on %s cannot be read: %s." % (
                    host, entry["error"]), host=host))
                continue
            name = str(entry.get("name") or entry.get("path"))
            model = models.setdefault(name, dict(
                (key, entry.get(key)) for key in ("name", "model_id", "runtime", "runtime_version", "mode",
                                                  "copies", "ranks")))
            model.setdefault("nodes", []).append(_node_copy(host, entry))
    for name, model in models.items():
        model["nodes"].sort(key=lambda copy: (copy["rank"] if isinstance(copy["rank"], int) else 1 << 30,
                                              natural_key(copy["host"])))
        for copy in model["nodes"]:
            if not copy["complete"]:
                problems.append(_copy_problem(name, copy))
        held = set(copy["rank"] for copy in model["nodes"])
        ranks = model["ranks"] if isinstance(model["ranks"], int) else len(held)
        lost = [rank for rank in range(ranks) if rank not in held]
        if lost:
            problems.append(_incomplete("%s: rank%s %s of its %d %s on no node: the model cannot run." % (
                name, "s" if len(lost) > 1 else "", ", ".join(str(rank) for rank in lost), ranks,
                "are" if len(lost) > 1 else "is")))
        model["bytes"] = sum(copy["bytes"] or 0 for copy in model["nodes"])
        model["complete"] = not lost and all(copy["complete"] for copy in model["nodes"])
    return [models[name] for name in sorted(models, key=natural_key)], problems
