"""The five filters as Ansible loads them: FilterModule maps, errors, docs and a real template run."""
import json
import os
import subprocess
import sys

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter import (cabling_dot, cabling_mermaid, mlx_hostfile,
                                                                port_labels, thunderbolt_topology)

from cabling_builder import build_nodes, mesh_cables

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
FILTERS = {"thunderbolt_topology": thunderbolt_topology, "mlx_hostfile": mlx_hostfile,
           "cabling_dot": cabling_dot, "cabling_mermaid": cabling_mermaid, "port_labels": port_labels}


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filter_module_exposes_one_filter_named_like_the_file(name):
    assert list(FILTERS[name].FilterModule().filters()) == [name]


def test_filters_chain():
    nodes = build_nodes(["mac1", "mac2", "mac3"], mesh_cables(["mac1", "mac2", "mac3"]))
    plan = thunderbolt_topology.thunderbolt_topology(nodes)
    assert json.loads(mlx_hostfile.mlx_hostfile(plan, "jaccl"))["backend"] == "jaccl"
    assert cabling_dot.cabling_dot(plan).startswith("graph cabling {")
    assert cabling_mermaid.cabling_mermaid(plan).startswith("graph LR")
    assert port_labels.port_labels(plan).startswith("| Mac |")


@pytest.mark.parametrize("call, message", [
    (lambda: thunderbolt_topology.thunderbolt_topology({}, pool="banana"),
     "thunderbolt_topology: Thunderbolt address pool 'banana' is not a valid IPv4 network"),
    (lambda: mlx_hostfile.mlx_hostfile({}, "ring"), "mlx_hostfile: expected the result"),
    (lambda: port_labels.port_labels(None), "port_labels: expected the result"),
])
def test_planner_errors_become_ansible_filter_errors(call, message):
    with pytest.raises(AnsibleFilterError, match=message):
        call()


def run_ansible(args, tmp_path):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(tmp_path),
               ANSIBLE_HOME=str(tmp_path), ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_NOCOLOR="1")
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)


def test_filters_run_in_a_playbook(tmp_path):
    nodes = build_nodes(["mac1", "mac2", "mac3", "mac4"], ["mac1:2 mac2:2", "mac2:3 mac3:2", "mac3:3 mac4:2",
                                                           "mac4:3 mac1:3"])
    (tmp_path / "nodes.json").write_text(json.dumps({"nodes": nodes}))
    playbook = tmp_path / "plan.yml"
    playbook.write_text("""
- hosts: localhost
  gather_facts: false
  vars_files: [nodes.json]
  tasks:
    - ansible.builtin.set_fact:
        plan: "{{ nodes | macops.cluster.thunderbolt_topology(pool='198.19.8.0/24',
                  declared=none, previous={}) }}"
    - ansible.builtin.debug:
        msg:
          class: "{{ plan['class'] }}"
          ring: "{{ plan | macops.cluster.mlx_hostfile('ring') }}"
          labels: "{{ plan | macops.cluster.port_labels }}"
          dot: "{{ plan | macops.cluster.cabling_dot }}"
          mermaid: "{{ plan | macops.cluster.cabling_mermaid }}"
    - ansible.builtin.debug:
        msg: "{{ plan | macops.cluster.mlx_hostfile('jaccl') }}"
      ignore_errors: true
      register: jaccl
""")
    result = run_ansible([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local",
                          str(playbook)], tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    tasks = json.loads(result.stdout)["plays"][0]["tasks"]
    msg = tasks[1]["hosts"]["localhost"]["msg"]
    assert msg["class"] == "ring"
    ring = json.loads(msg["ring"])
    assert [h["ips"][0].rsplit(".", 1)[0] for h in ring["hosts"]] == ["198.19.8"] * 4
    assert msg["labels"].count("\n") == 2 + 8
    failed = tasks[2]["hosts"]["localhost"]
    assert failed["failed"] and "no jaccl hostfile" in failed["msg"]


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_ansible_doc_renders(tmp_path, name):
    result = run_ansible([os.path.join(BIN, "ansible-doc"), "-t", "filter", "--json", "macops.cluster." + name],
                         tmp_path)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)["macops.cluster." + name]
    assert doc["doc"]["name"] == name and doc["examples"] and doc["return"]["_value"]
