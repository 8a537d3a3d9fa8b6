"""mlx on the lab: the pinned mlx[cpu] and mlx-lm in the shared venv on every node, the same
everywhere, and an all_sum over the planned Thunderbolt ring that every rank joins."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
from labtools import HOSTS, changed_tasks as changed_by_host, ssh  # noqa: E402
from software import LAB_VARS, changed_tasks, converge, lab_interpreter_vars  # noqa: E402

INSTALL = "macops.cluster.mlx : Install the pinned MLX and mlx-lm into the environment"
VENV_PYTHON = LAB_VARS["macops_venv_path"] + "/bin/python"

# The test applies the planned addresses itself: the thunderbolt_network role is a colleague's.
APPLY_ADDRESSES = """
- name: Apply the planned Thunderbolt addresses for the smoke test
  hosts: macs
  gather_facts: false
  tasks:
    - macops.cluster.system_profiler:
        set_facts: true
    - ansible.builtin.import_role:
        name: macops.cluster.topology
    # A port inside the Thunderbolt Bridge does not carry its own address: take it out first.
    - ansible.builtin.command:
        argv: [/sbin/ifconfig, bridge0, deletem, "{{ item.key }}"]
      loop: "{{ macops_topology['addresses']['hosts'][inventory_hostname] | dict2items }}"
      become: true
      failed_when: false
      changed_when: true
    - ansible.builtin.command:
        argv: [/sbin/ifconfig, "{{ item.key }}", inet, "{{ item.value.ip }}", netmask, "{{ item.value.netmask }}"]
      loop: "{{ macops_topology['addresses']['hosts'][inventory_hostname] | dict2items }}"
      become: true
      changed_when: true
    - name: Ping every peer over its cable
      ansible.builtin.command:
        argv: [/sbin/ping, -c, "1", -t, "2", "{{ item.value.peer_ip }}"]
      loop: "{{ macops_topology['addresses']['hosts'][inventory_hostname] | dict2items }}"
      changed_when: false
"""


@pytest.fixture(scope="module")
def first_run(ansible, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlx")
    ansible.playbook(APPLY_ADDRESSES, extra=["-e", '{"macops_tb_address_pool": "198.19.0.0/16"}'])
    return converge(ansible, tmp, ["python_env", "mlx"], mlx_vars(tmp)), tmp


def mlx_vars(tmp):
    return dict(lab_interpreter_vars(), mlx_smoke_test_launcher="direct")


def test_same_pinned_versions_on_every_node(first_run):
    (_, facts, _), _ = first_run
    assert {facts[h]["macops_mlx"]["mlx"] for h in HOSTS} == {"0.32.4"}
    assert {facts[h]["macops_mlx"]["mlx_lm"] for h in HOSTS} == {"0.32.2"}


def test_all_sum_over_the_ring_joins_every_rank(first_run):
    (_, facts, _), _ = first_run
    for host in HOSTS:
        smoke = facts[host]["macops_mlx"]["smoke"]
        assert smoke["ok"] is True, (host, smoke)
        assert "over 4 ranks = 10.0 (expected 10.0)" in smoke["detail"]


def test_ring_hostfile_is_the_same_on_every_node(first_run):
    files = [ssh(h, "cat '/Library/Application Support/macops/hostfile-ring.json'").stdout for h in HOSTS]
    assert len(set(files)) == 1
    on_node = json.loads(files[0])
    assert on_node["backend"] == "ring"
    assert sorted(h["ssh"] for h in on_node["hosts"]) == HOSTS
    assert all(ip.startswith("198.19.") for h in on_node["hosts"] for ip in h["ips"])


def task_results(stdout, task):
    """{host: status} of one task's result lines (ok, changed, skipping, failed)."""
    block = stdout.split("TASK [%s]" % task, 1)[1].split("\nTASK [", 1)[0]
    return dict((line.split("[", 1)[1].split("]", 1)[0], line.split(":", 1)[0])
                for line in block.splitlines() if line.startswith(("ok:", "changed:", "skipping:", "failed:", "fatal:")))


def test_second_run_changes_nothing_and_runs_no_pip(ansible, first_run):
    _, tmp = first_run
    proc, facts, counts = converge(ansible, tmp, ["python_env", "mlx"], mlx_vars(tmp))
    assert {h: c["changed"] for h, c in counts.items()} == {h: 0 for h in HOSTS}, changed_tasks(proc.stdout)
    # Both pins were already there (python_env read the venv): pip did not even start.
    assert task_results(proc.stdout, INSTALL) == {h: "skipping" for h in HOSTS}
    assert {facts[h]["macops_mlx"]["mlx_lm"] for h in HOSTS} == {"0.32.2"}


def test_pip_runs_only_where_a_pin_is_missing(ansible, first_run):
    _, tmp = first_run
    ssh("mac3", "'%s' -m pip uninstall -y -q mlx-lm" % VENV_PYTHON)
    assert ssh("mac3", "'%s' -c 'import mlx_lm'" % VENV_PYTHON, check=False).returncode != 0
    proc, facts, _ = converge(ansible, tmp, ["python_env", "mlx"], mlx_vars(tmp))
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert changed_by_host(proc.stdout) == {"mac3": [INSTALL]}
    assert task_results(proc.stdout, INSTALL) == {"mac1": "skipping", "mac2": "skipping", "mac3": "changed",
                                                  "mac4": "skipping"}
    assert ssh("mac3", "'%s' -c 'import importlib.metadata as m; print(m.version(\"mlx-lm\"))'"
               % VENV_PYTHON).stdout.strip() == "0.32.2"
    assert facts["mac3"]["macops_mlx"]["mlx_lm"] == "0.32.2"


def test_loose_pin_is_refused(ansible, first_run):
    _, tmp = first_run
    proc, _, _ = converge(ansible, tmp, ["mlx"], dict(mlx_vars(tmp), macops_mlx_package_spec="mlx>=0.30"), check=False)
    assert proc.returncode != 0 and "macops_mlx_package_spec" in proc.stdout
