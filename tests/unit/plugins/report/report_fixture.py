"""The realistic report input the tests share: four Mac Studios in a full mesh, one TB4 cable,
RDMA off on one node, built through the real planner so the contract with it is exercised."""
import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "filter"))

from cabling_builder import build_nodes, mesh_cables  # noqa: E402

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem  # noqa: E402
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology  # noqa: E402

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
