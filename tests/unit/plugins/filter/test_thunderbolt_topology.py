"""The planner filter as Ansible loads it: its errors, its docs and a real template run."""
import json
import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter import thunderbolt_topology

from ansible_cli import BIN, run_ansible
from cabling_builder import build_nodes


def test_planner_errors_become_ansible_filter_errors():
    with pytest.raises(AnsibleFilterError, match="thunderbolt_topology: Thunderbolt address pool 'banana' is not a "
                                                 "valid IPv4 network"):
        thunderbolt_topology.thunderbolt_topology({}, pool="banana")


def test_the_planner_runs_in_a_playbook(tmp_path):
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
          ring: "{{ plan['hostfiles']['ring'] }}"
          jaccl: "{{ plan['hostfiles']['jaccl'] }}"
""")
    result = run_ansible([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local",
                          str(playbook)], tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    tasks = json.loads(result.stdout)["plays"][0]["tasks"]
    msg = tasks[1]["hosts"]["localhost"]["msg"]
    assert msg["class"] == "ring"
    assert [h["ips"][0].rsplit(".", 1)[0] for h in msg["ring"]["hosts"]] == ["198.19.8"] * 4
    assert msg["jaccl"] is None  # a ring is no full mesh


def test_ansible_doc_renders(tmp_path):
    result = run_ansible([os.path.join(BIN, "ansible-doc"), "-t", "filter", "--json",
                          "macops.cluster.thunderbolt_topology"], tmp_path)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)["macops.cluster.thunderbolt_topology"]
    assert doc["doc"]["name"] == "thunderbolt_topology" and doc["examples"] and doc["return"]["_value"]
