# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what serve-model.yml runs where, behind the macops.cluster.serve_plan filter.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""The serving plan, from every node's one read (deployment records, hostfiles, the job's present config).

Which model: ``serve_model_name``, else the model deployed last (the newest deployment record). Its ranks
come from the records deploy-model.yml wrote beside each node's files (rank, ranks, layers): they must
cover every layer once, in the rank order of the backend's hostfile, each node's copy complete. The
split is the records' own layer counts (rank 0 holds the last layers, mlx-lm's rule); it is passed to
mlx-lm only when it is not mlx-lm's even split.

Every rank runs under its node's LaunchDaemon through the collection's supervisor (files/serve_supervisor.py):
the plan gives each node its supervisor's configuration, the same document the role writes, so a second
run that finds it unchanged changes nothing. Rank 0's supervisor is the endpoint (a front that pins the
``model`` field and checks the API key) and the leader that restarts every rank together; the others follow
it over the control port. Nothing here connects anywhere: problems come back, the role stops on errors.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import cables_from_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_checks import memory_problems, port_problems

BACKENDS = ("ring", "jaccl", "jaccl-ring")
# exo's instance kinds (POST /place_instance's instance_meta): its jaccl runs on the RDMA devices whatever the
# collection's hostfile calls the ring over them.
EXO_INSTANCE_META = {"ring": "MlxRing", "jaccl": "MlxJaccl", "jaccl-ring": "MlxJaccl"}
# auto: RDMA where the rdma role wrote its hostfile (every device ready), else TCP over the same cables.
AUTO_ORDER = ("jaccl", "jaccl-ring", "ring")
CONFIG_VERSION = 1
INTEGER_SETTINGS = ("memory_headroom_percent", "port", "exo_api_port", "control_port", "internal_port", "ring_port", "ready_timeout",
                    "probe_interval", "stall_timeout", "heartbeat_timeout", "restart_limit", "max_tokens",
                    "request_idle_timeout", "max_request_bytes")
# mlx_lm.server's options the role sets, each from its serve_* variable ({option: (setting, kind)}), in this order.
SERVER_OPTIONS = (("--max-tokens", "max_tokens", int), ("--temp", "temperature", float), ("--top-p", "top_p", float),
                  ("--top-k", "top_k", int), ("--min-p", "min_p", float),
                  ("--chat-template-args", "chat_template_args", dict),
                  ("--decode-concurrency", "decode_concurrency", int),
                  ("--prompt-concurrency", "prompt_concurrency", int),
                  ("--prefill-step-size", "prefill_step_size", int),
                  ("--prompt-cache-size", "prompt_cache_size", int),
                  ("--prompt-cache-bytes", "prompt_cache_bytes", int), ("--kv-bits", "kv_bits", int),
                  ("--trust-remote-code", "trust_remote_code", bool))


def server_options(settings):
    """mlx_lm.server's arguments for the serve_* settings: every option given, so the configuration each node runs
    says what it serves with; a cap or KV bits of 0 is none (the option left out), a flag only when true."""
    options = []
    for option, name, kind in SERVER_OPTIONS:
        value = settings.get(name)
        if kind is bool:
            options += [option] if _true(value) else []
        elif kind is dict:
            options += [option, json.dumps(value or {}, sort_keys=True)]
        elif name in ("prompt_cache_bytes", "kv_bits") and not int(value or 0):
            continue
        else:
            options += [option, str(kind(value))]
    return options


def _true(value):
    return value is True or str(value).lower() in ("true", "yes", "1")


def _name(entry):
    """A hostfile's ssh name as the inventory's: 'admin@mac1' is mac1."""
    return str(entry.get("ssh") or "").rpartition("@")[2]


def _hostfile(facts, path):
    entry = ((facts.get("files") or {}).get(path) or {})
    document = entry.get("json")
    return document if entry.get("exists") and isinstance(document, dict) and document.get("hosts") else None


def _records(facts_by_host, name):
    """{host: deployment record of `name`} and {name: newest record time} over every node."""
    found, newest = {}, {}
    for host, facts in sorted(facts_by_host.items()):
        for record in facts.get("models") or []:
            if record.get("error") or not record.get("name"):
                continue
            newest[record["name"]] = max(newest.get(record["name"], 0), record.get("recorded_at") or 0)
            if record["name"] == name:
                found[host] = record
    return found, newest


