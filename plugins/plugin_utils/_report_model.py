# -*- coding: utf-8 -*-
# PRIVATE to the collection: the data model behind the cluster health report (roles/report).
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Build the report's data model from what the other roles collected, with one overall verdict.

The model is what `report.json` holds and what the HTML, Markdown and SVG renderers draw. It is a
pure function of its inputs: the same facts give byte-identical files, so the report role stays
idempotent. Volatile run information (start and end times) lives only under `run`, and
`fingerprint` hashes everything else so that CI can tell "same cluster state, new run" apart.

Every input key may be missing (a node that failed early): such data is None in the model and
rendered as "not checked"; nothing here raises on partial input.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

from ansible_collections.macops.cluster.plugins.module_utils._problems import (
    PROBLEM_KEYS,
    REGISTRY,
    UnknownProblemCode,
    is_problem,
    problem,
)
from ansible_collections.macops.cluster.plugins.module_utils._thunderbolt_items import describe_device

from ._deployed_models import group_deployed_models
from ._report_sections import ordered
from ._topology_common import ERROR, INFO, WARNING, TopologyError, describe_port, link_id_of, natural_key

# 2: problems are the one shape of plugins/module_utils/_problems.py (peer, not peer_host; the
# cable's id and who found it under details), and anything else arrives as problem_unregistered.
# 3: a section per operation of the run (sections: doctor, reboot, deploy, benchmark), one schema for
# every playbook's report.json (docs/report.schema.json).
SCHEMA_VERSION = 3
DEFAULT_TITLE = "Mac cluster health"
SEVERITIES = (ERROR, WARNING, INFO)
SEVERITY_RANK = dict((severity, rank) for rank, severity in enumerate(SEVERITIES))
HEALTHY = "healthy"
DEGRADED = "degraded"
FAILED = "failed"
GIB = 1024 ** 3

# Versions that must match on every node: MLX's distributed backends and exo talk to each other
# with their own wire formats, so mixed versions fail in ways that look like network trouble
# (JACCL needs MLX 0.30.1 or later, exo PR #997; a GID-selection regression gives RTR errno 22, mlx #3467).
PINNED_SOFTWARE = ("python", "mlx", "mlx_lm", "exo")
HOSTFILE_BACKENDS = ("ring", "jaccl", "jaccl-ring")

NODE_UNREACHABLE = "node_unreachable"
NODE_FACTS_MISSING = "node_facts_missing"
SOFTWARE_VERSION_MISMATCH = "software_version_mismatch"
GPU_WIRED_LIMIT_DIFFERS = "gpu_wired_limit_differs"
SERVICE_NOT_RUNNING = "service_not_running"
CHECK_FAILED = "check_failed"
NO_NODES = "report_no_nodes"
UNREGISTERED = "problem_unregistered"


class ReportError(TopologyError):
    """Input the report renderers cannot use."""


def checked_model(model):
    """The model itself, or ReportError when `model` is not what build_report_model returns."""
    if not isinstance(model, dict) or model.get("schema_version") != SCHEMA_VERSION \
            or not isinstance(model.get("topology"), dict) or not isinstance(model.get("nodes"), list):
        raise ReportError("expected the report model (build_report_model, schema_version %d)" % SCHEMA_VERSION)
    return model


def _dict(value):
    return value if isinstance(value, dict) else {}


def _optional_dict(value):
    return value if isinstance(value, dict) else None


def _text(value):
    return None if value is None else str(value)


def _derived_problem(code, severity, message, fix, host=None, source="report"):
    """A problem the report finds itself in the nodes' data."""
    return problem(code, message, fix, host=host, severity=severity, details={"source": source})


def _jsonable(value):
    try:
        return json.loads(json.dumps(value, sort_keys=True, default=str))
    except (TypeError, ValueError):
        return str(value)


def _unregistered(raw, source, host, reason):
    """What arrived in place of a problem, reported as an error of its own: never dropped."""
    what = raw.get("code") if isinstance(raw, dict) else None
    return problem(
        UNREGISTERED,
        "A %s finding is not a registered problem (%s): %s" % (
            source, reason, json.dumps(_jsonable(raw), sort_keys=True)[:500]),
        "This is a bug in whatever built it%s: build it with problem() or the macops.cluster.problem filter, "
        "with a code listed in docs/problems.md." % ((" (code %r)" % what) if what else ""),
        host=host, severity=ERROR, details={"source": source, "received": _jsonable(raw)})


