"""macops.cluster.mlx_hostfile_files: the node's hostfiles as node_files entries (no JSON text assembled in Jinja),
written for the chosen backends and removed for the others, where the roles read them; and the rdma role's
filters' documentation as ansible-doc shows it."""
import json
import os

import jinja2
import pytest
import yaml

from ansible_collections.macops.cluster.plugins.filter import mlx_hostfile_files
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from ansible_cli import BIN, run_ansible
from cabling_builder import HOSTS, build_nodes, mesh_cables, ring_cables

MACOPS_VARS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "roles", "macops", "vars",
                           "main.yml")

STATE = "/Library/Application Support/macops"
MODE = {"owner": "root", "group": "wheel", "mode": "0644"}


def test_hostfiles_are_written_for_the_chosen_backends_and_the_others_removed():
    topology = build_topology(build_nodes(HOSTS, mesh_cables(HOSTS)))
    files = mlx_hostfile_files.mlx_hostfile_files(topology, ["ring", "jaccl"], STATE + "/", MODE)
    assert files == [
        dict(MODE, path=STATE + "/hostfile-ring.json", content=hostfile_json(topology, "ring") + "\n"),
        dict(MODE, path=STATE + "/hostfile-jaccl.json", content=hostfile_json(topology, "jaccl") + "\n"),
        {"path": STATE + "/hostfile-jaccl-ring.json", "state": "absent"}]
    assert json.loads(files[0]["content"])["backend"] == "ring"


def test_no_backend_removes_every_hostfile():
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)))
    assert mlx_hostfile_files.mlx_hostfile_files(topology, [], STATE) == [
        {"path": STATE + "/hostfile-%s.json" % b, "state": "absent"} for b in ("ring", "jaccl", "jaccl-ring")]


def test_the_roles_read_each_hostfile_where_the_rdma_role_writes_it():
    """macops_mlx_hostfiles (the macops role's names, which the reading roles use) names each backend's file as
    the writer does, whatever the state directory."""
    with open(MACOPS_VARS) as handle:
        paths = yaml.safe_load(handle)["macops_mlx_hostfiles"]
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)))
    for state in (STATE, "/opt/elsewhere"):
        read = dict((backend, jinja2.Template(path).render(macops_state_dir=state)) for backend, path in paths.items())
        written = [entry["path"] for entry in mlx_hostfile_files.mlx_hostfile_files(topology, [], state)]
        assert list(read.values()) == written and list(read) == ["ring", "jaccl", "jaccl-ring"]


def test_a_backend_the_cabling_does_not_allow_fails_with_the_reason():
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)))
    with pytest.raises(Exception, match="no jaccl hostfile"):
        mlx_hostfile_files.mlx_hostfile_files(topology, ["jaccl"], STATE)
    with pytest.raises(Exception, match="backend must be one of"):
        mlx_hostfile_files.mlx_hostfile_files(topology, ["tcp"], STATE)


@pytest.mark.parametrize("name", ["mlx_hostfile_files", "rdma_checklist"])
def test_ansible_doc_renders(tmp_path, name):
    result = run_ansible([os.path.join(BIN, "ansible-doc"), "-t", "filter", "--json", "macops.cluster." + name],
                         tmp_path)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)["macops.cluster." + name]
    assert doc["doc"]["name"] == name and doc["examples"] and doc["return"]["_value"]