def choose_model(facts_by_host, wanted):
    """(name, {host: its deployment record}, [problem]): `wanted`, else the model with the newest deployment
    record on any node."""
    records, newest = _records(facts_by_host, wanted)
    if wanted:
        if records:
            return wanted, records, []
        known = ", ".join(sorted(newest)) or "none"
        return None, {}, [problem("serve_model_unknown", "serve_model_name is %r, but no node holds a deployment of "
                                  "that name (deployed: %s)." % (wanted, known), details={"deployed": sorted(newest)})]
    if not newest:
        return None, {}, [problem("serve_model_unknown", "No node holds a model deploy-model.yml deployed, so "
                                  "there is nothing to serve.")]
    name = max(sorted(newest), key=lambda model: newest[model])
    return name, _records(facts_by_host, name)[0], []


def choose_backend(facts_by_host, wanted, paths, cables=None, deployed_on=None):
    """(backend, hostfile, [problem]): the hostfile every node holds for the backend asked (auto: the first of
    AUTO_ORDER that every node holds the same copy of). A deployment planned on some of the hostfile's nodes
    (`deployed_on`) gets the hostfile narrowed to them (``narrow``, over `cables`); auto passes over a backend
    that cannot be narrowed."""
    problems = []
    for backend in (AUTO_ORDER if wanted == "auto" else (wanted,)):
        copies = dict((host, _hostfile(facts, paths[backend])) for host, facts in facts_by_host.items())
        lacking = sorted(host for host, copy in copies.items() if copy is None)
        distinct = set(json.dumps(copy, sort_keys=True) for copy in copies.values() if copy is not None)
        if not lacking and len(distinct) == 1:
            narrowed, why = narrow(copies[sorted(copies)[0]], deployed_on, cables or []) if deployed_on else (
                copies[sorted(copies)[0]], None)
            if narrowed:
                return backend, narrowed, []
            if wanted == "auto":
                continue
            problems.append(problem("serve_backend_unavailable", "serve_backend is %s, but the model is deployed on "
                                    "%s alone and %s." % (backend, ", ".join(sorted(deployed_on)), why),
                                    details={"backend": backend, "lacking": []}))
            continue
        if wanted != "auto":
            why = ("%s hold(s) no %s hostfile (%s): site.yml writes one only where the cabling and RDMA allow that "
                   "backend" % (", ".join(lacking), backend, paths[backend])) if lacking else \
                "the nodes hold different %s hostfiles (a site.yml run that did not finish)" % backend
            problems.append(problem("serve_backend_unavailable", "serve_backend is %s, but %s." % (backend, why),
                                    host=lacking[0] if lacking else None, details={"backend": backend,
                                                                                   "lacking": lacking}))
    if not problems:
        problems.append(problem("serve_backend_unavailable", "No MLX hostfile is on every node (%s): the cluster has "
                                "no backend to serve over." % ", ".join(sorted(paths.values()))))
    return None, None, problems


def narrow(hostfile, members, cables):
    """(hostfile, None) for a deployment on `members`, some or all of the hostfile's nodes, in the hostfile's rank
    order; (None, why) when the backend cannot run on them alone. jaccl: the members' rows and columns of the
    device matrix (a full mesh links every pair). ring: each member's own address on a cable from the member
    before it (`cables`: the applied Thunderbolt plan's, cables_from_plan), as the rdma role's ring hostfile is
    made. jaccl-ring names only its ring neighbours' devices, so it runs on every node or not at all."""
    entries = hostfile["hosts"]
    kept = [index for index, entry in enumerate(entries) if _name(entry) in members]
    if len(kept) == len(entries):
        return hostfile, None
    if hostfile.get("backend") == "jaccl":
        rows = [entries[i].get("rdma") or [None] * len(entries) for i in kept]
        return dict(hostfile, hosts=[dict(entries[i], rdma=[row[j] for j in kept]) for i, row in zip(kept, rows)]), None
    if hostfile.get("backend") != "ring":
        return None, "%s's hostfile names only each node's ring neighbours' devices" % hostfile.get("backend")
    order = [_name(entries[i]) for i in kept]
    narrowed = []
    for position, host in enumerate(order):
        before = order[position - 1]
        between = [c for c in cables if set((c["a"], c["b"])) == set((before, host))]
        if not between:
            return None, "no cable joins %s and %s, next to each other in its ring" % (before, host)
        cable = between[0]  # cables_from_plan gives them in link id order
        narrowed.append(dict(entries[kept[position]], ips=[cable["a_ip"] if cable["a"] == host else cable["b_ip"]]))
    return dict(hostfile, hosts=narrowed), None