def _why_not_a_problem(raw):
    if not isinstance(raw, dict):
        return "a %s, not a dict" % type(raw).__name__
    keys = set(raw)
    if keys != set(PROBLEM_KEYS):
        missing, extra = sorted(set(PROBLEM_KEYS) - keys), sorted(keys - set(PROBLEM_KEYS))
        return "keys differ from the problem shape%s%s" % (
            (", missing " + ", ".join(missing)) if missing else "", (", extra " + ", ".join(extra)) if extra else "")
    reasons = []
    if raw["code"] not in REGISTRY:
        reasons.append("code %r is not in the registry" % (raw["code"],))
    if raw["severity"] not in SEVERITIES:
        reasons.append("severity %r is not one of %s" % (raw["severity"], ", ".join(SEVERITIES)))
    reasons += ["%s is not a non-empty string" % key for key in ("message", "fix")
                if not isinstance(raw[key], str) or not raw[key]]
    reasons += ["%s is a %s, not a string or null" % (key, type(raw[key]).__name__) for key in ("host", "port", "peer")
                if raw[key] is not None and not isinstance(raw[key], str)]
    if not isinstance(raw["details"], dict):
        reasons.append("details is a %s, not a dict" % type(raw["details"]).__name__)
    return "; ".join(reasons)


def accept_problem(raw, source, host=None):
    """A copy of a problem in the one shape, with its source (and ``host`` when it names none);
    anything else becomes a problem_unregistered error that shows what arrived."""
    if not is_problem(raw):
        return _unregistered(raw, source, host, _why_not_a_problem(raw))
    accepted = dict(raw, details=dict(raw["details"] or {}, source=source))
    if accepted["host"] is None and host is not None:
        accepted["host"] = str(host)
    return accepted


def problem_sort_key(problem):
    """Errors first, then warnings, then info; within one severity cluster-wide problems first,
    then hosts in natural order (mac2 before mac10), then port and code."""
    host = problem.get("host")
    return (SEVERITY_RANK.get(problem.get("severity"), len(SEVERITIES)),
            (0, ()) if host is None else (1, natural_key(host)),
            natural_key(problem.get("port") or ""), problem.get("code") or "",
            problem.get("message") or "")


def _host_names(report_nodes, topology):
    names = set(report_nodes)
    names.update(h.get("name") for h in topology.get("hosts") or [] if isinstance(h, dict) and h.get("name"))
    return sorted((str(n) for n in names), key=natural_key)


def _memory_gb(memory_bytes):
    if not isinstance(memory_bytes, (int, float)) or isinstance(memory_bytes, bool):
        return None
    return int(round(memory_bytes / GIB))


def _hardware(mac, summary):
    # The topology's host summary repeats model and macOS facts; use it when `mac` is missing so a
    # node whose facts reached the planner but not the report still shows what it is.
    source = mac if mac is not None else summary
    if not source:
        return None
    return {
        "model_name": _text(source.get("model_name")),
        "model_id": _text(source.get("model_id")),
        "chip": _text(source.get("chip")),
        "memory_bytes": source.get("memory_bytes"),
        "memory_gb": _memory_gb(source.get("memory_bytes")),
        "macos_version": _text(source.get("macos_version")),
        "macos_version_extra": _text(source.get("macos_version_extra")),
        "macos_build": _text(source.get("macos_build")),
    }


def _thunderbolt(mac):
    if mac is None or not isinstance(mac.get("thunderbolt_ports"), list):
        return None
    ports = [p for p in mac["thunderbolt_ports"] if isinstance(p, dict)]
    return {"ports": len(ports), "cabled": len([p for p in ports if p.get("connected")]),
            "devices": _port_devices(ports)}


