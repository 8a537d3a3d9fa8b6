"""MLX hostfiles, checked by MLX's own parser (common.Hostfile) and launcher checks (launch.py)."""
import argparse
import ipaddress
import json

import pytest
from mlx._distributed_utils import launch as mlx_launch
from mlx._distributed_utils.common import Hostfile

from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json, usable_links
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError

from cabling_builder import HOSTS, build_nodes, mesh_cables, problems_with, ring_cables


class HostfileRejected(Exception):
    pass


class StrictParser(argparse.ArgumentParser):
    def error(self, message):
        raise HostfileRejected(message)


def launch_with_mlx(tmp_path, monkeypatch, text, backend=None):
    """Run mlx.launch's hostfile path up to the point where it would ssh; return what it would run."""
    path = tmp_path / "hostfile.json"
    path.write_text(text)
    hostfile = Hostfile.from_file(str(path))
    captured = []
    monkeypatch.setattr(mlx_launch, "_launch_with_io", lambda cls, arguments, verbose: captured.extend(arguments))
    args = argparse.Namespace(backend=backend or hostfile.backend, env=list(hostfile.envs), cwd=None,
                              starting_port=32323, connections_per_ip=1, verbose=False, python=None)
    launcher = mlx_launch.launch_ring if args.backend == "ring" else mlx_launch.launch_jaccl
    launcher(StrictParser(), hostfile.hosts, args, ["python", "bench.py"])
    return hostfile, [call[0] for call in captured]


def names(count):
    return ["mac%d" % i for i in range(1, count + 1)]


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_jaccl_mesh_passes_mlx_launch(tmp_path, monkeypatch, count):
    topology = build_topology(build_nodes(names(count), mesh_cables(names(count))))
    hostfile, ranks = launch_with_mlx(tmp_path, monkeypatch, hostfile_json(topology, "jaccl"))
    assert hostfile.backend == "jaccl" and len(ranks) == count
    # rank, ssh host, python, cwd, files, env, command
    matrix = json.loads(ranks[0][4]["MLX_IBV_DEVICES"])
    assert "MLX_JACCL_COORDINATOR=198.18.0.11:32323" in ranks[0][5]
    for i in range(count):
        for j in range(count):
            if i == j:
                assert matrix[i][j] is None
                continue
            # the device of i towards j and of j towards i are the two ends of one planned cable
            plan_i = topology["addresses"]["hosts"]["mac%d" % (i + 1)][matrix[i][j][len("rdma_"):]]
            assert plan_i["peer_host"] == "mac%d" % (j + 1)
            plan_j = topology["addresses"]["hosts"]["mac%d" % (j + 1)][matrix[j][i][len("rdma_"):]]
            assert plan_j["link_id"] == plan_i["link_id"]


def test_jaccl_example_matches_mlx_format_exactly():
    topology = build_topology(build_nodes(names(3), mesh_cables(names(3))))
    assert hostfile_json(topology, "jaccl") == json.dumps({
        "backend": "jaccl", "envs": [],
        "hosts": [{"ssh": "mac1", "ips": ["198.18.0.11"], "rdma": [None, "rdma_en3", "rdma_en4"]},
                  {"ssh": "mac2", "ips": ["198.18.0.12"], "rdma": ["rdma_en3", None, "rdma_en4"]},
                  {"ssh": "mac3", "ips": ["198.18.0.13"], "rdma": ["rdma_en3", "rdma_en4", None]}]}, indent=4)


@pytest.mark.parametrize("count", [2, 4, 5, 8])
def test_ring_hostfile_passes_mlx_and_accepts_from_previous_rank(tmp_path, monkeypatch, count):
    topology = build_topology(build_nodes(names(count), ring_cables(names(count))))
    hostfile, ranks = launch_with_mlx(tmp_path, monkeypatch, hostfile_json(topology, "ring"))
    assert hostfile.backend == "ring"
    order = topology["ring_order"]
    assert [h.ssh_hostname for h in hostfile.hosts] == order
    endpoints = json.loads(ranks[0][4]["MLX_HOSTFILE"])
    for rank, host in enumerate(order):
        (address,) = endpoints[rank]
        ip = address.rsplit(":", 1)[0]
        previous = order[rank - 1]
        (plan,) = [p for p in topology["addresses"]["hosts"][host].values() if p["ip"] == ip]
        assert plan["peer_host"] == previous
        subnet = topology["addresses"]["links"][plan["link_id"]]["subnet"]
        assert ipaddress.ip_address(ip) in ipaddress.ip_network(subnet)


