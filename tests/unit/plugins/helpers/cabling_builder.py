"""Build planner input from a short cable list instead of pages of JSON.

    nodes = build_nodes({"mac1": "studio", "mac2": "mini"}, ["mac1:2 mac2:1", "mac1:3 mac2:2 @40"])

A cable is "host:receptacle host:receptacle", optionally "@<Gb/s>" (default 80). Each port gets
the shape `macops.cluster.system_profiler` returns: receptacle N is "Thunderbolt N" and en(N+1),
as in a published M3 Ultra capture (the map MLX's mlx.distributed_config and exo rely on).
"""
import hashlib
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

GIB = 1024 ** 3

PROFILES = {
    "studio": {"chip": "Apple M3 Ultra", "model_id": "Mac15,14", "model_name": "Mac Studio",
               "memory_bytes": 512 * GIB, "receptacles": 6},
    "studio_m4max": {"chip": "Apple M4 Max", "model_id": "Mac16,9", "model_name": "Mac Studio",
                     "memory_bytes": 128 * GIB, "receptacles": 4},
    # Mac mini M4 Pro: three TB5 ports, en2..en4 (Apple TN3205's rdma_en2..4; the listing is unconfirmed).
    "mini": {"chip": "Apple M4 Pro", "model_id": "Mac16,11", "model_name": "Mac mini",
             "memory_bytes": 64 * GIB, "receptacles": 3},
}

IDLE_SPEED = "Up to 120 Gb/s"


def domain_uuid(host, receptacle):
    digest = hashlib.sha1(("%s/%d" % (host, receptacle)).encode()).hexdigest().upper()
    return "%s-%s-%s-%s-%s" % (digest[:8], digest[8:12], digest[12:16], digest[16:20], digest[20:32])


def _idle_port(host, receptacle):
    return {
        "receptacle": receptacle,
        "bus": "thunderboltusb4_bus_%d" % (receptacle - 1),
        "interface": "en%d" % (receptacle + 1),
        "domain_uuid": domain_uuid(host, receptacle),
        "speed": IDLE_SPEED,
        "speed_gbps": None,
        "link": "down",
        "connected": False,
        "peer": None,
    }


def make_mac(host, profile="studio", version="26.2", build="25C56"):
    spec = PROFILES[profile]
    ports = [_idle_port(host, r) for r in range(1, spec["receptacles"] + 1)]
    hardware = [{"name": "Ethernet", "device": "en0", "mac": "02:00:c6:12:00:01"},
                {"name": "Wi-Fi", "device": "en1", "mac": "02:00:c6:12:00:02"},
                {"name": "Thunderbolt Bridge", "device": "bridge0", "mac": "36:5e:0b:41:7c:00"}]
    hardware += [{"name": "Thunderbolt %d" % p["receptacle"], "device": p["interface"],
                  "mac": "36:5e:0b:41:7c:%02x" % p["receptacle"]} for p in ports]
    return {"chip": spec["chip"], "model_id": spec["model_id"], "model_name": spec["model_name"],
            "memory_bytes": spec["memory_bytes"], "macos_version": version, "macos_build": build,
            "hardware_ports": hardware, "thunderbolt_ports": ports}


def port(nodes, host, receptacle):
    for entry in nodes[host]["mac"]["thunderbolt_ports"]:
        if entry["receptacle"] == receptacle:
            return entry
    raise KeyError("%s has no receptacle %d" % (host, receptacle))


def plug(nodes, host, receptacle, peer_uuid, peer_name="Mac Studio", peer_model="Mac15,14", gbps=80):
    """Make one port report a peer (what system_profiler shows for a live cable on that side)."""
    entry = port(nodes, host, receptacle)
    entry.update({"speed": "%d Gb/s" % gbps, "speed_gbps": gbps, "link": "up", "connected": True,
                  "peer": {"domain_uuid": peer_uuid, "model_id": peer_model, "name": peer_name,
                           "rdma_service": True}})