def _port_devices(ports):
    """Drives, docks and displays on the Thunderbolt ports (not Macs), per port, as printed."""
    devices = []
    for port in ports:
        receptacle, interface = port.get("receptacle"), _text(port.get("interface"))
        for device in port.get("devices") or []:
            if not isinstance(device, dict):
                continue
            devices.append({
                "receptacle": receptacle, "interface": interface,
                "port": describe_port(interface, receptacle) if isinstance(receptacle, int) else (interface or "?"),
                "name": _text(device.get("name")), "vendor": _text(device.get("vendor")),
                "mode": _text(device.get("mode")), "speed": _text(device.get("speed")),
                "upstream": _text(device.get("upstream")), "description": describe_device(device)})
    return devices


def _rdma(rdma):
    if rdma is None:
        return None
    ports = []
    for port in rdma.get("ports") or []:
        if isinstance(port, dict):
            ports.append({"device": _text(port.get("device")), "interface": _text(port.get("interface")),
                          "present": port.get("present"), "state": _text(port.get("state")),
                          "active": port.get("active"), "speed_gbps": port.get("speed_gbps")})
    ports.sort(key=lambda p: natural_key(p["interface"] or p["device"] or ""))
    return {"enabled": rdma.get("enabled"), "ready": rdma.get("ready"), "ports": ports}


def _software(software):
    if software is None:
        return None
    return dict((key, _text(software.get(key))) for key in sorted(set(PINNED_SOFTWARE) | set(software)))


def _gpu(gpu):
    if gpu is None:
        return None
    return {"wired_limit_mb": gpu.get("wired_limit_mb"), "target_mb": gpu.get("target_mb")}


def _services(services):
    if services is None:
        return None
    result = []
    for name in sorted(services, key=natural_key):
        service = _dict(services[name])
        result.append({"name": str(name), "running": service.get("running"), "pid": service.get("pid"),
                       "detail": _text(service.get("detail"))})
    return result


def _checks(checks):
    if not isinstance(checks, list):
        return None
    return [{"name": str(_dict(c).get("name") or "unnamed check"), "ok": _dict(c).get("ok"),
             "detail": _text(_dict(c).get("detail"))} for c in checks]


def _addresses(topology, host):
    ports = _dict(_dict(_dict(topology.get("addresses")).get("hosts")).get(host))
    return [{"interface": interface, "ip": _dict(entry).get("ip"), "prefix": _dict(entry).get("prefix"),
             "peer_host": _dict(entry).get("peer_host"), "peer_ip": _dict(entry).get("peer_ip"),
             "link_id": _dict(entry).get("link_id")}
            for interface, entry in sorted(ports.items(), key=lambda item: natural_key(item[0]))]


def _node_problems(name, data, node, explained):
    """Problems the node's own data shows: unreachable, missing facts, services, checks, GPU. One that a
    role reported itself (``explained``: its (code, host)) is that role's, with its message and fix, and
    is not derived here; a failed check is a problem only when its role published none for it."""
    def unexplained(code):
        return (code, name) not in explained

    problems = []
    if data.get("reachable") is False and unexplained(NODE_UNREACHABLE):
        problems.append(_derived_problem(
            NODE_UNREACHABLE, ERROR, "%s could not be reached, so nothing on it was checked." % name,
            "Check that %s is powered on and answers `ssh %s` from the controller, then run the playbook "
            "again." % (name, name), host=name, source="node"))
    elif data.get("reachable") is not False and node["hardware"] is None and unexplained(NODE_FACTS_MISSING):
        problems.append(_derived_problem(
            NODE_FACTS_MISSING, WARNING, "No facts were collected from %s: its hardware, cabling and "
            "versions are not checked." % name,
            "Run the playbook again without --limit or tags that skip fact gathering on %s." % name,
            host=name, source="node"))
    for service in node["services"] or []:
        if service["running"] is False and unexplained(SERVICE_NOT_RUNNING):
            problems.append(_derived_problem(
                SERVICE_NOT_RUNNING, WARNING, "Service %s is not running on %s%s." % (
                    service["name"], name, (": " + service["detail"]) if service["detail"] else ""),
                "Read the service's log on %s, then run the playbook again to restart %s."
                % (name, service["name"]), host=name, source="node"))
    for check in _dict(data).get("checks") or []:
        check = _dict(check)
        if check.get("ok") is False and unexplained(check.get("code") or CHECK_FAILED):
            problems.append(_check_problem(name, check))
    gpu = node["gpu"]
    if gpu and gpu["target_mb"] is not None and gpu["wired_limit_mb"] is not None \
            and gpu["wired_limit_mb"] != gpu["target_mb"] and unexplained(GPU_WIRED_LIMIT_DIFFERS):
        problems.append(_derived_problem(
            GPU_WIRED_LIMIT_DIFFERS, WARNING, "GPU wired memory limit on %s is %s MB, the plan says %s MB "
            "(iogpu.wired_limit_mb does not survive a reboot)." % (name, gpu["wired_limit_mb"], gpu["target_mb"]),
            "Run the playbook again to set iogpu.wired_limit_mb=%s on %s." % (gpu["target_mb"], name),
            host=name, source="node"))
    return problems


