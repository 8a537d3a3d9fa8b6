"""Which hosts are cabled together, and on which receptacles.

Topologies: `mesh` (every pair), `ring`, `line`, or a JSON file:
    {"cables": [{"a": "mac1", "b": "mac2"}, {"a": "mac2", "b": "mac3", "kind": "tb4",
                 "a_port": 4, "b_port": 2}]}
Ports left out are assigned deterministically: each host takes its next free receptacle in
profile preference order (RDMA-capable receptacles first), cables in the order listed.
"""
import json
import re

from . import layout, profiles

TB5_SPEED = "80 Gb/s"
TB4_SPEED = "40 Gb/s"
DEFAULT_TB5_RATE = "4gbit"
# A TB4 cable runs at a quarter of the lab's TB5 rate (1gbit beside the default 4gbit): clearly
# slower than TB5 yet still measurable on a 2-core machine, whatever TB5 rate `up --link-rate` set.
TB4_SHARE = 4


def rate_gbps(rate):
    """A tc rate such as 4gbit or 500mbit, in Gbit/s."""
    match = re.match(r"^(\d+(?:\.\d+)?)(gbit|mbit|kbit)$", str(rate).strip().lower())
    if match is None:
        raise ValueError("not a tc rate in gbit, mbit or kbit: %r" % (rate,))
    return round(float(match.group(1)) * {"gbit": 1.0, "mbit": 1e-3, "kbit": 1e-6}[match.group(2)], 6)


def tb4_rate(link_rate):
    """The TB4 cables' tc rate for a lab whose TB5 cables run at `link_rate` (e.g. 4gbit -> 1gbit)."""
    kbit = int(round(rate_gbps(link_rate) * 1e6 / TB4_SHARE))
    for unit, size in (("gbit", 10 ** 6), ("mbit", 10 ** 3)):
        if kbit % size == 0:
            return "%d%s" % (kbit // size, unit)
    return "%dkbit" % kbit


DEFAULT_TB4_RATE = tb4_rate(DEFAULT_TB5_RATE)


def pairs(kind, count):
    if kind == "mesh":
        return [(a, b) for a in range(1, count + 1) for b in range(a + 1, count + 1)]
    if kind == "line":
        return [(a, a + 1) for a in range(1, count)]
    if kind == "ring":
        if count < 3:
            return pairs("line", count)
        return [(a, a + 1) for a in range(1, count)] + [(1, count)]
    raise ValueError("unknown topology %r" % kind)


def _requests(topology, count):
    if topology in ("mesh", "ring", "line"):
        return [{"a": layout.host_name(a), "b": layout.host_name(b)} for a, b in pairs(topology, count)]
    with open(topology) as handle:
        data = json.load(handle)
    cables = data["cables"] if isinstance(data, dict) else data
    requests = []
    for cable in cables:
        if isinstance(cable, (list, tuple)):
            cable = {"a": cable[0], "b": cable[1]}
        requests.append(dict(cable))
    return requests


def plan_cables(topology, host_profiles, link_rate=DEFAULT_TB5_RATE):
    """host_profiles: {host: profile name}. Returns the cable list stored in lab.json."""
    free = {h: profiles.port_preference(profiles.get(p)) for h, p in host_profiles.items()}
    requests = _requests(topology, len(host_profiles))
    for req in requests:
        for end in ("a", "b"):
            if req[end] not in free:
                raise ValueError("cable %s-%s names unknown host %s" % (req["a"], req["b"], req[end]))
            port = req.get(end + "_port")
            if port is not None and port in free[req[end]]:
                free[req[end]].remove(port)
            elif port is not None:
                raise ValueError("%s receptacle %s is used twice or does not exist" % (req[end], port))
    cables = []
    for number, req in enumerate(requests, 1):
        cable = {"id": number, "kind": req.get("kind", "tb5"), "state": "connected"}
        for end in ("a", "b"):
            host = req[end]
            port = req.get(end + "_port")
            if port is None:
                if not free[host]:
                    raise ValueError("%s has no free Thunderbolt port for cable %d" % (host, number))
                port = free[host].pop(0)
            cable[end] = host
            cable[end + "_port"] = port
            cable[end + "_device"] = profiles.device_for(profiles.get(host_profiles[host]), port)
        set_kind(cable, cable["kind"], link_rate)
        cables.append(cable)
    return cables


def set_kind(cable, kind, link_rate=DEFAULT_TB5_RATE):
    cable["kind"] = kind
    if kind == "tb5":
        cable["speed"], cable["rate"] = TB5_SPEED, link_rate
    elif kind == "tb4":
        cable["speed"], cable["rate"] = TB4_SPEED, tb4_rate(link_rate)
    else:
        raise ValueError("unknown cable kind %r" % kind)


def cables_between(cables, a, b):
    return [c for c in cables if {c["a"], c["b"]} == {a, b}]


def cabled_devices(cables, host):
    """{device: cable} for the host's connected ports."""
    result = {}
    for cable in cables:
        for end in ("a", "b"):
            if cable[end] == host:
                result[cable[end + "_device"]] = cable
    return result
