"""The MLX backend choice (plugins/plugin_utils/_mlx_backend.py) honours errors: no hostfile over a cable an error
is about, jaccl only over a full mesh of error-free cables with RDMA ready at both ends of each, else jaccl-ring over
such a ring, else ring, else none; the reason names what was passed over and why."""
import json

from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_backend import choose_backend
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from cabling_builder import HOSTS, build_nodes, mesh_cables, problems_with, ready_rdma, ring_cables

# mesh_cables(HOSTS): mac1:2-mac2:2, mac1:3-mac3:2, mac1:4-mac4:2, mac2:3-mac3:3, mac2:4-mac4:3, mac3:4-mac4:4
TB4_LINK = "mac1:en3--mac2:en3"


def mesh_with_tb4(tb4="mac1:2 mac2:2"):
    return [c + " @40" if c == tb4 else c for c in mesh_cables(HOSTS)]


def ring_pairs(order):
    return set(frozenset((order[i], order[(i + 1) % len(order)])) for i in range(len(order)))


def devices_used(topology, backend):
    """{(host, device)} every rank of the backend's hostfile names."""
    names = [h["name"] for h in topology["hosts"]] if backend == "jaccl" else topology["ring_order"]
    hostfile = json.loads(hostfile_json(topology, backend))
    return set((name, device) for name, entry in zip(names, hostfile["hosts"]) for device in entry["rdma"] if device)


def test_a_tb4_cable_in_the_mesh_rules_out_jaccl_and_the_rings_go_round_it():
    nodes = build_nodes(HOSTS, mesh_with_tb4())
    topology = build_topology(nodes)
    assert topology["class"] == "full_mesh" and topology["hostfiles"]["jaccl"] is None
    (why,) = problems_with(topology, "mlx_jaccl_unavailable")
    assert why["severity"] == "warning"
    assert "mac1 en3 (port 2) <-> mac2 en3 (port 2) (tb_link_tb4_speed)" in why["message"]
    assert frozenset(("mac1", "mac2")) not in ring_pairs(topology["ring_order"])
    # Neither ring hostfile touches the TB4 cable's ports.
    assert not devices_used(topology, "jaccl-ring") & {("mac1", "rdma_en3"), ("mac2", "rdma_en3")}
    ring_ips = [h["ips"][0] for h in json.loads(hostfile_json(topology, "ring"))["hosts"]]
    tb4_ips = [end["ip"] for host in ("mac1", "mac2") for iface, end in topology["addresses"]["hosts"][host].items()
               if end["link_id"] == TB4_LINK]
    assert len(tb4_ips) == 2 and not set(ring_ips) & set(tb4_ips)

    choice = choose_backend(topology, ready_rdma(nodes))
    assert choice["backend"] == "jaccl-ring" and choice["hostfiles"] == ["ring", "jaccl-ring"]
    assert choice["reason"].startswith("jaccl-ring over mac1 - ")
    assert "No jaccl: " in choice["reason"] and "tb_link_tb4_speed" in choice["reason"]


def test_jaccl_over_a_clean_mesh_with_rdma_ready_everywhere():
    nodes = build_nodes(HOSTS, mesh_cables(HOSTS))
    choice = choose_backend(build_topology(nodes), ready_rdma(nodes))
    assert choice == {"backend": "jaccl", "hostfiles": ["ring", "jaccl"], "passed_over": [],
                      "reason": "jaccl: every pair of the 4 Macs has a cable free of errors, and RDMA is ready "
                                "on every port the mesh uses."}


def test_a_port_down_off_the_ring_leaves_jaccl_ring():
    nodes = build_nodes(HOSTS, mesh_cables(HOSTS))
    topology = build_topology(nodes)
    ring = ring_pairs(topology["ring_order"])
    # A mesh cable the ring does not use, and its device on mac1.
    off_ring = [l for l in topology["links"] if frozenset((l["a"]["host"], l["b"]["host"])) not in ring][0]
    end = off_ring["a"]
    choice = choose_backend(topology, ready_rdma(nodes, down=[(end["host"], end["interface"])]))
    assert choice["backend"] == "jaccl-ring"
    assert choice["passed_over"] == [{"backend": "jaccl", "why": "RDMA is not ready on %s rdma_%s (rdma_port_down)"
                                      % (end["host"], end["interface"])}]


def test_rdma_off_on_one_node_leaves_the_tcp_ring():
    nodes = build_nodes(HOSTS, mesh_cables(HOSTS))
    choice = choose_backend(build_topology(nodes), ready_rdma(nodes, disabled=["mac3"]))
    assert choice["backend"] == "ring" and choice["hostfiles"] == ["ring"]
    assert [item["backend"] for item in choice["passed_over"]] == ["jaccl", "jaccl-ring"]
    assert all("mac3 rdma_en" in item["why"] and "(rdma_disabled)" in item["why"] for item in choice["passed_over"])
    assert choice["reason"].startswith("ring (TCP) over ")


def test_a_node_without_a_readiness_result_is_not_ready():
    nodes = build_nodes(HOSTS, mesh_cables(HOSTS))
    rdma = ready_rdma(nodes)
    del rdma["mac4"]
    choice = choose_backend(build_topology(nodes), rdma)
    assert choice["backend"] == "ring" and "mac4 rdma_en" in choice["passed_over"][0]["why"]
    assert "(not checked)" in choice["passed_over"][0]["why"]


def test_a_tb4_cable_in_a_ring_leaves_only_tcp_over_it():
    names = HOSTS[:3]
    cables = [c + " @40" if i == 0 else c for i, c in enumerate(ring_cables(names))]
    nodes = build_nodes(names, cables)
    topology = build_topology(nodes)
    assert topology["hostfiles"]["jaccl-ring"] is None and topology["hostfiles"]["ring"] is not None
    (why,) = [p for p in problems_with(topology, "mlx_jaccl_unavailable") if "jaccl-ring" in p["message"]]
    assert "(tb_link_tb4_speed)" in why["message"] and "ring uses mac1 - " in why["message"]
    choice = choose_backend(topology, ready_rdma(nodes))
    assert choice["backend"] == "ring" and "tb_link_tb4_speed" in choice["reason"]


def test_no_ring_no_backend():
    nodes = build_nodes(HOSTS[:3], ["mac1:2 mac2:2", "mac2:3 mac3:2"])
    choice = choose_backend(build_topology(nodes), ready_rdma(nodes))
    assert choice["backend"] is None and choice["hostfiles"] == []
    assert choice["reason"].startswith("no MLX backend. No jaccl: ")
    assert "No ring: No ring or jaccl-ring hostfile: the cables form a 'line' topology" in choice["reason"]


def test_the_report_says_which_backend_and_why():
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown
    nodes = build_nodes(HOSTS, mesh_with_tb4())
    topology = build_topology(nodes)
    rdma = ready_rdma(nodes)
    # What the rdma role publishes: the plan with its choice added.
    topology["mlx_backend"] = choose_backend(topology, rdma)
    model = build_report_model(dict((h, {"reachable": True, "rdma": rdma[h]}) for h in HOSTS), topology)
    choice = model["topology"]["mlx_backend"]
    assert choice["backend"] == "jaccl-ring" and "tb_link_tb4_speed" in choice["reason"]
    assert "Backend: `jaccl-ring`. jaccl-ring over mac1 - " in render_markdown(model)
    assert "Backend: <code>jaccl-ring</code>. jaccl-ring over mac1 - " in render_html(model)
    # Without the rdma role (a plan alone), the report says the backend was not chosen.
    del topology["mlx_backend"]
    assert "Backend: not chosen" in render_markdown(build_report_model({}, topology))