def _cables(facts_by_host, path):
    """The cables of the applied Thunderbolt plan the nodes hold (the first node's that reads), or []."""
    for _host, facts in sorted(facts_by_host.items()):
        document = ((facts.get("files") or {}).get(path) or {}).get("json")
        if isinstance(document, dict) and isinstance(document.get("hosts"), dict):
            try:
                return cables_from_plan(document["hosts"])
            except PlanError:
                continue
    return []


def _rank_problems(records, order, name, mode="pipeline"):
    """Problems with the records of `name` against the hostfile's rank order `order`: pipelined, the ranks' layers
    cover every layer once; tensor parallel, every rank holds every layer (a slice of each)."""
    problems = []
    ranks = set(int(record.get("ranks") or 0) for record in records.values())
    if len(ranks) != 1:
        return [problem("serve_split_mismatch", "The nodes' records of %s disagree on the rank count (%s): parts "
                        "of two deployments." % (name, ", ".join("%s: %s" % (h, r.get("ranks"))
                                                                 for h, r in sorted(records.items()))))]
    count = ranks.pop()
    by_rank = dict((int(record["rank"]), host) for host, record in records.items())
    for rank in range(count):
        host = by_rank.get(rank)
        if host is None:
            want = order[rank] if rank < len(order) else "?"
            problems.append(problem("serve_model_incomplete", "Rank %d of %s (layers for %s) is on no node: %s holds "
                                    "no copy of it." % (rank, name, want, want), host=want))
        elif rank >= len(order) or order[rank] != host:
            problems.append(problem("serve_split_mismatch", "%s holds rank %d of %s, but the hostfile's rank %d is %s: "
                                    "the cabling changed since the deployment." % (
                                        host, rank, name, rank, order[rank] if rank < len(order) else "nobody"),
                                    host=host))
    for host, record in sorted(records.items()):
        if not record.get("complete"):
            missing = list(record.get("missing") or []) + list(record.get("wrong_size") or [])
            problems.append(problem("serve_model_incomplete", "%s's copy of %s lacks %d file(s) or holds them cut "
                                    "short (%s)." % (host, name, len(missing), ", ".join(missing[:4])), host=host,
                                    details={"missing": missing}))
    covered = sorted((record["layers"][0], record["layers"][1]) for record in records.values()
                     if record.get("layers"))
    if mode == "tensor":
        spans = set(covered)
        if len(spans) > 1:
            problems.append(problem("serve_split_mismatch", "The records of %s, deployed for tensor parallel, do "
                                    "not give every rank the same layers (%s)." % (name, ", ".join(
                                        "%d-%d" % (start, end - 1) for start, end in sorted(spans)))))
        return problems
    expected = 0
    for start, end in sorted(covered, reverse=False):
        if start != expected:
            problems.append(problem("serve_split_mismatch", "The records of %s do not cover the layers once: layer "
                                    "%d follows layer %d." % (name, start, expected - 1)))
            break
        expected = end
    return problems


def _split(records, count, mode):
    """Per-rank layer counts (rank order), or None for tensor mode and for mlx-lm's own even split."""
    if mode != "pipeline":
        return None
    by_rank = dict((int(r["rank"]), r["layers"][1] - r["layers"][0]) for r in records.values())
    counts = [by_rank[rank] for rank in range(count)]
    base, extra = divmod(sum(counts), count)
    return None if counts == [base + (1 if rank < extra else 0) for rank in range(count)] else counts