def _check_problem(name, check):
    """A failed check is a problem with the check's code (check_failed when it has none)."""
    label = check.get("name") or "unnamed check"
    try:
        return problem(
            check.get("code") or CHECK_FAILED,
            "Check '%s' failed on %s%s." % (label, name, (": %s" % check["detail"]) if check.get("detail") else ""),
            check.get("fix") or "Run the playbook again with -v and read the output of '%s' on %s." % (label, name),
            host=name, port=check.get("port"), severity=check.get("severity") or ERROR,
            details={"source": "check"})
    except (UnknownProblemCode, ValueError) as exc:
        return _unregistered(check, "check", name, str(exc))


def software_problems(nodes):
    """One problem per node whose pinned software differs from what most nodes run."""
    problems = []
    for key in PINNED_SOFTWARE:
        by_version = {}
        for node in nodes:
            version = (node["software"] or {}).get(key)
            if version:
                by_version.setdefault(version, []).append(node["name"])
        if len(by_version) < 2:
            continue
        # Ties go to the newer version: updating the laggards is the way forward.
        wanted = max(by_version, key=lambda v: (len(by_version[v]), natural_key(v)))
        for version in sorted(by_version, key=natural_key):
            if version == wanted:
                continue
            for host in by_version[version]:
                problems.append(_derived_problem(
                    SOFTWARE_VERSION_MISMATCH, WARNING,
                    "%s runs %s %s; %s of %s nodes run %s." % (
                        host, key, version, len(by_version[wanted]), len(nodes), wanted),
                    "Install %s %s on %s (pin the same version for every node and run the playbook again)."
                    % (key, wanted, host), host=host, source="node"))
    return problems


def _rdma_problems(name, rdma, topology):
    """rdma_status problems, each tied to its cable when the address plan knows the port."""
    ports = _dict(_dict(_dict(topology.get("addresses")).get("hosts")).get(name))
    problems = []
    for raw in (rdma or {}).get("problems") or []:
        found = accept_problem(raw, "rdma", host=name)
        entry = _dict(ports.get(found["port"])) if found["port"] and found["code"] != UNREGISTERED else {}
        if entry.get("link_id") and link_id_of(found) is None:
            found["details"]["link_id"] = _text(entry["link_id"])
            found["peer"] = found["peer"] or _text(entry.get("peer_host"))
        problems.append(found)
    return problems


def _dedupe(problems):
    """Drop repeats: a slow cable is seen by the planner and by rdma_status on both of its Macs, and
    a node's finding the report tied to its cable (a link id, the peer) may also arrive untied (the
    doctor's copy of the same rdma_status problem): the tied one stays. A finding that names its direction
    (details.direction: a benchmark's slow cable, each way) is one per direction."""
    tied = set((p["code"], p["host"], p["port"], p["message"]) for p in problems if link_id_of(p))
    seen = set()
    kept = []
    for found in problems:
        if not link_id_of(found) and (found["code"], found["host"], found["port"], found["message"]) in tied:
            continue
        if link_id_of(found):
            # One finding per cable, or per cable and direction where it names one (a benchmark's).
            key = (found["code"], "link", link_id_of(found), found["details"].get("direction"))
        else:
            key = (found["code"], found["host"], found["port"], found["message"])
        if key not in seen:
            seen.add(key)
            kept.append(found)
    return kept


def _end(end, ip):
    interface = _text(end.get("interface"))
    receptacle = end.get("receptacle")
    return {"host": _text(end.get("host")), "interface": interface, "receptacle": receptacle,
            "port": describe_port(interface, receptacle) if isinstance(receptacle, int) else (interface or "?"),
            "ip": ip}