def parse_cable(text):
    parts = text.split()
    gbps = 80
    if parts[-1].startswith("@"):
        gbps = int(parts.pop()[1:])
    (host_a, rec_a), (host_b, rec_b) = [p.rsplit(":", 1) for p in parts]
    return host_a, int(rec_a), host_b, int(rec_b), gbps


def add_cable(nodes, text):
    host_a, rec_a, host_b, rec_b, gbps = parse_cable(text)
    mac_a, mac_b = nodes[host_a]["mac"], nodes[host_b]["mac"]
    plug(nodes, host_a, rec_a, port(nodes, host_b, rec_b)["domain_uuid"], mac_b["model_name"], mac_b["model_id"], gbps)
    plug(nodes, host_b, rec_b, port(nodes, host_a, rec_a)["domain_uuid"], mac_a["model_name"], mac_a["model_id"], gbps)
    return nodes


def build_nodes(hosts, cables=(), builds=None):
    """hosts: {name: profile} or [names] (all Mac Studio M3 Ultra); builds: {name: (version, build)}."""
    if not isinstance(hosts, dict):
        hosts = dict((name, "studio") for name in hosts)
    nodes = {}
    # Management addresses follow the names, not the argument order, so that the same Macs
    # listed in another order are the same cluster.
    ordered = sorted(hosts, key=lambda name: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)])
    for name, profile in hosts.items():
        version, build = (builds or {}).get(name, ("26.2", "25C56"))
        nodes[name] = {"mac": make_mac(name, profile, version, build), "ssh": name,
                       "control_ip": "198.18.0.%d" % (11 + ordered.index(name))}
    for cable in cables:
        add_cable(nodes, cable)
    return nodes


def ring_cables(names, out_port=3, in_port=2):
    """Cables mac_i:out_port -> mac_{i+1}:in_port closing the ring."""
    return ["%s:%d %s:%d" % (names[i], out_port, names[(i + 1) % len(names)], in_port) for i in range(len(names))]


def mesh_cables(names, first_port=2):
    """Every pair cabled; host i uses ports first_port.. in order of its peers."""
    next_port = dict((name, first_port) for name in names)
    cables = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            cables.append("%s:%d %s:%d" % (a, next_port[a], b, next_port[b]))
            next_port[a] += 1
            next_port[b] += 1
    return cables


def link_ends(topology):
    """Set of frozensets of "host:receptacle" strings, one per link, for order-free asserts."""
    return set(frozenset(["%s:%d" % (l["a"]["host"], l["a"]["receptacle"]),
                          "%s:%d" % (l["b"]["host"], l["b"]["receptacle"])]) for l in topology["links"])


def codes(topology, severity=None):
    return [p["code"] for p in topology["problems"] if severity is None or p["severity"] == severity]


def problems_with(topology, code):
    return [p for p in topology["problems"] if p["code"] == code]


HOSTS = ["mac1", "mac2", "mac3", "mac4"]


def ready_rdma(nodes, down=(), disabled=()):
    """What rdma_status says on each node: every cabled port ready, except `down` (host, iface)
    ports (PORT_DOWN) and every port of a `disabled` host."""
    results = {}
    for host, node in nodes.items():
        enabled = host not in disabled
        ports, problems = [], []
        for port in node["mac"]["thunderbolt_ports"]:
            if not port["connected"]:
                continue
            up = enabled and (host, port["interface"]) not in down
            ports.append({"device": "rdma_" + port["interface"], "interface": port["interface"], "present": enabled,
                          "state": "PORT_ACTIVE" if up else "PORT_DOWN", "active": up, "ipv4_gid": up,
                          "cabled": True, "speed_gbps": port["speed_gbps"]})
            if enabled and not up:
                problems.append(problem("rdma_port_down", "down", port=port["interface"]))
        if not enabled:
            problems.append(problem("rdma_disabled", "RDMA is disabled (`rdma_ctl status`)"))
        results[host] = {"enabled": enabled, "ready": not problems, "ports": ports, "problems": problems}
    return results