def launch(hostfile, port):
    """What each supervisor needs to set MLX's init up as mlx.launch would (serve_supervisor.py's launch_files):
    each rank's first address (ring: where it accepts from the previous rank; jaccl: rank 0's is the
    coordinator), the RDMA devices (jaccl) and, per rank, its port in each of the two blocks generations take
    turns on (a new rank 0 never waits for the old one's port to leave TIME_WAIT)."""
    hosts = hostfile["hosts"]
    count = len(hosts)
    return {"ips": [(h.get("ips") or [None])[0] for h in hosts], "rdma": [h.get("rdma") for h in hosts],
            "ports": [[port + block * count + rank for rank in range(count)] for block in (0, 1)]}


def actions(facts_by_host, configs, settings):
    """{host: {stop, start}}: stop the node's job when it runs and should not, or runs another configuration, or a
    restart was asked (every node stops before any starts: the old model's memory is free before the new one
    loads); start it where the plan gives the node a configuration that is not running yet. ``running`` is the
    configuration the loaded job runs (None when no job is loaded)."""
    found = {}
    for host, facts in sorted(facts_by_host.items()):
        config = configs.get(host)
        loaded = bool((facts.get("launchd") or {}).get(settings["launchd_label"]))
        running = ((facts.get("files") or {}).get(settings["config_path"]) or {}).get("json") if loaded else None
        stop = loaded and (settings["state"] != "started" or config != running)
        start = settings["state"] != "stopped" and config is not None and (stop or not loaded)
        found[host] = {"stop": stop, "start": start, "running": running,
                       "says": _says(host, loaded, stop, start, config if settings["state"] != "stopped" else None)}
    return found


def _says(host, loaded, stop, start, config):
    """What the run does on `host`, in a sentence (the role shows it, check mode included)."""
    job = ("%s the serving job on %s" % ("Stop" if stop else "Keep", host)) if loaded else "No serving job on %s" % host
    if config is None:
        return job + "; serve nothing here."
    if config["runtime"] == "exo":
        return job + "; then %s the exo instance of %s through exo's API (%s; exo runs a runner on every node)." % (
            "place" if start else "keep", config["model"], config["exo"]["instance_meta"])
    return job + "; then %s rank %d of %s (%s over %s)." % (
        "start" if start else "keep", config["rank"], config["model"], config["runtime"], config["backend"])


def serve_plan(facts_by_host, settings):
    """The plan: model, ranks, backend, endpoint, each node's supervisor config and what stops and starts where
    (``actions``); ``problems`` (errors stop the role before any job stops or starts). ``settings`` holds the role's
    inputs (see roles/serve/vars/main.yml)."""
    settings = dict(settings, **dict((key, int(settings[key])) for key in INTEGER_SETTINGS))
    plan = {"model": None, "ranks": [], "configs": {}, "problems": []}
    plan["problems"] = _plan(plan, facts_by_host, settings)
    plan["actions"] = actions(facts_by_host, plan["configs"], settings)
    if not plan["problems"]:
        plan["problems"] = port_problems(facts_by_host, plan, settings) + memory_problems(facts_by_host, plan,
                                                                                          settings)
    return plan


