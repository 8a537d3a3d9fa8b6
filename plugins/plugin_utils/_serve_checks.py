# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: serve-model.yml's checks of the nodes before anything stops or starts. Names and
# behaviour may change without notice. Stdlib only, Python 3.9.
"""What the serving plan (_serve_plan.py) must find free on each node before the run stops or starts anything:
the TCP ports serving listens on (node_facts' ``listening``: lsof) and the memory a rank that starts needs
(node_facts' ``memory``: vm_stat, ``wired_limit``, the Mac's memory). The serving job's own processes and memory
do not count against it: they stop first."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._lsof import holders
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem


def planned_ports(plan, settings):
    """{host: [(address, port, variable, what)]}: every TCP port serving will listen on, per node: the endpoint, and
    for mlx-lm the control port, rank 0's own server and MLX's ports in both blocks the generations take turns on
    (the plan's launch, which serve_supervisor.py's launch_files uses). exo's own ports are exo's."""
    wanted = dict((rank["host"], []) for rank in plan["ranks"])
    wanted[plan["leader"]].append((plan["endpoint"]["host"], plan["endpoint"]["port"], "serve_port", "the endpoint"))
    if plan["model"]["runtime"] != "mlx-lm":
        return wanted
    leader = plan["configs"][plan["leader"]]
    launch = leader["launch"]
    for rank in plan["ranks"]:
        if plan["backend"] == "ring" or rank["rank"] == 0:
            for block in launch["ports"]:
                wanted[rank["host"]].append((launch["ips"][rank["rank"]], block[rank["rank"]], "serve_mlx_port",
                                             "MLX's %s port of rank %d" % (plan["backend"], rank["rank"])))
    wanted[plan["leader"]].append((settings["addresses"][plan["leader"]], settings["control_port"],
                                   "serve_control_port", "the supervisors' control port"))
    wanted[plan["leader"]].append(("127.0.0.1", settings["internal_port"], "serve_internal_port",
                                   "rank 0's own server"))
    return wanted


def port_problems(facts_by_host, plan, settings):
    """serve_port_in_use for each port serving needs that another program listens on (node_facts' listening),
    the serving job's own processes (their pids in the node's status.json) left out: they stop first."""
    problems = []
    for host, ports in sorted(planned_ports(plan, settings).items()):
        facts = facts_by_host.get(host) or {}
        if "listening" not in facts:
            continue
        status = ((facts.get("files") or {}).get(settings.get("status_path")) or {}).get("json") or {}
        ours = set(pid for pid in (status.get("supervisor_pid"), status.get("rank_pid")) if pid)
        for address, port, variable, what in ports:
            holder = next((h for h in holders(facts["listening"], port, address) if h["pid"] not in ours), None)
            if holder:
                problems.append(problem(
                    "serve_port_in_use", "%s's TCP port %d (%s, %s) is taken: %s (pid %s) listens on %s:%d." % (
                        host, port, variable, what, holder["command"], holder["pid"], holder["address"], port),
                    "Stop that program on %s (sudo lsof -nP -iTCP:%d -sTCP:LISTEN names it), or set %s to a free "
                    "port." % (host, port, variable), host=host, port=str(port),
                    details={"variable": variable, "pid": holder["pid"], "command": holder["command"]}))
    return problems


# Without a wired limit set (iogpu.wired_limit_mb 0), macOS lets the GPU wire about three quarters of the memory.
DEFAULT_GPU_SHARE = 0.75
GB = 1e9


def _weights(rank, runtime, mode="pipeline", ranks=1):
    """About the bytes of weights `rank` loads: its own files (mlx-lm pipelined), its slice of every layer of the
    full copy (mlx-lm tensor parallel: one of `ranks` shares), or its layers' share of the complete copy every node
    holds (exo)."""
    size = int(rank.get("bytes") or 0)
    if runtime == "mlx-lm" and mode == "tensor":
        return size // max(1, ranks)
    if runtime == "mlx-lm" or not rank.get("total_layers"):
        return size
    return size * (rank["layers"][1] - rank["layers"][0]) // rank["total_layers"]


def _records_of(facts_by_host, name):
    """{host: its record of model `name`}."""
    found = {}
    for host, facts in facts_by_host.items():
        for record in (facts or {}).get("models") or []:
            if record.get("name") == name and record.get("layers"):
                found[host] = record
    return found


def _freed(facts_by_host, plan, host):
    """About the bytes the run's stops free on `host`: its own mlx-lm rank's weights when its job stops, or its share
    of the layers of the exo instance whose placing job stops (exo's runners on every node go with it)."""
    running = plan["actions"][host]["running"]
    if isinstance(running, dict) and running.get("runtime", "mlx-lm") == "mlx-lm":
        return sum(int(r.get("bytes") or 0) for r in (facts_by_host.get(host) or {}).get("models") or []
                   if r.get("path") == running.get("model_path"))
    for action in plan["actions"].values():
        placed = action["running"]
        if action["stop"] and isinstance(placed, dict) and placed.get("runtime") == "exo":
            records = _records_of(facts_by_host, placed.get("model"))
            if host in records:
                total = max(r["layers"][1] for r in records.values())
                return _weights(dict(records[host], total_layers=total), "exo")
    return 0


def memory_problems(facts_by_host, plan, settings):
    """serve_memory_short where a rank that starts does not fit: its weights plus serve_memory_headroom_percent
    against what a new program can have there (vm_stat; plus what the serving job's own rank frees when it stops)
    and against what the GPU may wire (iogpu.wired_limit_mb, else about three quarters of the memory). exo's
    runners start on every node when rank 0's node places the instance."""
    problems = []
    share = 1 + settings["memory_headroom_percent"] / 100.0
    runtime = plan["model"]["runtime"]
    for rank in plan["ranks"]:
        host = rank["host"]
        facts = facts_by_host.get(host) or {}
        action = plan["actions"][host if runtime == "mlx-lm" else plan["leader"]]
        if "memory" not in facts or not action["start"]:
            continue
        need = _weights(rank, runtime, plan["model"]["mode"], len(plan["ranks"])) * share
        freed = _freed(facts_by_host, plan, host)
        available = facts["memory"]["available_bytes"] + freed
        live_mb = (facts.get("wired_limit") or {}).get("live_mb")
        memory = (facts.get("mac") or {}).get("memory_bytes")
        limit = live_mb * 1048576 if live_mb else (memory * DEFAULT_GPU_SHARE if memory else None)
        what = "rank %d of %s needs about %.1f GB (its %.1f GB of weights + %d %%)" % (
            rank["rank"], plan["model"]["name"], need / GB, need / share / GB, settings["memory_headroom_percent"])
        details = {"need_bytes": int(need), "available_bytes": int(available), "gpu_limit_bytes": limit}
        if need > available:
            problems.append(problem(
                "serve_memory_short", "%s: %s, but only %.1f GB are free for it beside what already runs there "
                "(vm_stat%s)." % (host, what, available / GB, ", with serving's own rank stopped" if freed else ""),
                host=host, details=details))
        elif limit and need > limit:
            problems.append(problem(
                "serve_memory_short", "%s: %s, more than the %.1f GB the GPU may wire there (iogpu.wired_limit_mb %s)."
                % (host, what, limit / GB, live_mb if live_mb else "0: the macOS default"), host=host, details=details))
    return problems