def _links(topology, problems):
    address_links = _dict(_dict(topology.get("addresses")).get("links"))
    links = []
    for raw in topology.get("links") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("a"), dict) or not isinstance(raw.get("b"), dict):
            continue
        link_id = _text(raw.get("id"))
        plan = _dict(address_links.get(link_id))
        linked = [p for p in problems if link_id and link_id_of(p) == link_id]
        codes = []
        for found in linked:
            if found["code"] not in codes:
                codes.append(found["code"])
        worst = min([SEVERITY_RANK[p["severity"]] for p in linked] or [len(SEVERITIES)])
        links.append({
            "id": link_id, "a": _end(raw["a"], plan.get("a_ip")), "b": _end(raw["b"], plan.get("b_ip")),
            "speed_gbps": raw.get("speed_gbps"), "tb5": raw.get("tb5"), "subnet": plan.get("subnet"),
            "problem_codes": codes,
            "severity": SEVERITIES[worst] if worst < len(SEVERITIES) else None,
        })
    return links


def _missing_pairs(names, links):
    cabled = set(frozenset((l["a"]["host"], l["b"]["host"])) for l in links)
    return [[a, b] for index, a in enumerate(names) for b in names[index + 1:] if frozenset((a, b)) not in cabled]


def _hostfiles(topology):
    hostfiles = _dict(topology.get("hostfiles"))
    result = {}
    for backend in HOSTFILE_BACKENDS:
        hostfile = _optional_dict(hostfiles.get(backend))
        result[backend] = {
            "available": hostfile is not None,
            "path": "hostfiles/%s.json" % backend if hostfile is not None else None,
            "hosts": [str(_dict(h).get("ssh")) for h in hostfile.get("hosts") or []] if hostfile else [],
            "hostfile": hostfile,
        }
    return result


def _mlx_backend(topology):
    """The rdma role's choice ({backend, reason}); None when that role did not run."""
    choice = _optional_dict(topology.get("mlx_backend"))
    if choice is None:
        return None
    return {"backend": _text(choice.get("backend")), "reason": _text(choice.get("reason")) or ""}


def _node_status(name, node, problems):
    if node["reachable"] is False:
        return ERROR
    ranks = [SEVERITY_RANK[p["severity"]] for p in problems if p["host"] == name]
    if ranks and min(ranks) < SEVERITY_RANK[INFO]:
        return SEVERITIES[min(ranks)]
    # Planner facts alone (model, macOS) do not make a node "ok": nothing on it was checked.
    own_data = ("thunderbolt", "rdma", "software", "gpu", "services", "checks")
    if node["hardware"] is None or all(node[key] is None for key in own_data):
        return "unknown"
    return "ok"


def verdict_of(problems, node_count):
    """failed: any error, or no node at all; degraded: any warning; healthy otherwise (info is fine)."""
    severities = set(p["severity"] for p in problems)
    if node_count == 0 or ERROR in severities:
        return FAILED
    if WARNING in severities:
        return DEGRADED
    return HEALTHY


def fingerprint_of(model):
    """sha256 of everything but the run information: equal fingerprints mean an unchanged cluster."""
    stable = dict((k, v) for k, v in model.items() if k not in ("run", "fingerprint"))
    return hashlib.sha256(json.dumps(stable, sort_keys=True, default=str).encode("utf-8")).hexdigest()


