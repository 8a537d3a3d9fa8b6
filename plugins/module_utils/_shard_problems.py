# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the problem codes of placing and deploying a model (deploy-model.yml,
# model_shard), part of the one registry (_problems.py REGISTRY). Stdlib only, Python 3.9.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problem_codes import ERROR, WARNING, registry_entry

# Found by model_shard before any byte moves.
SHARD_CODES = {
    "shard_model_missing": registry_entry(
        ERROR, "model_shard",
        "The model source is not a model directory: the path does not exist or has no config.json (a wrong "
        "path, or a download that has not finished).",
        "Point deploy_model_source at the directory that holds config.json and the .safetensors files (on the "
        "controller or on the node named by deploy_model_source_host), then run deploy-model.yml again."),
    "shard_model_unreadable": registry_entry(
        ERROR, "model_shard",
        "config.json or the safetensors index cannot be read or is not the JSON object a runtime expects "
        "(no num_hidden_layers, no weight_map).",
        "Download the model again (huggingface-cli download, or mlx_lm.convert for a model not yet converted), "
        "then run deploy-model.yml again."),
    "shard_header_corrupt": registry_entry(
        ERROR, "model_shard",
        "A .safetensors file's header is one MLX refuses: not a header, a tensor whose bytes do not match its "
        "shape, data past the end of the file (a truncated download), or a tensor the index puts there missing.",
        "Download that file again (the message names it) and check it against the hub's sha256, then run "
        "deploy-model.yml again."),
    "shard_file_missing": registry_entry(
        ERROR, "model_shard",
        "A weight file the index names is not in the model directory, or no file holds the weights of some "
        "layer: a partial download, or a checkpoint mlx-lm cannot load without conversion.",
        "Finish the download (the message lists the files), or convert the model with mlx_lm.convert; then run "
        "deploy-model.yml again."),
    "shard_no_fit": registry_entry(
        ERROR, "model_shard",
        "A node's share of the model (its weights, its KV cache for the context asked and the runtime's "
        "overhead) is more than its GPU wired limit, so the runtime would fail or the Mac would freeze.",
        "Add nodes or use the nodes with more memory (deploy_model_smallest_fit), choose a smaller quantization, "
        "lower deploy_model_context_tokens, or raise the node's wired limit (gpu_memory role); then run "
        "deploy-model.yml again."),
    "shard_split_unsafe": registry_entry(
        ERROR, "model_shard",
        "The installed mlx-lm cannot split this model's layers over this many ranks safely: before 0.32.0 a "
        "layer count that does not divide by the rank count silently loses layers, and such versions take no "
        "explicit split.",
        "Upgrade mlx-lm to 0.32.0 or later (site.yml's macops_mlx_lm_package_spec), or deploy to a node count that "
        "divides the layer count (the message names the lost layers)."),
    "shard_tensor_indivisible": registry_entry(
        ERROR, "model_shard",
        "Tensor parallel needs the hidden size, the attention heads and the KV heads to divide by the node "
        "count, and this model's do not.",
        "Use pipeline mode (deploy_model_mode: pipeline), or a node count that divides them (the message names "
        "the sizes)."),
    "shard_disk_full": registry_entry(
        ERROR, "model_shard",
        "A node's volume has less free space than the bytes of the model it still needs plus the margin "
        "(deploy_model_disk_margin_mb); nothing is sent to any node.",
        "Free space on that node (the message gives both sizes), deploy a smaller quantization, or place the "
        "model on fewer nodes; then run deploy-model.yml again."),
    "shard_hub_unavailable": registry_entry(
        ERROR, "model_shard",
        "The model could not be downloaded from the hub on the source node (no such repository or revision, a "
        "gated model without a token that may read it, no network, or no huggingface_hub in the venv); nothing "
        "was sent to any other node.",
        "Check the id and revision on the hub's page, give deploy_model_hub_token for a gated or private model, "
        "or let the source node reach the hub (deploy_model_hub_endpoint for a mirror); then run deploy-model.yml "
        "again: it resumes what came already."),
    "model_copy_incomplete": registry_entry(
        WARNING, "report",
        "A node's copy of a deployed model lacks files or has files of the wrong size (its record, "
        ".macops-model.json, lists what deploy-model.yml gave it), or a rank of the placement is on no node: "
        "the model will not load there.",
        "Run deploy-model.yml again with the same source and name: it sends only what is missing and checks "
        "every sha256."),
    "shard_model_served": registry_entry(
        ERROR, "model_shard",
        "deploy_model_state absent was asked for a model that serve-model.yml serves (a node's serve.json names "
        "it): removing its files under running ranks would crash them. Nothing was removed.",
        "Stop serving it first (serve-model.yml -e serve_state=stopped, or serve another model with "
        "serve_model_name), then run deploy-model.yml with deploy_model_state absent again."),
    "shard_unreachable": registry_entry(
        ERROR, "model_shard",
        "A node needs a file that no chain of Thunderbolt cables brings from a node that holds it (a node with no "
        "cable up, or the source outside the cabling).",
        "Run site.yml (or doctor.yml) to bring the Thunderbolt network up on every node, then run "
        "deploy-model.yml again."),
    "shard_remote_code_untrusted": registry_entry(
        ERROR, "model_shard",
        "The model's tokenizer is its own Python code (tokenizer_config.json's auto_map, as Kimi K2's), which "
        "mlx_lm.server loads only with --trust-remote-code; serve_trust_remote_code is false, so every rank would "
        "fail to start.",
        "If you trust the model's source, set serve_trust_remote_code: true in the inventory (deploy-model.yml and "
        "serve-model.yml both read it; the code runs on every node as the serving user), then run deploy-model.yml "
        "again."),
    "shard_runtime_unsupported": registry_entry(
        ERROR, "model_shard",
        "The installed runtime cannot run this model in the mode asked (mlx-lm pipelines only the model types "
        "whose model class splits its layers by its PipelineMixin's pipeline(), the rule the plan follows; a "
        "class with a pipeline() of its own, as kimi_k3's, splits by another; llama has tensor parallel only).",
        "Choose the other mode or runtime (exo pipelines any model), or upgrade mlx-lm; then run deploy-model.yml "
        "again."),
}
