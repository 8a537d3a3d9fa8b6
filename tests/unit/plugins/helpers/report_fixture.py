"""The realistic report input the tests share: four Mac Studios in a full mesh, one TB4 cable,
RDMA off on one node, built through the real planner so the contract with it is exercised."""
import copy

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from cabling_builder import build_nodes, mesh_cables

HOSTS = ["mac1", "mac2", "mac3", "mac4"]
# mesh_cables gives mac1:2-mac2:2, mac1:3-mac3:2, mac1:4-mac4:2, mac2:3-mac3:3, mac2:4-mac4:3, mac3:4-mac4:4;
# the mac2-mac3 cable is a TB4 cable (40 Gb/s).
TB4_CABLE = "mac2:3 mac3:3"


def cables():
    return [c + " @40" if c == TB4_CABLE else c for c in mesh_cables(HOSTS)]


def planner_nodes():
    return build_nodes(HOSTS, cables())


def rdma_result(host, mac, enabled=True):
    ports = []
    for port in mac["thunderbolt_ports"]:
        if not port["connected"]:
            continue
        up = enabled
        ports.append({"device": "rdma_" + port["interface"], "interface": port["interface"], "present": up,
                      "state": "PORT_ACTIVE" if up else None, "active": up, "ipv4_gid": up, "gids": [],
                      "cabled": True, "speed_gbps": port["speed_gbps"]})
    problems = []
    if not enabled:
        problems.append(problem("rdma_disabled", "rdma_ctl status: disabled",
                                "Boot %s into Recovery, open Terminal, run `rdma_ctl enable`, restart." % host))
    for port in mac["thunderbolt_ports"]:
        if port["connected"] and port["speed_gbps"] == 40:
            problems.append(problem("tb_link_tb4_speed", "%s links at 40 Gb/s" % port["interface"],
                                    "Use a Thunderbolt 5 cable.", port=port["interface"], severity="error"))
    return {"enabled": enabled, "ready": enabled and not problems, "ports": ports, "problems": problems,
            "macos_version": mac["macos_version"], "macos_build": mac["macos_build"]}


def report_inputs(rdma_off="mac3"):
    """(report_nodes, topology) as the report role receives them."""
    planner = planner_nodes()
    topology = build_topology(planner)
    nodes = {}
    for host in HOSTS:
        mac = copy.deepcopy(planner[host]["mac"])
        nodes[host] = {
            "mac": mac,
            "rdma": rdma_result(host, mac, enabled=(host != rdma_off)),
            "software": {"python": "3.12.8", "mlx": "0.30.3", "mlx_lm": "0.28.4", "exo": "1.0.3"},
            "gpu": {"wired_limit_mb": 471859, "target_mb": 471859},
            "services": {"exo": {"running": True, "pid": 4242, "detail": None}},
            "checks": [{"name": "ping over every cable", "ok": True, "detail": "6/6 cables answer"}],
            "reachable": True,
        }
    return nodes, topology


def healthy_inputs():
    """The fixture with a good cable in place of the TB4 one and RDMA on everywhere."""
    nodes, topology = report_inputs(rdma_off=None)
    topology = copy.deepcopy(topology)
    topology["problems"] = []
    for node in nodes.values():
        node["rdma"]["problems"] = []
        node["rdma"]["ready"] = True
    return nodes, topology


def copy_on(rank, layers, complete=True, missing=(), wrong_size=()):
    return {"name": "tiny-qwen2", "model_id": None, "runtime": "mlx-lm", "runtime_version": "0.32.2",
            "mode": "pipeline", "copies": "per-rank", "rank": rank, "ranks": 4, "layers": layers, "files": 5,
            "bytes": 250000000, "missing": list(missing), "wrong_size": list(wrong_size), "complete": complete,
            "path": "/Users/admin/models/tiny-qwen2"}


def with_models(per_host):
    nodes, topology = healthy_inputs()
    nodes = copy.deepcopy(nodes)
    for host, node in nodes.items():
        node["models"] = per_host.get(host, [])
    return build_report_model(nodes, topology)


def four_ranks():
    hosts = ["mac1", "mac2", "mac3", "mac4"]
    return dict((host, [copy_on(rank, [rank * 6, rank * 6 + 6])]) for rank, host in enumerate(hosts))


SSD = {"name": "Envoy Ultra", "vendor": "Other World Computing", "model": "Envoy Ultra", "mode": "usb_four_v2",
       "speed": "80 Gb/s", "depth": 1, "upstream": None}


def with_ssd_on_mac1_port6():
    nodes, _topology = report_inputs(rdma_off=None)
    port6 = next(p for p in nodes["mac1"]["mac"]["thunderbolt_ports"] if p["receptacle"] == 6)
    port6.update({"connected": True, "link": "up", "speed": "80 Gb/s", "speed_gbps": 80, "peer": None,
                  "devices": [dict(SSD)]})
    topology = build_topology(dict((h, {"mac": copy.deepcopy(nodes[h]["mac"])}) for h in HOSTS))
    return nodes, topology
