# -*- coding: utf-8 -*-
# PRIVATE to the collection: the controller-side Thunderbolt topology planner behind the
# macops.cluster.thunderbolt_topology filter. Names and behaviour may change without notice.
# Stdlib only and Python 3.9 compatible.
"""Turn every node's Thunderbolt facts into cables, a shape, problems, addresses and hostfiles.

Input per host is the `mac` dict of the `macops.cluster.system_profiler` module. Two ports are
joined by a cable when each port's `peer.domain_uuid` is the other port's own `domain_uuid`:
the rule MLX (`mlx.distributed_config`) and exo apply to `system_profiler
SPThunderboltDataType -json`. Everything here is a pure function of its arguments, so two runs
over the same facts give the same plan.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ._mlx_hostfiles import build_hostfiles, link_errors, usable_links
from ._tb_addressing import DEFAULT_POOL, plan_addresses
from ._tb_cabling import compare_declared_cabling
from ._topology_common import (
    ERROR,
    INFO,
    TB5_LINK_GBPS,
    WARNING,
    TopologyError,
    describe_end,
    describe_link,
    describe_port,
    is_port_next_to_ethernet,
    make_problem,
    natural_key,
    port_name,
)

TOPOLOGY_CLASSES = ("full_mesh", "ring", "line", "partial", "single", "none")


# ---------------------------------------------------------------------------------------------
# Input
# ---------------------------------------------------------------------------------------------

def _uuid(value):
    # system_profiler prints upper case; compare case-insensitively so hand-written facts match.
    return str(value).strip().upper() if value else None


def _normalise_port(host, raw):
    if not isinstance(raw, dict) or raw.get("receptacle") is None:
        raise TopologyError("host %s: every thunderbolt_ports entry needs a receptacle, got %r" % (host, raw))
    try:
        receptacle = int(raw["receptacle"])
    except (TypeError, ValueError):
        raise TopologyError("host %s: receptacle %r is not a number" % (host, raw["receptacle"]))
    devices = [_normalise_device(device) for device in (raw.get("devices") or []) if isinstance(device, dict)]
    peer = raw.get("peer")
    if isinstance(peer, dict) and _uuid(peer.get("domain_uuid")):
        peer = {
            "domain_uuid": _uuid(peer.get("domain_uuid")),
            "name": peer.get("name"),
            "model_id": peer.get("model_id"),
            "rdma_service": peer.get("rdma_service"),
            "via": [str(hop) for hop in (peer.get("via") or [])],
        }
    elif isinstance(peer, dict):
        # Facts from before devices were told apart: an item without a domain UUID is no Mac.
        devices.insert(0, _normalise_device({"name": peer.get("name"), "model": peer.get("model_id")}))
        peer = None
    else:
        peer = None
    speed = raw.get("speed_gbps")
    return {
        "receptacle": receptacle,
        "interface": raw.get("interface") or None,
        "bus": raw.get("bus"),
        "domain_uuid": _uuid(raw.get("domain_uuid")),
        "speed_gbps": int(speed) if speed is not None else None,
        "connected": bool(raw.get("connected")),
        "peer": peer,
        "devices": devices,
    }


def _normalise_device(raw):
    """A drive, dock or display on a port (`_thunderbolt_items.classify_json`), keys always present."""
    return dict((key, raw.get(key)) for key in ("name", "vendor", "model", "mode", "speed", "depth", "upstream"))


def normalise_nodes(nodes):
    """Validate `nodes` and return {host: record} plus the host names in canonical order."""
    if not isinstance(nodes, dict):
        raise TopologyError("nodes must be a dict {inventory_hostname: {mac, ssh, control_ip}}, got %s"
                            % type(nodes).__name__)
    records = {}
    for host, node in nodes.items():
        host = str(host)
        if not isinstance(node, dict) or not isinstance(node.get("mac"), dict):
            raise TopologyError("node %s has no 'mac' facts dict (run macops.cluster.system_profiler first)" % host)
        mac = node["mac"]
        ports = [_normalise_port(host, raw) for raw in (mac.get("thunderbolt_ports") or [])]
        ports.sort(key=lambda port: port["receptacle"])
        records[host] = {
            "name": host,
            "ssh": str(node.get("ssh") or host),
            "control_ip": node.get("control_ip") or None,
            "mac": mac,
            "ports": ports,
        }
    return records, sorted(records, key=natural_key)


# ---------------------------------------------------------------------------------------------
# Cables
# ---------------------------------------------------------------------------------------------

def _end(host, port):
    return {"host": host, "receptacle": port["receptacle"], "interface": port["interface"], "bus": port["bus"]}


def _end_key(end):
    return (natural_key(end["host"]), end["receptacle"])


def _link_speed(port_a, port_b):
    # Each end reports the negotiated speed; if they ever differ, the slower one is the truth.
    speeds = [p["speed_gbps"] for p in (port_a, port_b) if p["speed_gbps"] is not None]
    return min(speeds) if speeds else None


def _make_link(end_a, end_b, speed):
    if _end_key(end_b) < _end_key(end_a):
        end_a, end_b = end_b, end_a
    return {
        "id": "%s:%s--%s:%s" % (end_a["host"], port_name(end_a), end_b["host"], port_name(end_b)),
        "a": end_a,
        "b": end_b,
        "speed_gbps": speed,
        "tb5": speed is not None and speed >= TB5_LINK_GBPS,
    }


def _describe_peer(peer):
    if peer is None:
        return "a device that is not a Mac (no peer domain)"
    what = " ".join(str(v) for v in (peer.get("name"), peer.get("model_id")) if v)
    return "%s with domain %s" % (what or "a device", peer.get("domain_uuid"))


def discover_links(records, hosts):
    """Return (links in canonical order, problems) from the peer UUIDs of every port."""
    owner = {}
    for host in hosts:
        for port in records[host]["ports"]:
            if port["domain_uuid"]:
                owner.setdefault(port["domain_uuid"], (host, port))

    links = []
    problems = []
    seen_pairs = set()
    for host in hosts:
        for port in records[host]["ports"]:
            here = _end(host, port)
            peer = port["peer"]
            if peer is None:
                # A drive or dock alone is a device on this port (the report lists it), not a peer.
                if port["connected"] and not port["devices"]:
                    problems.append(_peer_unknown_problem(here, None))
                continue
            if peer["domain_uuid"] not in owner:
                problems.append(_peer_unknown_problem(here, peer))
                continue
            peer_host, peer_port = owner[peer["domain_uuid"]]
            if peer["via"] and peer_host != host:
                problems.append(_via_dock_problem(here, _end(peer_host, peer_port), peer))
                continue
            there = _end(peer_host, peer_port)
            pair_key = frozenset([(host, port["receptacle"]), (peer_host, peer_port["receptacle"])])
            if pair_key in seen_pairs:
                continue
            seen_pairs.add(pair_key)
            if peer_host == host:
                problems.append(make_problem(
                    "tb_loopback_cable", ERROR,
                    "%s is cabled to %s on the same Mac; a loop carries no cluster traffic."
                    % (describe_end(here), describe_port(there["interface"], there["receptacle"])),
                    "Unplug the cable from %s and connect it to another Mac." % describe_end(there),
                    host=host, port=here["interface"], peer=host))
                continue
            back = peer_port["peer"]["domain_uuid"] if peer_port["peer"] else None
            if back != port["domain_uuid"]:
                problems.append(_asymmetric_problem(here, there, back, owner))
                continue
            links.append(_make_link(here, there, _link_speed(port, peer_port)))
    links.sort(key=lambda link: (_end_key(link["a"]), _end_key(link["b"])))
    return links, problems


def _via_dock_problem(here, there, peer):
    docks = " and ".join(peer["via"])
    return make_problem(
        "tb_peer_via_dock", WARNING,
        "%s reaches %s (%s) through %s, a dock or hub, not a direct cable: that path carries no RDMA, "
        "MLX and exo do not count it as a link, and the plan leaves it out." % (
            describe_end(here), there["host"], _describe_peer(dict(peer, via=[])), docks),
        "Replace %s between %s and %s with a direct Thunderbolt 5 cable; keep the dock on a port the "
        "cluster's cables do not need." % (docks, describe_end(here), there["host"]),
        host=here["host"], port=here["interface"], peer=there["host"])


def _peer_unknown_problem(here, peer):
    behind = " behind %s" % " and ".join(peer["via"]) if peer and peer.get("via") else ""
    return make_problem(
        "tb_peer_unknown", WARNING,
        "%s is cabled to %s%s, which matches no port of any inventory host: a Mac outside the "
        "inventory, or a hub or dock in between." % (describe_end(here), _describe_peer(peer), behind),
        "Add that Mac to the inventory group and gather its facts, or replace the hub/dock with a "
        "direct Mac-to-Mac Thunderbolt 5 cable, or unplug it from %s." % describe_end(here),
        host=here["host"], port=here["interface"])


def _asymmetric_problem(here, there, back, owner):
    if back is None:
        seen = "reports no peer"
    elif back in owner:
        seen = "reports %s as its peer" % describe_end(_end(owner[back][0], owner[back][1]))
    else:
        seen = "reports an unknown peer domain %s" % back
    return make_problem(
        "tb_link_asymmetric", ERROR,
        "%s sees %s as its peer, but %s %s; both ends must agree before the cable is used."
        % (describe_end(here), describe_end(there), describe_end(there), seen),
        "Re-seat the cable at both ends (%s and %s) and gather facts again; if it persists, "
        "replace the cable." % (describe_end(here), describe_end(there)),
        host=here["host"], port=here["interface"], peer=there["host"])


# ---------------------------------------------------------------------------------------------
# Shape
# ---------------------------------------------------------------------------------------------

def _pair(host_a, host_b):
    return tuple(sorted((host_a, host_b), key=natural_key))


def _adjacency(hosts, links):
    adjacent = dict((host, set()) for host in hosts)
    for link in links:
        adjacent[link["a"]["host"]].add(link["b"]["host"])
        adjacent[link["b"]["host"]].add(link["a"]["host"])
    return adjacent


def _hamiltonian(hosts, adjacent, closed, start):
    """First Hamiltonian cycle (closed) or path through `hosts` from `start`, in host order.

    Trying neighbours in canonical host order makes the answer deterministic. Exhaustive
    search is fine for the handful of Macs a Thunderbolt cluster can have (ports limit it).
    """
    path = [start]
    used = set(path)

    def extend():
        if len(path) == len(hosts):
            return (not closed) or start in adjacent[path[-1]]
        for candidate in hosts:
            if candidate not in used and candidate in adjacent[path[-1]]:
                path.append(candidate)
                used.add(candidate)
                if extend():
                    return True
                path.pop()
                used.discard(candidate)
        return False

    return list(path) if extend() else None


def find_ring(hosts, adjacent):
    """A cycle through all hosts (for two hosts, the single pair counts, as in MLX)."""
    if len(hosts) == 2:
        return list(hosts) if hosts[1] in adjacent[hosts[0]] else None
    if len(hosts) < 2:
        return None
    return _hamiltonian(hosts, adjacent, True, hosts[0])


def classify(hosts, adjacent, ring_order):
    if len(hosts) == 1:
        return "single"
    if not hosts or not any(adjacent.values()):
        return "none"
    if all(b in adjacent[a] for a in hosts for b in hosts if a != b):
        return "full_mesh"
    if ring_order:
        return "ring"
    if any(_hamiltonian(hosts, adjacent, False, start) for start in hosts):
        return "line"
    return "partial"


def _rdma_capable(link, records, min_link_gbps):
    if link["speed_gbps"] is None or link["speed_gbps"] < min_link_gbps:
        return False
    for end in (link["a"], link["b"]):
        if is_port_next_to_ethernet(records[end["host"]]["mac"], end["interface"], end["receptacle"]):
            return False
    return True


def preferred_links(links, records, min_link_gbps):
    """{(host_a, host_b): the cable the backends use}: the first RDMA-capable one, else the first."""
    chosen = {}
    for link in links:
        pair = _pair(link["a"]["host"], link["b"]["host"])
        current = chosen.get(pair)
        if current is None or (_rdma_capable(link, records, min_link_gbps)
                               and not _rdma_capable(current, records, min_link_gbps)):
            chosen[pair] = link
    return chosen


# ---------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------

def _free_ports(record, used_receptacles):
    """Ports with nothing plugged in that could take an RDMA cable, as `en5 (port 4)` strings."""
    free = []
    for port in record["ports"]:
        if port["receptacle"] in used_receptacles or port["connected"] or port["peer"]:
            continue
        if is_port_next_to_ethernet(record["mac"], port["interface"], port["receptacle"]):
            continue
        free.append(describe_port(port["interface"], port["receptacle"]))
    return free


def _used_receptacles(links):
    used = {}
    for link in links:
        for end in (link["a"], link["b"]):
            used.setdefault(end["host"], set()).add(end["receptacle"])
    return used


def check_speed(links, min_link_gbps):
    problems = []
    for link in links:
        ends = dict(host=link["a"]["host"], port=link["a"]["interface"], peer=link["b"]["host"],
                    link_id=link["id"])
        if link["speed_gbps"] is None:
            problems.append(make_problem(
                "tb_link_speed_unknown", WARNING,
                "%s reports no link speed, so it cannot be checked for Thunderbolt 5." % describe_link(link),
                "Gather facts again once the link is up; a live TB5 link shows 80 Gb/s.", **ends))
        elif link["speed_gbps"] < min_link_gbps:
            problems.append(make_problem(
                "tb_link_tb4_speed", ERROR,
                "%s runs at %d Gb/s, below %d Gb/s: a Thunderbolt 4/3 cable or port is in the path and "
                "it cannot carry RDMA over Thunderbolt." % (describe_link(link), link["speed_gbps"], min_link_gbps),
                "Use a Thunderbolt 5 cable between Thunderbolt 5 ports on %s and %s (the link must show "
                "80 Gb/s)." % (describe_end(link["a"]), describe_end(link["b"])), **ends))
    return problems


def check_port_next_to_ethernet(links, records):
    problems = []
    used = _used_receptacles(links)
    for link in links:
        for end, other in ((link["a"], link["b"]), (link["b"], link["a"])):
            record = records[end["host"]]
            if not is_port_next_to_ethernet(record["mac"], end["interface"], end["receptacle"]):
                continue
            free = _free_ports(record, used.get(end["host"], set()))
            if free:
                fix = "Move the cable from %s to a free port on %s: %s." % (
                    describe_end(end), end["host"], ", ".join(free))
            else:
                fix = ("Free another Thunderbolt port on %s and move the cable from %s there."
                       % (end["host"], describe_end(end)))
            problems.append(make_problem(
                "tb_port_next_to_ethernet", ERROR,
                "%s is the Mac Studio port next to Ethernet (rdma_%s); it cannot do RDMA. It carries the "
                "cable to %s." % (describe_end(end), end["interface"] or "en2", describe_end(other)),
                fix, host=end["host"], port=end["interface"], peer=other["host"], link_id=link["id"]))
    return problems


def check_duplicates(links, chosen):
    problems = []
    for link in links:
        pair = _pair(link["a"]["host"], link["b"]["host"])
        kept = chosen[pair]
        if kept is link:
            continue
        problems.append(make_problem(
            "tb_duplicate_cable", WARNING,
            "%s and %s have a second cable, %s; the plan uses %s for MLX and gives the second one "
            "an address only." % (pair[0], pair[1], describe_link(link), describe_link(kept)),
            "Unplug %s, or move it to a pair of Macs that has no cable yet (see tb_mesh_missing_pair)."
            % describe_link(link),
            host=link["a"]["host"], port=link["a"]["interface"], peer=link["b"]["host"], link_id=link["id"]))
    return problems


def check_mesh_pairs(hosts, records, links, adjacent, declared_pairs):
    """One problem per unconnected pair: a full mesh (JACCL) needs every pair cabled."""
    problems = []
    used = _used_receptacles(links)
    for index, host_a in enumerate(hosts):
        for host_b in hosts[index + 1:]:
            if host_b in adjacent[host_a]:
                continue
            free_a = _free_ports(records[host_a], used.get(host_a, set()))
            free_b = _free_ports(records[host_b], used.get(host_b, set()))
            if free_a and free_b:
                fix = "Connect %s %s to %s %s with a Thunderbolt 5 cable." % (host_a, free_a[0], host_b, free_b[0])
                if len(free_a) > 1 or len(free_b) > 1:
                    fix += " Free ports: %s: %s; %s: %s." % (
                        host_a, ", ".join(free_a), host_b, ", ".join(free_b))
            else:
                full = [h for h, free in ((host_a, free_a), (host_b, free_b)) if not free]
                fix = ("%s has no free RDMA-capable Thunderbolt port; a full mesh of %d Macs needs %d per Mac, "
                       "so use a ring (jaccl-ring) or fewer Macs." % (" and ".join(full), len(hosts), len(hosts) - 1))
            # A pair the owner's declared cabling leaves out on purpose is a ring, not a mistake.
            severity = INFO if declared_pairs is not None and _pair(host_a, host_b) not in declared_pairs else WARNING
            problems.append(make_problem(
                "tb_mesh_missing_pair", severity,
                "%s and %s have no Thunderbolt cable between them; a full mesh (jaccl) needs one for "
                "every pair." % (host_a, host_b),
                fix, host=host_a, peer=host_b))
    return problems


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------

def _host_summary(record):
    mac = record["mac"]
    return {
        "name": record["name"],
        "ssh": record["ssh"],
        "control_ip": record["control_ip"],
        "model_name": mac.get("model_name"),
        "model_id": mac.get("model_id"),
        "chip": mac.get("chip"),
        "macos_version": mac.get("macos_version"),
        "macos_build": mac.get("macos_build"),
        "thunderbolt_ports": len(record["ports"]),
    }


def build_topology(nodes, pool=DEFAULT_POOL, declared=None, previous=None, min_link_gbps=TB5_LINK_GBPS):
    """The whole plan; see docs/topology.md and the thunderbolt_topology filter documentation."""
    try:
        min_link_gbps = int(min_link_gbps)
    except (TypeError, ValueError):
        raise TopologyError("min_link_gbps must be a number of Gb/s, got %r" % (min_link_gbps,))
    records, hosts = normalise_nodes(nodes)
    links, problems = discover_links(records, hosts)
    adjacent = _adjacency(hosts, links)
    chosen = preferred_links(links, records, min_link_gbps)

    rdma_adjacent = _adjacency(hosts, [link for link in chosen.values()
                                       if _rdma_capable(link, records, min_link_gbps)])
    ring_order = find_ring(hosts, rdma_adjacent) or find_ring(hosts, adjacent)
    shape = classify(hosts, adjacent, ring_order)

    declared_pairs = None
    if declared is not None:
        cabling_problems, declared_pairs = compare_declared_cabling(declared, records, links)
        problems.extend(cabling_problems)
    problems.extend(check_speed(links, min_link_gbps))
    problems.extend(check_port_next_to_ethernet(links, records))
    problems.extend(check_duplicates(links, chosen))
    problems.extend(check_mesh_pairs(hosts, records, links, adjacent, declared_pairs))

    addresses, address_problems = plan_addresses(hosts, records, links, pool, previous)
    problems.extend(address_problems)
    # No hostfile uses a cable an error is about (the TCP ring alone may use one that only cannot
    # carry RDMA): the rings of the hostfiles are cycles of such cables, so ring_order may differ
    # from the cabling's ring above.
    errors = link_errors(chosen, problems)
    usable = usable_links(chosen, errors).values()
    rdma_ring = find_ring(hosts, _adjacency(hosts, [link for link in usable
                                                    if _rdma_capable(link, records, min_link_gbps)])) \
        or find_ring(hosts, _adjacency(hosts, usable))
    ring_order = rdma_ring or find_ring(hosts, _adjacency(hosts, usable_links(chosen, errors, tcp=True).values()))
    hostfiles, hostfile_problems = build_hostfiles(
        hosts, records, chosen, addresses, shape, errors, rdma_ring, ring_order)
    problems.extend(hostfile_problems)

    ring_neighbours = {}
    if ring_order:
        for index, host in enumerate(ring_order):
            ring_neighbours[host] = {"left": ring_order[index - 1],
                                     "right": ring_order[(index + 1) % len(ring_order)]}
    return {
        "hosts": [_host_summary(records[host]) for host in hosts],
        "links": links,
        "class": shape,
        "ring_order": ring_order,
        "neighbours": dict((host, sorted(adjacent[host], key=natural_key)) for host in hosts),
        "ring_neighbours": ring_neighbours,
        "problems": problems,
        "addresses": addresses,
        "hostfiles": hostfiles,
        "min_link_gbps": min_link_gbps,
    }
