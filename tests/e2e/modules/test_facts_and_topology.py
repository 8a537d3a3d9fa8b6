"""Issue 4 on the lab: the fact modules and the topology planner see exactly the lab's cabling,
name the right host, port and fix for each injected fault, and produce an MLX ring hostfile that
mlx.launch accepts and runs a 4-rank all_sum with over the Thunderbolt links."""
import json
import os

import pytest

from labtools import HOSTS, log_lines, maclab, read_json

PLAN_PLAYBOOK = """
- name: Gather the facts the planner needs
  hosts: macs
  gather_facts: false
  tasks:
    - name: Read the hardware and Thunderbolt facts
      macops.cluster.system_profiler:
      register: profile
    - name: Read the RDMA state
      macops.cluster.rdma_status:
      register: rdma

- name: Plan on the controller
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Write the plan and the RDMA results
      ansible.builtin.copy:
        dest: "{{ out }}"
        mode: "0600"
        content: "{{ {'topology': nodes | macops.cluster.thunderbolt_topology(pool='198.19.0.0/16'),
                      'rdma': rdma_by_host} | to_nice_json }}"
      vars:
        nodes: "{{ nodes_json | from_json }}"
        nodes_json: >-
          {
          {%- for host in groups['macs'] -%}
          {{ host | to_json }}: {"mac": {{ hostvars[host]['profile']['mac'] | to_json }}, "ssh": {{ host | to_json }},
                                 "control_ip": {{ hostvars[host]['ansible_host'] | to_json }}}{{ "," if not loop.last }}
          {%- endfor -%}
          }
        rdma_by_host: "{{ dict(groups['macs'] | zip(groups['macs'] | map('extract', hostvars, 'rdma'))) }}"
"""


@pytest.fixture
def plan(ansible, tmp_path):
    def run():
        out = tmp_path / "plan.json"
        ansible.playbook(PLAN_PLAYBOOK, extra=["-e", "out=%s" % out])
        return json.loads(out.read_text())
    return run


@pytest.fixture
def clear_faults(lab):
    yield
    maclab("fault", "clear")
    maclab("wait", "--timeout", "60")


def cabling_from_lab():
    return {frozenset([(c["a"], c["a_device"]), (c["b"], c["b_device"])]): c["speed"]
            for c in read_json("lab.json")["cables"] if c.get("state", "connected") == "connected"}


def cabling_from_plan(topology):
    return {frozenset([(l["a"]["host"], l["a"]["interface"]), (l["b"]["host"], l["b"]["interface"])]):
            "%d Gb/s" % l["speed_gbps"] for l in topology["links"]}


def test_topology_reproduces_the_lab_cabling(lab, plan):
    result = plan()
    topology = result["topology"]
    assert cabling_from_plan(topology) == cabling_from_lab()
    assert topology["class"] == "full_mesh"
    assert [p for p in topology["problems"] if p["severity"] == "error"] == []
    # One /30 per cable, both ends on it, every address unique.
    ips = [end["ip"] for host in topology["addresses"]["hosts"].values() for end in host.values()]
    assert len(ips) == 2 * len(topology["links"]) == len(set(ips))


def test_system_profiler_facts_take_one_execution_per_host(lab, ansible):
    def calls():
        return {h: sum(1 for line in log_lines(h, "shim.log") if os.path.basename(line["argv"][0]) == "system_profiler")
                for h in HOSTS}
    before = calls()
    ansible("macs", "macops.cluster.system_profiler", "data_types=SPHardwareDataType,SPThunderboltDataType")
    after = calls()
    assert {h: after[h] - before[h] for h in HOSTS} == {h: 1 for h in HOSTS}


def test_adhoc_json_output_a_ci_job_can_gate_on(lab, ansible):
    _, data = ansible("macs", "macops.cluster.rdma_status", json_out=True)
    results = {host: task for play in data["plays"] for task_ in play["tasks"] for host, task in task_["hosts"].items()}
    assert sorted(results) == HOSTS
    for host, result in results.items():
        assert isinstance(result["ready"], bool) and isinstance(result["problems"], list), host
        assert result["macos_build"] == "25C56"


def problems(result, code):
    return [p for p in result["topology"]["problems"] if p["code"] == code]


def cable(a, b):
    return next(c for c in read_json("lab.json")["cables"] if {c["a"], c["b"]} == {a, b})


def test_degraded_cable_is_named_with_its_ports_and_fix(lab, plan, clear_faults):
    maclab("fault", "degrade", "mac1", "mac2")
    found = problems(plan(), "tb_link_tb4_speed")
    c = cable("mac1", "mac2")
    assert len(found) == 1
    assert (found[0]["host"], found[0]["port"]) in {(c["a"], c["a_device"]), (c["b"], c["b_device"])}
    assert found[0]["peer"] in {"mac1", "mac2"} and "Thunderbolt 5 cable" in found[0]["fix"]
    for end in ("a", "b"):
        assert "%s %s (port %d)" % (c[end], c[end + "_device"], c[end + "_port"]) in found[0]["fix"]


def test_cut_cable_breaks_the_mesh_at_that_pair(lab, plan, clear_faults):
    maclab("fault", "cut", "mac1", "mac2")
    result = plan()
    found = problems(result, "tb_mesh_missing_pair")
    assert [{p["host"], p["peer"]} for p in found] == [{"mac1", "mac2"}]
    assert result["topology"]["class"] == "ring"
    assert result["topology"]["hostfiles"]["jaccl"] is None


def test_rdma_off_is_reported_on_that_host_only_with_the_recovery_steps(lab, plan, clear_faults):
    maclab("fault", "rdma-off", "mac3")
    rdma = plan()["rdma"]
    codes = {host: {p["code"] for p in rdma[host]["problems"]} for host in HOSTS}
    assert "rdma_disabled" in codes["mac3"] and rdma["mac3"]["enabled"] is False
    assert all("rdma_disabled" not in codes[h] for h in HOSTS if h != "mac3")
    fix = next(p["fix"] for p in rdma["mac3"]["problems"] if p["code"] == "rdma_disabled")
    assert "rdma_ctl enable" in fix and "Recovery" in fix


def test_an_odd_build_is_preflights_to_judge_not_the_plans(lab, plan, clear_faults):
    # One decision on the build (macops.cluster.preflight_checks, tests/e2e/roles/test_preflight.py):
    # the plan, made from the same facts, does not judge it again.
    maclab("fault", "build", "mac4", "25C57")
    planned = plan()
    assert problems(planned, "macos_build_mismatch") == []
    # the facts the plan was made from do carry the odd build
    assert {h["name"]: h["macos_build"] for h in planned["topology"]["hosts"]}["mac4"] == "25C57"