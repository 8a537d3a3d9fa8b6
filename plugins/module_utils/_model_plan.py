# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: where each layer of a model goes, for the runtime that will run it.
# Stdlib only, Python 3.9.
"""Plan a model's placement over the cluster's nodes, by the runtime's own rules.

mlx-lm pipeline (``mlx_lm/models/pipeline.py`` ``PipelineMixin.pipeline``): ranks are hostfile order,
**rank 0 holds the last layers**. From 0.32.0 the counts are ``divmod(L, N)`` with the extra layers on
the low ranks, and ``pipeline(group, split=[...])`` takes explicit counts. Before 0.32.0 each rank
computed its start from its own count, so a layer count that does not divide by the rank count
silently loses layers (61 on 4 ranks loses 45-47): such a split is refused. A rank needs the files of
its layers and every file holding a shared tensor (embeddings, final norm, head).

exo pipeline (``master/placement_utils.py`` ``allocate_layers_proportionally``): layers by each node's
share of memory, largest remainder, at least one each; **rank 0 holds the first layers**. exo only
loads a complete model directory, so every node gets every file; the split is shown for information.

Tensor parallel (both): every rank holds a slice of every layer, so hidden size, attention heads and
KV heads must divide by the node count; every node gets every file.

The fit check is against each node's GPU wired limit (``iogpu.wired_limit_mb``), not its RAM: the
rank's weights, its KV cache for ``context_tokens`` and a fixed runtime overhead must fit under it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._model_dir import files_for_layers, memory_for_layers
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

MIB = 1024 * 1024
GIB = 1024 * MIB
# The first mlx-lm whose pipeline() keeps every layer for any rank count and takes split=[...].
MLX_LM_SPLIT_FIXED = (0, 32, 0)
RUNTIMES = ("mlx-lm", "exo")
MODES = ("pipeline", "tensor")
SPLITS = ("auto", "even", "memory")
KV_DTYPE_BYTES = 2  # the KV cache is kept in the activations' dtype (bf16/fp16)
# macOS's GPU working set when iogpu.wired_limit_mb is 0 (its default): about two thirds of RAM up to
# 36 GiB and three quarters above (an estimate; users report 75-84 % on large machines,
# notatestuser/ds4-control PR #12).
DEFAULT_WIRED_SMALL, DEFAULT_WIRED_LARGE, SMALL_RAM = 2.0 / 3.0, 0.75, 36 * GIB


def version_tuple(text):
    """'0.32.2' -> (0, 32, 2); a suffix such as '.dev1' or 'rc1' is ignored."""
    numbers = []
    for part in str(text).split("."):
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        numbers.append(int(digits))
        if len(digits) != len(part):
            break
    return tuple(numbers + [0] * (3 - len(numbers)))


def gb(size):
    return "%.1f GB" % (size / 1e9)


def wired_limit(node):
    """(bytes, source) of a node's GPU wired limit: the live sysctl, else the boot-time target, else macOS's
    default estimated from RAM."""
    if node.get("wired_limit_mb"):
        return int(node["wired_limit_mb"]) * MIB, "iogpu.wired_limit_mb"
    if node.get("wired_target_mb"):
        return int(node["wired_target_mb"]) * MIB, "boot-time target"
    ram = int(node["memory_bytes"])
    return int(ram * (DEFAULT_WIRED_SMALL if ram <= SMALL_RAM else DEFAULT_WIRED_LARGE)), "macOS default (estimated)"


def kv_bytes_per_token(arch):
    """KV-cache bytes one token costs in one layer: a latent vector under multi-head latent attention,
    else keys and values of every KV head."""
    if arch.get("kv_lora_rank"):
        return (arch["kv_lora_rank"] + (arch.get("qk_rope_head_dim") or 0)) * KV_DTYPE_BYTES
    return 2 * (arch.get("kv_heads") or 1) * (arch.get("head_dim") or 0) * KV_DTYPE_BYTES


def mlx_lm_counts(layers, ranks, version, split=None):
    """Per-rank layer counts mlx-lm's pipeline() uses; rank 0 holds the last layers.

    Raises ValueError, with the layers lost, for a split the version would corrupt."""
    if split is not None:
        if version < MLX_LM_SPLIT_FIXED:
            raise ValueError("mlx-lm %s has no explicit split (pipeline(group, split=...) came in 0.32.0)"
                             % ".".join(map(str, version)))
        if len(split) != ranks or any(count < 1 for count in split) or sum(split) != layers:
            raise ValueError("a split must give each of the %d ranks at least one layer and sum to %d, not %s"
                             % (ranks, layers, split))
        return list(split)
    base, extra = divmod(layers, ranks)
    counts = [base + (1 if rank < extra else 0) for rank in range(ranks)]
    if version < MLX_LM_SPLIT_FIXED and extra:
        held = set()
        for rank, count in enumerate(counts):
            start = (ranks - rank - 1) * count
            held.update(range(start, start + count))
        lost = sorted(set(range(layers)) - held)
        raise ValueError("mlx-lm %s would lose layer(s) %s: %d layers do not divide by %d ranks" % (
            ".".join(map(str, version)), ", ".join(map(str, lost)), layers, ranks))
    return counts


def mlx_lm_ranges(counts):
    """[(start, end)] per rank from mlx-lm counts: rank r starts after the layers of ranks r+1 ... N-1."""
    return [(sum(counts[rank + 1:]), sum(counts[rank + 1:]) + counts[rank]) for rank in range(len(counts))]


def exo_counts(layers, weights):
    """exo's largest-remainder split of `layers` by each node's share of `weights`, at least one each."""
    total = float(sum(weights))
    if layers < len(weights) or total <= 0:
        raise ValueError("%d layers cannot go to %d nodes" % (layers, len(weights)))
    raw = [weight / total * layers for weight in weights]
    counts = [int(value) for value in raw]
    by_remainder = sorted(range(len(raw)), key=lambda i: raw[i] - counts[i], reverse=True)
    for i in range(layers - sum(counts)):
        counts[by_remainder[i]] += 1
    for i in range(len(counts)):
        if counts[i] == 0:
            largest = max(range(len(counts)), key=lambda j: counts[j])
            counts[largest] -= 1
            counts[i] = 1
    return counts


def first_layer_ranges(counts):
    """[(start, end)] per rank when rank 0 holds the first layers (exo)."""
    ranges, start = [], 0
    for count in counts:
        ranges.append((start, start + count))
        start += count
    return ranges


def memory_weighted_counts(model, capacities):
    """mlx-lm counts (rank 0 last) that cut the layers by bytes in proportion to each rank's capacity for
    layers, at least one layer each; capacities are per rank, in rank order."""
    layers = model["arch"]["layers"]
    ranks = len(capacities)
    order = list(range(ranks - 1, -1, -1))  # the first layers go to rank N-1
    sizes = [model["layer_bytes"].get(layer, 0) for layer in range(layers)]
    total, room = float(sum(sizes)), float(sum(max(c, 1) for c in capacities))
    counts, layer, done = [0] * ranks, 0, 0.0
    share = 0.0
    for position, rank in enumerate(order):
        share += max(capacities[rank], 1) / room
        left_after = ranks - position - 1
        while layer < layers - left_after and (counts[rank] == 0 or done + sizes[layer] / 2.0 <= share * total
                                               or position == ranks - 1):
            done += sizes[layer]
            counts[rank] += 1
            layer += 1
    return counts


def _rank(model, node, rank, start, end, files, context_tokens, overhead_bytes, kv_share=1.0, weights=None):
    limit, source = wired_limit(node)
    weight_bytes = memory_for_layers(model, start, end) if weights is None else weights
    kv = int((end - start) * kv_bytes_per_token(model["arch"]) * context_tokens * kv_share)
    need = weight_bytes + kv + overhead_bytes
    return {
        "rank": rank, "host": node["name"], "layers": [start, end], "layer_count": end - start,
        "files": files, "disk_bytes": sum(model["files"][name]["size"] for name in files),
        "weight_bytes": weight_bytes, "kv_reserve_bytes": kv, "overhead_bytes": overhead_bytes,
        "need_bytes": need, "wired_limit_bytes": limit, "wired_limit_source": source,
        "headroom_bytes": limit - need, "fits": need <= limit,
    }


def _fit_problems(ranks, runtime, mode):
    problems = []
    for entry in ranks:
        if not entry["fits"]:
            problems.append(problem(
                "shard_no_fit",
                "%s (rank %d) needs %s for layers %d-%d under %s %s (weights %s, KV cache %s, overhead %s) but "
                "its GPU wired limit is %s (%s)." % (
                    entry["host"], entry["rank"], gb(entry["need_bytes"]), entry["layers"][0],
                    entry["layers"][1] - 1, runtime, mode, gb(entry["weight_bytes"]),
                    gb(entry["kv_reserve_bytes"]), gb(entry["overhead_bytes"]), gb(entry["wired_limit_bytes"]),
                    entry["wired_limit_source"]),
                host=entry["host"],
                details={"need_bytes": entry["need_bytes"], "wired_limit_bytes": entry["wired_limit_bytes"]}))
    return problems


def _tensor_problems(arch, count):
    sizes = (("hidden size", "hidden_size"), ("attention heads", "heads"), ("KV heads", "kv_heads"))
    bad = [(name, arch.get(key)) for name, key in sizes if not arch.get(key) or arch[key] % count]
    if not bad:
        return []
    return [problem("shard_tensor_indivisible", "Tensor parallel over %d nodes needs %s to divide by %d." % (
        count, " and ".join("%s (%s)" % pair for pair in bad), count),
        details={"nodes": count, "indivisible": dict(bad)})]


def _pipeline_counts(model, nodes, runtime, version, split, context_tokens, overhead_bytes):
    """(counts, split_used) for an mlx-lm pipeline, or raise PlanError."""
    layers = model["arch"]["layers"]
    if len(nodes) > layers:
        raise PlanError.of_problems([problem("shard_no_fit", "%d nodes cannot pipeline a model of %d layers (one "
                                             "layer at least per node)." % (len(nodes), layers))])
    try:
        even = mlx_lm_counts(layers, len(nodes), version)
    except ValueError as exc:
        raise PlanError.of_problems([problem("shard_split_unsafe", "%s." % exc, details={
            "layers": layers, "nodes": len(nodes), "version": ".".join(map(str, version))})])
    if split == "even":
        return even, "even"
    ranks = [_rank(model, node, rank, start, end, [], context_tokens, overhead_bytes)
             for rank, (node, (start, end)) in enumerate(zip(nodes, mlx_lm_ranges(even)))]
    if split == "auto" and all(entry["fits"] for entry in ranks):
        return even, "even"
    if version < MLX_LM_SPLIT_FIXED:
        if split == "memory":
            raise PlanError.of_problems([problem(
                "shard_split_unsafe", "mlx-lm %s cannot take a memory-weighted split (pipeline(group, split=...) "
                "came in 0.32.0)." % ".".join(map(str, version)))])
        return even, "even"
    per_token = kv_bytes_per_token(model["arch"]) * context_tokens
    average_layer = sum(model["layer_bytes"].get(n, 0) for n in range(layers)) / float(layers)
    capacities = [wired_limit(node)[0] - overhead_bytes - model["shared_bytes"] for node in nodes]
    capacities = [c * average_layer / (average_layer + per_token) for c in capacities]
    return mlx_lm_counts(layers, len(nodes), version, memory_weighted_counts(model, capacities)), "memory"


def place(model, nodes, runtime, version, mode="pipeline", split="auto", context_tokens=32768,
          overhead_mb=2048, supports=None, trust_remote_code=None):
    """The placement of `model` (read_model()) over `nodes` (rank order: the hostfile's) for `runtime`.

    nodes: [{name, memory_bytes, wired_limit_mb, wired_target_mb}]; version: the runtime's version string;
    supports: the model's capabilities under the installed runtime ({pipeline, tensor}: bool), None to
    trust the model; trust_remote_code: whether serving will run a tokenizer's own code (serve_trust_remote_code),
    None not to check. Raises PlanError with catalogue problems when no placement is safe."""
    arch = model["arch"]
    layers = arch["layers"]
    overhead = int(overhead_mb) * MIB
    supports = supports or {}
    if supports.get(mode) is False:
        raise PlanError.of_problems([problem(
            "shard_runtime_unsupported", "%s %s cannot run %s (model_type %s) in %s mode." % (
                runtime, version, model["path"], arch["model_type"], mode),
            details={"model_type": arch["model_type"], "mode": mode})])
    if runtime == "mlx-lm" and trust_remote_code is False and model.get("tokenizer_code"):
        raise PlanError.of_problems([problem(
            "shard_remote_code_untrusted", "%s's tokenizer is its own Python code (%s, tokenizer_config.json's "
            "auto_map), which mlx_lm.server loads only with --trust-remote-code: served as the settings are, every "
            "rank would fail to start." % (model["path"], model["tokenizer_code"]),
            details={"tokenizer_code": model["tokenizer_code"]})])
    wanted = version_tuple(version)
    plan = {"runtime": runtime, "version": version, "mode": mode, "context_tokens": context_tokens,
            "nodes": [node["name"] for node in nodes], "layers": layers}
    everything = sorted(model["files"])
    if mode == "tensor":
        problems = _tensor_problems(arch, len(nodes))
        if problems:
            raise PlanError.of_problems(problems)
        layer_total = sum(model["layer_bytes"].get(n, 0) for n in range(layers))
        weights = model["shared_bytes"] + layer_total // len(nodes)
        ranks = [_rank(model, node, rank, 0, layers, everything, context_tokens, overhead, 1.0 / len(nodes),
                       weights) for rank, node in enumerate(nodes)]
        plan.update(split=None, copies="full")
    elif runtime == "exo":
        limits = [wired_limit(node)[0] for node in nodes]
        counts = exo_counts(layers, limits)
        ranks = [_rank(model, node, rank, start, end, everything, context_tokens, overhead)
                 for rank, (node, (start, end)) in enumerate(zip(nodes, first_layer_ranges(counts)))]
        plan.update(split=counts, split_rule="exo: layers by memory share, rank 0 first", copies="full")
    else:
        counts, used = _pipeline_counts(model, nodes, runtime, wanted, split, context_tokens, overhead)
        ranks = [_rank(model, node, rank, start, end, files_for_layers(model, start, end), context_tokens, overhead)
                 for rank, (node, (start, end)) in enumerate(zip(nodes, mlx_lm_ranges(counts)))]
        plan.update(split=counts, copies="per-rank",
                    split_rule="mlx-lm %s: %s split, rank 0 last" % (version, used),
                    # mlx-lm's --pipeline CLIs always use the even split; another needs pipeline(group, split=...).
                    split_needs_launcher=used == "memory" and counts != mlx_lm_counts(layers, len(nodes), wanted))
    problems = _fit_problems(ranks, runtime, mode)
    if problems:
        raise PlanError.of_problems(problems)
    plan["ranks"] = ranks
    plan["files"] = dict((name, model["files"][name]["size"]) for name in everything)
    plan["model_bytes"] = sum(plan["files"].values())
    plan["needed_bytes"] = sum(entry["disk_bytes"] for entry in ranks)
    return plan


def smallest_fit(model, nodes, runtime, version, **settings):
    """place() over the fewest nodes that fit: for each count, the nodes with the largest wired limits (kept in
    rank order). Raises the PlanError of the full set when even that does not fit."""
    by_room = sorted(range(len(nodes)), key=lambda i: -wired_limit(nodes[i])[0])
    for count in range(1, len(nodes) + 1):
        chosen = [nodes[i] for i in sorted(by_room[:count])]
        try:
            return place(model, chosen, runtime, version, **settings)
        except PlanError:
            if count == len(nodes):
                raise
    raise PlanError.of_problems([problem("shard_no_fit", "No node was given to place the model on.")])