def build_report_model(report_nodes=None, topology=None, problems=None, title=None, run=None, sections=None):
    """The report model; see docs/report.md and docs/report.schema.json for the schema. ``sections``:
    the operations' sections of the run (_report_sections), shown after the cluster's state."""
    report_nodes = _dict(report_nodes)
    topology = _dict(topology)
    names = _host_names(report_nodes, topology)
    summaries = dict((h.get("name"), h) for h in topology.get("hosts") or [] if isinstance(h, dict))

    nodes = []
    found = [accept_problem(p, "topology") for p in topology.get("problems") or []]
    for name in names:
        data = _dict(report_nodes.get(name))
        mac = _optional_dict(data.get("mac"))
        rdma = _optional_dict(data.get("rdma"))
        nodes.append({
            "name": name,
            "reachable": data.get("reachable") if isinstance(data.get("reachable"), bool) else None,
            "hardware": _hardware(mac, _optional_dict(summaries.get(name))),
            "thunderbolt": _thunderbolt(mac),
            "rdma": _rdma(rdma),
            "software": _software(_optional_dict(data.get("software"))),
            "gpu": _gpu(_optional_dict(data.get("gpu"))),
            "services": _services(_optional_dict(data.get("services"))),
            "checks": _checks(data.get("checks")),
            "addresses": _addresses(topology, name),
        })
        found.extend(_rdma_problems(name, rdma, topology))

    models, model_problems = group_deployed_models(report_nodes, names)
    found += model_problems + [accept_problem(p, "report") for p in (problems or []) if p]
    # What the roles and the planner reported explains a problem the report would derive from a node's
    # data (a service down, a wired limit off, a failed check): that one is not derived at all.
    explained = set((p["code"], p["host"]) for p in found)
    for node in nodes:
        found.extend(_node_problems(node["name"], _dict(report_nodes.get(node["name"])), node, explained))
    found += [p for p in software_problems(nodes) if (p["code"], p["host"]) not in explained]
    if not names:
        found.append(_derived_problem(
            NO_NODES, ERROR, "The report has no nodes: no facts reached it.",
            "Check that the inventory group `macs` lists the Macs and that the play ran on them."))
    all_problems = sorted(_dedupe(found), key=problem_sort_key)

    for node in nodes:
        node["status"] = _node_status(node["name"], node, all_problems)
        node["problem_counts"] = dict((s, len([p for p in all_problems if p["host"] == node["name"]
                                               and p["severity"] == s])) for s in SEVERITIES)

    links = _links(topology, all_problems)
    counts = dict((s, len([p for p in all_problems if p["severity"] == s])) for s in SEVERITIES)
    rdma_ready = [n for n in nodes if n["rdma"] and n["rdma"]["ready"] is True]
    model = {
        "schema_version": SCHEMA_VERSION,
        "title": str(title or DEFAULT_TITLE),
        "verdict": verdict_of(all_problems, len(nodes)),
        "summary": {
            "nodes": len(nodes),
            "reachable": len([n for n in nodes if n["reachable"] is not False]),
            "rdma_ready": len(rdma_ready),
            "links": len(links),
            "topology_class": _text(topology.get("class")),
            "problems": counts,
        },
        "problem_codes": sorted(set(p["code"] for p in all_problems)),
        "problems": all_problems,
        "nodes": nodes,
        "models": models,
        "topology": {
            "class": _text(topology.get("class")),
            "ring_order": topology.get("ring_order") if isinstance(topology.get("ring_order"), list) else None,
            "min_link_gbps": topology.get("min_link_gbps"),
            "pool": _text(_dict(topology.get("addresses")).get("pool")),
            "links": links,
            "missing_pairs": _missing_pairs([n["name"] for n in nodes], links) if len(nodes) > 1 else [],
            "hostfiles": _hostfiles(topology),
            "mlx_backend": _mlx_backend(topology),
            "planned": bool(topology),
        },
        "sections": ordered(sections or []),
        "run": dict(sorted(_dict(run).items())),
    }
    model["fingerprint"] = fingerprint_of(model)
    return model


def stats_of(model):
    """What a run hands AWX and CI (set_stats), from the model's one verdict: counts per severity and
    per node, the codes found, the nodes not reached, and when the run started."""
    counts = model["summary"]["problems"]
    problems = model["problems"]
    return {
        "verdict": model["verdict"], "healthy": model["verdict"] == HEALTHY,
        "errors": counts[ERROR], "warnings": counts[WARNING], "info": counts[INFO],
        "codes": list(model["problem_codes"]),
        "unreachable": [node["name"] for node in model["nodes"] if node["reachable"] is False],
        "started": model["run"].get("started"),
        "hosts": dict((node["name"], {
            "reachable": node["reachable"] is not False,
            "errors": node["problem_counts"][ERROR], "warnings": node["problem_counts"][WARNING],
            "codes": sorted(set(p["code"] for p in problems if p["host"] == node["name"]))})
            for node in model["nodes"]),
    }