def _plan(plan, facts_by_host, settings):
    """Fill `plan` in; the problems that leave it without configurations."""
    name, records, problems = choose_model(facts_by_host, settings["model_name"])
    if problems:
        return problems
    members = dict((host, facts_by_host[host]) for host in records)
    # A deployment planned on some of the nodes (deploy_model_nodes, deploy_model_smallest_fit): as many records as
    # its ranks. Fewer records than ranks is a copy lost, which _rank_problems names.
    planned_on = set(records) if set(int(r.get("ranks") or 0) for r in records.values()) == {len(records)} else None
    backend, hostfile, problems = choose_backend(members, settings["backend"], settings["hostfile_paths"],
                                                 _cables(members, settings["tb_plan_path"]), planned_on)
    if problems:
        return problems
    sample = records[sorted(records)[0]]
    runtime = settings["runtime"] or sample.get("runtime") or "mlx-lm"
    # mlx-lm's ranks follow the hostfile's order; exo places its runners itself, in the order deploy-model.yml
    # planned with exo's rule (the records' ranks).
    order = [_name(entry) for entry in hostfile["hosts"]] if runtime == "mlx-lm" else sorted(
        records, key=lambda host: int(records[host].get("rank") or 0))
    problems = _rank_problems(records, order, name, sample.get("mode") or "pipeline")
    if runtime != (sample.get("runtime") or "mlx-lm"):
        problems.append(problem("serve_runtime_mismatch", "serve_runtime is %s, but %s was deployed for %s: each "
                                "runtime needs its own placement of the files (exo: a complete copy on every node)."
                                % (runtime, name, sample.get("runtime") or "mlx-lm"), details={"runtime": runtime}))
    if problems:
        return problems
    count, mode = len(order), sample.get("mode") or "pipeline"
    split = _split(records, count, mode) if runtime == "mlx-lm" else None
    leader = order[0]
    programs = dict((program, hashlib.sha256(text.encode("utf-8")).hexdigest())
                    for program, text in sorted((settings.get("programs") or {}).items()))
    endpoint_host = settings["host"] or settings["addresses"][leader]
    plan.update(model={"name": name, "model_id": sample.get("model_id") or name, "mode": mode, "runtime": runtime,
                       "runtime_version": sample.get("runtime_version")},
                backend=backend, split=split, leader=leader,
                endpoint={"host": endpoint_host, "port": settings["port"],
                          "url": "http://%s:%d" % (endpoint_host, settings["port"])})
    for rank, host in enumerate(order):
        record = records[host]
        plan["ranks"].append({"rank": rank, "host": host, "layers": record["layers"], "path": record["path"],
                              "bytes": record.get("bytes"), "total_layers": max(r["layers"][1] for r in
                                                                                records.values())})
    common = {"version": CONFIG_VERSION, "runtime": runtime, "model": name, "model_id": plan["model"]["model_id"],
              "mode": mode,
              "ranks": count, "hosts": order, "backend": backend, "run_dir": settings["run_dir"],
              "ready_timeout": settings["ready_timeout"], "probe_interval": settings["probe_interval"],
              "stall_timeout": settings["stall_timeout"], "restart_limit": settings["restart_limit"],
              "heartbeat_timeout": settings["heartbeat_timeout"], "programs": programs, "log_dir": settings["log_dir"]}
    # The endpoint's own settings, rank 0's only; the scrape token's file opens /metrics (serve_metrics.py).
    front = {"request_idle_timeout": settings["request_idle_timeout"], "max_request_bytes": settings["max_request_bytes"],
             "metrics_token_file": settings.get("metrics_token_file")}
    if runtime == "exo":
        plan["configs"][leader] = dict(
            common, rank=0, model_path=records[leader]["path"], endpoint=dict(plan["endpoint"]), **front,
            api_key_file=settings["api_key_file"], wait_for_addresses=[],
            # A new deployment places the instance again on its files.
            deployed_at=records[leader].get("recorded_at"),
            exo={"api_port": settings["exo_api_port"], "model_id": plan["model"]["model_id"],
                 "sharding": "Tensor" if mode == "tensor" else "Pipeline",
                 "instance_meta": EXO_INSTANCE_META[backend], "min_nodes": count})
        return []
    started_by = launch(hostfile, settings["ring_port"])
    for rank, host in enumerate(order):
        record = records[host]
        server_args = ["--model", record["path"], "--host", "127.0.0.1", "--port", str(settings["internal_port"])] + \
            server_options(settings) + (["--pipeline"] if mode == "pipeline" else [])
        plan["configs"][host] = dict(
            common, model_path=record["path"], rank=rank, split=split,
            leader={"host": leader, "control": "%s:%d" % (settings["addresses"][leader], settings["control_port"])},
            endpoint=dict(plan["endpoint"]) if rank == 0 else None,
            control_port=settings["control_port"], internal_port=settings["internal_port"],
            wait_for_addresses=list(hostfile["hosts"][rank].get("ips") or []),
            python=settings["python"], launcher=settings["launcher"], server_args=server_args,
            launch=started_by, launch_env={"MLX_RANK": str(rank), "HF_HUB_OFFLINE": "1",
                                           # The layers this rank must prove it holds once loaded (serve_rank.py).
                                           "MACOPS_SERVE_LAYERS": json.dumps(
                                               {"mode": mode, "layers": record["layers"] if mode == "pipeline"
                                                else None}, sort_keys=True)},
            api_key_file=settings["api_key_file"] if rank == 0 else None,
            # When a deployment last changed this node's copy: a new deployment restarts every rank on its files.
            deployed_at=record.get("recorded_at"), **(front if rank == 0 else {}))
    return []