@pytest.mark.parametrize("count", [2, 4, 6])
def test_jaccl_ring_passes_mlx_launch(tmp_path, monkeypatch, count):
    topology = build_topology(build_nodes(names(count), ring_cables(names(count))))
    hostfile, ranks = launch_with_mlx(tmp_path, monkeypatch, hostfile_json(topology, "jaccl-ring"))
    assert "MLX_JACCL_RING=1" in ranks[0][5]
    matrix = json.loads(ranks[0][4]["MLX_IBV_DEVICES"])
    for i, row in enumerate(matrix):
        neighbours = {(i - 1) % count, (i + 1) % count}
        assert [j for j, device in enumerate(row) if device] == sorted(neighbours - {i})


def test_mlx_rejects_what_we_refuse_to_write(tmp_path, monkeypatch):
    """The check above can fail: a ring-shaped matrix is not a jaccl (full mesh) hostfile."""
    topology = build_topology(build_nodes(names(4), ring_cables(names(4))))
    with pytest.raises(HostfileRejected, match="no RDMA device is listed"):
        launch_with_mlx(tmp_path, monkeypatch, hostfile_json(topology, "jaccl-ring"), backend="jaccl")
    assert topology["hostfiles"]["jaccl"] is None
    with pytest.raises(TopologyError, match="no jaccl hostfile: No jaccl hostfile: jaccl needs a cable"):
        hostfile_json(topology, "jaccl")


def test_missing_ring_explains_itself():
    topology = build_topology(build_nodes(names(3), ["mac1:2 mac2:2"]))
    with pytest.raises(TopologyError, match="no ring hostfile: No ring or jaccl-ring hostfile: the cables form a 'partial'"):
        hostfile_json(topology, "ring")
    with pytest.raises(TopologyError, match="no jaccl-ring hostfile: No ring or jaccl-ring"):
        hostfile_json(topology, "jaccl-ring")


def test_rank_zero_without_control_ip():
    nodes = build_nodes(names(3), mesh_cables(names(3)))
    nodes["mac1"]["control_ip"] = None
    nodes["mac3"]["control_ip"] = None
    topology = build_topology(nodes)
    assert topology["hostfiles"]["jaccl"] is None and topology["hostfiles"]["jaccl-ring"] is None
    assert [p["host"] for p in problems_with(topology, "mlx_no_control_ip")] == ["mac1", "mac1"]
    assert topology["hostfiles"]["ring"] is not None


def test_ssh_name_is_used():
    nodes = build_nodes(names(2), ["mac1:2 mac2:2"])
    nodes["mac2"]["ssh"] = "admin@mac2.lab"
    topology = build_topology(nodes)
    assert [h["ssh"] for h in topology["hostfiles"]["ring"]["hosts"]] == ["mac1", "admin@mac2.lab"]


@pytest.mark.parametrize("topology, backend, message", [
    ({}, "ring", "expected the result of macops.cluster.thunderbolt_topology"),
    ({"hostfiles": {}}, "mpi", "backend must be one of ring, jaccl, jaccl-ring"),
])
def test_bad_arguments(topology, backend, message):
    with pytest.raises(TopologyError, match=message):
        hostfile_json(topology, backend)


def test_an_error_that_is_not_only_about_rdma_keeps_a_cable_out_of_every_hostfile():
    topology_links = build_topology(build_nodes(HOSTS[:2], ["mac1:2 mac2:2"]))["links"]
    chosen = {("mac1", "mac2"): topology_links[0]}
    link_id = topology_links[0]["id"]
    assert usable_links(chosen, {link_id: ["tb_link_tb4_speed"]}, tcp=True) == chosen
    assert usable_links(chosen, {link_id: ["tb_link_tb4_speed"]}) == {}
    assert usable_links(chosen, {link_id: ["tb_cabling_differs"]}, tcp=True) == {}
