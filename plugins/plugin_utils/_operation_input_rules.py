# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the input rules of the operation playbooks' roles (benchmark, deploy_model,
# serve, macos_update), part of _input_rules.RULES. Names and behaviour may change without notice. Stdlib only.
"""Input rules of the operations' roles, as _input_rules.py's: fact free, one function per role."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import split_release
from ansible_collections.macops.cluster.plugins.plugin_utils._input_rule_base import (
    LAUNCHD_LABEL, absolute_path, at_least, bad, ipv4_networks, launchd_label)


def benchmark(params, context):
    """Counts and the margin a spec cannot bound, the warm-up inside the test, and baselines that
    name a positive rate and where it comes from."""
    found = at_least(params, context, [
        ("benchmark_links_seconds", 1, "seconds per test"), ("benchmark_links_omit_seconds", 0, "seconds"),
        ("benchmark_links_streams", 1, "streams"), ("benchmark_links_repeats", 1, "tests per cable"),
        ("benchmark_links_port", 1024, "an unprivileged TCP port"), ("benchmark_margin_percent", 0, "percent"),
        ("benchmark_allsum_min_bytes", 4, "bytes, one float32"), ("benchmark_allsum_iters", 1, "calls"),
        ("benchmark_allsum_chain", 1, "calls"), ("benchmark_allsum_warmup", 0, "calls"),
        ("benchmark_allsum_port", 1024, "an unprivileged TCP port"), ("benchmark_allsum_timeout", 10, "seconds"),
        ("benchmark_generate_prompt_tokens", 1, "tokens"), ("benchmark_generate_generation_tokens", 1, "tokens"),
        ("benchmark_generate_trials", 1, "trials"), ("benchmark_generate_port", 1024, "an unprivileged TCP port"),
        ("benchmark_generate_timeout", 10, "seconds"), ("benchmark_exo_repeat", 1, "repeats"),
        ("benchmark_exo_warmup", 0, "requests"), ("benchmark_exo_timeout", 10, "seconds"),
        ("benchmark_hpl_nb", 1, "the block size"), ("benchmark_hpl_n", 0, "0 sizes it from memory"),
        ("benchmark_hpl_ranks_per_node", 0, "0 is one per performance core"),
        ("benchmark_hpl_timeout", 10, "seconds"), ("benchmark_serve_requests", 1, "requests per client"),
        ("benchmark_serve_max_tokens", 2, "tokens (a rate needs two)"), ("benchmark_serve_prompt_words", 1, "words"),
        ("benchmark_serve_warmup", 0, "requests"), ("benchmark_serve_timeout", 10, "seconds")])
    if params.has("benchmark_serve_concurrency"):
        levels = params.get("benchmark_serve_concurrency") or []
        if not levels or any(level < 1 for level in levels if isinstance(level, int)):
            found.append(bad(context, "benchmark_serve_concurrency", levels,
                             "it must list one or more concurrency levels, each 1 or more",
                             "Set benchmark_serve_concurrency to a list such as [1, 4, 8]."))
    fraction = params.get("benchmark_hpl_memory_fraction")
    if params.has("benchmark_hpl_memory_fraction") and not 0 < fraction <= 0.9:
        found.append(bad(context, "benchmark_hpl_memory_fraction", fraction,
                         "it must be above 0 and at most 0.9 (the system and MLX need the rest)",
                         "Set benchmark_hpl_memory_fraction to 0.75, as the TOP500 runs do."))
    for name in [n for n in ("benchmark_exo_pp", "benchmark_exo_tg") if params.has(n)]:
        values = params.get(name) or []
        if not values or any(value < 1 for value in values if isinstance(value, int)):
            found.append(bad(context, name, values, "it must list one or more token counts, each 1 or more",
                             "Set %s to a list such as [%d]." % (name, 512 if name.endswith("pp") else 128)))
    low, high = params.get("benchmark_allsum_min_bytes"), params.get("benchmark_allsum_max_bytes")
    if isinstance(low, int) and isinstance(high, int) and high < low:
        found.append(bad(context, "benchmark_allsum_max_bytes", high,
                         "the size range is upside down: it is below benchmark_allsum_min_bytes (%d)" % low,
                         "Set benchmark_allsum_max_bytes to %d or more, or lower benchmark_allsum_min_bytes." % low))
    if params.has("benchmark_margin_percent") and params["benchmark_margin_percent"] >= 100:
        found.append(bad(context, "benchmark_margin_percent", params["benchmark_margin_percent"],
                         "it must be below 100 (100 would accept a cable that carries nothing)",
                         "Set benchmark_margin_percent to a value such as 15."))
    for path in params.get("benchmark_generate_models") or []:
        if not isinstance(path, str) or not path.startswith("/"):
            found.append(bad(context, "benchmark_generate_models", path,
                             "each entry must be an absolute path to a model directory, the same on every node",
                             "Give the directory's full path, such as /Users/admin/models/Qwen3-30B-A3B-4bit."))
    for name, example in (("benchmark_links_port", 5201), ("benchmark_allsum_port", 32400),
                          ("benchmark_generate_port", 32500)):
        if params.has(name) and params[name] > 65535:
            found.append(bad(context, name, params[name], "it is not a TCP port",
                             "Set %s to a port from 1024 to 65535, such as %d." % (name, example)))
    links = (params.get("benchmark_baselines") or {}).get("links") or {}
    for kind, value in sorted(links.items() if isinstance(links, dict) else []):
        gbps = value.get("gbps") if isinstance(value, dict) else None
        if kind not in ("tb5", "tb4") or not isinstance(gbps, (int, float)) or isinstance(gbps, bool) or gbps <= 0:
            found.append(bad(context, "benchmark_baselines", {"links": {kind: value}},
                             "each entry of links must be tb5 or tb4 with gbps, a rate above 0 in Gbit/s",
                             "Set benchmark_baselines.links.%s to {gbps: 25, source: where the figure comes "
                             "from}." % (kind if kind in ("tb5", "tb4") else "tb5")))
    return found


def deploy_model(params, context):
    """The model and the node that holds it must be named, the directories absolute, the counts sensible."""
    found = at_least(params, context, [
        ("deploy_model_context_tokens", 0, "tokens"), ("deploy_model_overhead_mb", 0, "MB"),
        ("deploy_model_disk_margin_mb", 0, "MB"), ("deploy_model_stall_timeout", 5, "seconds"),
        ("deploy_model_timeout", 60, "seconds"),
        ("deploy_model_progress_interval", 1, "seconds")])
    hub_id = params.get("deploy_model_hub_id") or ""
    controller = params.get("deploy_model_controller_source") or ""
    # absent removes a model by its name: no source to name.
    absent = params.get("deploy_model_state") == "absent"
    if absent:
        if not (params.get("deploy_model_name") or hub_id):
            found.append(bad(context, "deploy_model_name", params.get("deploy_model_name") or "",
                             "deploy_model_state absent removes a model by its name, and none is given",
                             "Set deploy_model_name to the model's directory name on the nodes, as the report's "
                             "models list it (-e deploy_model_name=DeepSeek-V3.1-4bit), or deploy_model_hub_id to "
                             "its Hugging Face id."))
    elif params.has("deploy_model_source") and not params["deploy_model_source"] and not hub_id and not controller:
        found.append(bad(context, "deploy_model_source", "", "the model to deploy is not named",
                         "Set deploy_model_source to the model's directory on the node that holds it, such as "
                         "/Users/admin/staging/DeepSeek-V3.1-4bit (-e deploy_model_source=...), or "
                         "deploy_model_hub_id to its Hugging Face id to download it there first, or "
                         "deploy_model_controller_source to a directory on the controller to copy there first."))
    if controller and hub_id:
        found.append(bad(context, "deploy_model_controller_source", controller, "the model comes either from the "
                         "controller or from the hub, not both", "Leave deploy_model_controller_source or "
                         "deploy_model_hub_id empty."))
    elif controller and not (controller.startswith("/") and os.path.isfile(os.path.join(controller, "config.json"))):
        found.append(bad(context, "deploy_model_controller_source", controller, "it must be an absolute path on "
                         "the controller to a model directory (with its config.json)",
                         "Set deploy_model_controller_source to the model's directory on this machine, such as "
                         "/srv/models/DeepSeek-V3.1-4bit."))
    if hub_id and not re.match(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$", hub_id):
        found.append(bad(context, "deploy_model_hub_id", hub_id, "a Hugging Face id is org/name (letters, digits, "
                         "'-', '_', '.')", "Set deploy_model_hub_id to an id such as mlx-community/Qwen3-0.6B-4bit, "
                         "as the model's page on the hub shows it."))
    endpoint = params.get("deploy_model_hub_endpoint") or ""
    if endpoint and not re.match(r"^https?://[^\s/]+", endpoint):
        found.append(bad(context, "deploy_model_hub_endpoint", endpoint, "it must be an http:// or https:// URL",
                         "Set deploy_model_hub_endpoint to the hub's URL, such as https://huggingface.co, or "
                         "leave it empty."))
    if hub_id and params.has("deploy_model_hub_revision") and not params["deploy_model_hub_revision"]:
        found.append(bad(context, "deploy_model_hub_revision", "", "the revision is empty",
                         "Set deploy_model_hub_revision to a branch, tag or commit (main by default)."))
    found += absolute_path(params, context, "deploy_model_source", "an absolute path on the source node", empty_ok=True)
    found += absolute_path(params, context, "deploy_model_dir", "an absolute path on every node")
    host = params.get("deploy_model_source_host")
    if params.has("deploy_model_source_host") and host not in context.macs and not (absent and not host):
        found.append(bad(context, "deploy_model_source_host", host or "",
                         "it must be a node of the group macs (%s)" % ", ".join(context.macs),
                         "Set deploy_model_source_host to the node that holds the model (-e "
                         "deploy_model_source_host=%s)." % (context.macs[0] if context.macs else "mac1")))
    strangers = [node for node in params.get("deploy_model_nodes") or [] if node not in context.macs]
    if strangers:
        found.append(bad(context, "deploy_model_nodes", ", ".join(map(str, strangers)),
                         "each must be a node of the group macs (%s)" % ", ".join(context.macs),
                         "Set deploy_model_nodes to the nodes to place the model on, such as %s, or leave it empty "
                         "for every node." % json.dumps(context.macs[:2])))
    name = params.get("deploy_model_name")
    parts = (name or "").split("/")
    if name and (len(parts) > 2 or not all(parts) or any(part.startswith(".") for part in parts)):
        found.append(bad(context, "deploy_model_name", name, "it is a directory name or a Hugging Face id "
                         "(org/name), not a path nor a name with a leading dot (.hub and .controller hold the "
                         "sources)",
                         "Set deploy_model_name to a name such as DeepSeek-V3.1-4bit or an id such as "
                         "mlx-community/DeepSeek-V3.1-4bit, or leave it empty."))
    elif params.get("deploy_model_runtime") == "exo" and "--" not in model_directory_name(
            name or hub_id, controller or params.get("deploy_model_source") or ""):
        shown = name or model_directory_name("", controller or params.get("deploy_model_source") or "")
        found.append(bad(context, "deploy_model_name", shown, "exo finds a model in its models directories only "
                         "as <org>--<name>, from its Hugging Face id org/name",
                         "Set deploy_model_name to the model's Hugging Face id, such as "
                         "mlx-community/Qwen3-0.6B-4bit: the nodes then get mlx-community--Qwen3-0.6B-4bit, "
                         "where exo looks."))
    return found


def model_directory_name(name, source):
    """The model's directory on the nodes: deploy_model_name (a Hugging Face id org/name becomes org--name,
    exo's layout), else the source directory's own name."""
    return (name or source.rstrip("/").rsplit("/", 1)[-1]).replace("/", "--")


def serve(params, context):
    """Ports that exist and differ, timeouts that leave a model time to load, networks and a label that parse."""
    found = at_least(params, context, [("serve_ready_timeout", 10, "seconds"), ("serve_probe_interval", 5, "seconds"),
                                       ("serve_stall_timeout", 10, "seconds"), ("serve_heartbeat_timeout", 5, "seconds"),
                                       ("serve_restart_limit", 1, "failed generations"), ("serve_max_tokens", 1, "tokens"),
                                       ("serve_request_idle_timeout", 10, "seconds"),
                                       ("serve_max_request_bytes", 1024, "bytes"),
                                       ("serve_measure_tokens", 1, "tokens"),
                                       ("serve_memory_headroom_percent", 0, "percent of the weights"),
                                       ("serve_temperature", 0, "0 is greedy"), ("serve_top_k", 0, "0 is off"),
                                       ("serve_decode_concurrency", 1, "requests"),
                                       ("serve_prompt_concurrency", 1, "prompts"),
                                       ("serve_prefill_step_size", 16, "tokens"),
                                       ("serve_prompt_cache_size", 0, "KV caches"),
                                       ("serve_prompt_cache_bytes", 0, "bytes, 0 is no cap"),
                                       ("serve_log_max_kb", 1, "KB"), ("serve_log_keep", 1, "rotated logs")])
    if params.has("serve_log_dir") and re.search(r"\s", params["serve_log_dir"]):
        found.append(bad(context, "serve_log_dir", params["serve_log_dir"], "it must have no whitespace: newsyslog's "
                         "configuration, which rotates the logs, separates its fields by whitespace",
                         "Set serve_log_dir to a path without spaces, such as /Library/Logs/macops/serve."))
    for name in ("serve_top_p", "serve_min_p"):
        if params.has(name) and not 0 <= params[name] <= 1:
            found.append(bad(context, name, params[name], "it must be a probability from 0 to 1",
                             "Set %s between 0 and 1 (%s)." % (name, "1 is off" if name == "serve_top_p" else "0 is off")))
    if params.has("serve_stall_timeout") and params.has("serve_request_idle_timeout") and \
            params["serve_request_idle_timeout"] < params["serve_stall_timeout"]:
        found.append(bad(context, "serve_request_idle_timeout", params["serve_request_idle_timeout"],
                         "it must be at least serve_stall_timeout (%d): a request queued behind others waits for its "
                         "first byte while the server works" % params["serve_stall_timeout"],
                         "Set serve_request_idle_timeout to %d or more." % params["serve_stall_timeout"]))
    ports = [name for name in ("serve_port", "serve_control_port", "serve_internal_port", "serve_mlx_port")
             if params.has(name)]
    for name in ports:
        if not 1024 <= params[name] <= 65535 - 16:
            found.append(bad(context, name, params[name], "it must be a TCP port from 1024 to 65519",
                             "Set %s to a free port in that range." % name))
    taken = dict((params[name], name) for name in ports)
    if len(taken) < len(ports):
        found.append(bad(context, ports[-1], params[ports[-1]], "serve_port, serve_control_port, "
                         "serve_internal_port and serve_mlx_port must differ", "Give each of them its own port."))
    return found + ipv4_networks(params, context, "serve_allowed_networks") + \
        launchd_label(params, context, "serve_launchd_label", "org.macops.serve") + absolute_path(params, context, "serve_dir") + \
        absolute_path(params, context, "serve_log_dir")


def _is_release(text):
    """Whether `text` is a macOS release as softwareupdate and sw_vers print it (26.3, 26.3.1 (a))."""
    try:
        split_release(text)
    except ValueError:
        return False
    return True


def macos_update(params, context):
    """A password to give, time for an install, a version that parses (the password itself is never shown)."""
    found = at_least(params, context, [("macos_update_deadline", 10, "seconds"),
                                       ("macos_update_restart_timeout", 60, "seconds"),
                                       ("macos_update_stall_timeout", 10, "seconds"),
                                       ("macos_update_free_margin_gb", 0, "GB"),
                                       ("macos_update_poll_interval", 1, "seconds"),
                                       ("macos_update_serve_timeout", 10, "seconds"),
                                       ("macos_update_max_regression_percent", 0, "percent"),
                                       ("macos_update_measure_tokens", 1, "tokens"),
                                       ("macos_update_measure_repeats", 1, "completions")])
    if params.has("macos_update_max_regression_percent") and params["macos_update_max_regression_percent"] >= 100:
        found.append(bad(context, "macos_update_max_regression_percent", params["macos_update_max_regression_percent"],
                         "a drop of 100 % or more can never happen, so the canary would prove nothing",
                         "Set macos_update_max_regression_percent to a value such as 10, or 0 to compare nothing."))
    if params.has("macos_update_version") and params["macos_update_version"] and not _is_release(
            params["macos_update_version"]):
        found.append(bad(context, "macos_update_version", params["macos_update_version"],
                         "it must be a macOS version such as 26.3, a security response such as 26.3.1 (a), or empty",
                         "Set macos_update_version to 26.3 (or 26.3.1 (a) for a security response, or leave it empty "
                         "for the newest minor update every node offers)."))
    if params.has("macos_update_owner_password") and not params["macos_update_owner_password"]:
        found.append(bad(context, "macos_update_owner_password", "", "softwareupdate needs a volume owner's password "
                         "on Apple silicon", "Put it in the vault (macos_update_owner_password: "
                         "'{{ vault_macos_update_owner_password }}') or an AWX credential."))
    labels = params.get("macos_update_stop_labels") or []
    if any(not LAUNCHD_LABEL.match(str(label)) for label in labels):
        found.append(bad(context, "macos_update_stop_labels", labels, "each must be a reverse-DNS launchd label",
                         "List labels such as org.macops.serve."))
    return found
