"""thunderbolt_network + rdma on the 4-Studio lab: converge, idempotence, check mode, reboot, faults.

Run under the shared lab lock: flock -w 3600 /run/maclab.lock .venv/bin/pytest tests/e2e/roles/test_thunderbolt_network.py
"""
import json
import os

import pytest
from labtools import HOSTS, changed_tasks, maclab, read_json, recap, ssh

pytestmark = pytest.mark.wip(reason="its converge playbook and narrow-tag runs predate site.yml's play layout (macops_topology missing under --tags) and the shared recap parser; to move onto the session's converged fixture (issue 5)")

PLAYBOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playbooks", "converge_network.yml")
def converge(ansible, *extra, check=True):
    with open(PLAYBOOK) as handle:
        return ansible.playbook(handle.read(), check=check, extra=list(extra))


def service_info(host, service):
    return ssh(host, "/usr/sbin/networksetup -getinfo '%s'" % service).stdout


@pytest.fixture(scope="module")
def converged(ansible):
    predicted = converge(ansible, "--check", "--diff")
    first = converge(ansible)
    second = converge(ansible)
    return {"check": predicted, "first": first, "second": second}


def test_check_mode_predicts_the_real_run(converged):
    assert all(counts["failed"] == 0 for counts in recap(converged["check"].stdout).values())
    predicted, applied = changed_tasks(converged["check"].stdout), changed_tasks(converged["first"].stdout)
    for host in HOSTS:
        assert "macops.cluster.thunderbolt_network : Give each cabled port its planned address and remove the Thunderbolt Bridge" \
            in predicted[host]
        assert predicted[host] == applied[host], host


def test_second_run_changes_nothing(converged):
    counts = recap(converged["second"].stdout)
    assert sorted(counts) == HOSTS
    assert all(c["changed"] == 0 and c["failed"] == 0 for c in counts.values()), counts


def test_every_port_has_its_planned_address_and_no_router(converged):
    lab = read_json("lab.json")
    for host in HOSTS:
        plan = json.loads(ssh(host, "cat '/Library/Application Support/macops/thunderbolt-plan.json'").stdout)
        ends = plan["hosts"][host]
        assert len(ends) == len([c for c in lab["cables"] if host in (c["a"], c["b"])])
        for device, end in ends.items():
            ifconfig = ssh(host, "/sbin/ifconfig %s" % device).stdout
            assert "inet %s netmask 0xfffffffc" % end["ip"] in ifconfig
            route = ssh(host, "/sbin/route -n get %s" % end["peer_ip"]).stdout
            assert "interface: %s" % device in route
        order = ssh(host, "/usr/sbin/networksetup -listnetworkserviceorder").stdout
        assert order.splitlines()[1] == "(1) Ethernet"
        assert ssh(host, "/sbin/ifconfig bridge0", check=False).returncode != 0
        ports = ssh(host, "/usr/sbin/networksetup -listallhardwareports").stdout
        assert "Thunderbolt Bridge" not in ports


def test_addresses_survive_a_reboot(converged, ansible):
    ansible("macs", "ansible.builtin.reboot", "boot_time_command='/usr/sbin/sysctl -n kern.bootsessionuuid' reboot_timeout=180",
            become=True)
    for host in HOSTS:
        plan = json.loads(ssh(host, "cat '/Library/Application Support/macops/thunderbolt-plan.json'").stdout)
        for device, end in plan["hosts"][host].items():
            assert "inet %s " % end["ip"] in ssh(host, "/sbin/ifconfig %s" % device).stdout
    counts = recap(converge(ansible).stdout)
    assert all(c["changed"] == 0 and c["failed"] == 0 for c in counts.values()), counts


def test_bridge_that_comes_back_is_removed_with_a_warning(converged, ansible):
    maclab("fault", "bridge-on", "mac2")
    try:
        proc = converge(ansible, "--tags", "thunderbolt_network")
        assert "mac2: the Thunderbolt Bridge was back" in proc.stdout
        assert recap(proc.stdout)["mac2"]["changed"] >= 1
        assert all(recap(proc.stdout)[h]["changed"] == 0 for h in ("mac1", "mac3", "mac4"))
        assert ssh("mac2", "/sbin/ifconfig bridge0", check=False).returncode != 0
    finally:
        maclab("fault", "clear")


def test_exo_daemon_resetting_addresses_is_named(converged, ansible):
    maclab("fault", "ip-reset", "mac3")
    try:
        proc = converge(ansible, "--tags", "thunderbolt_network", check=False)
        assert "io.exo.networksetup" in proc.stdout
        assert "mac3" in proc.stdout
    finally:
        maclab("fault", "clear")
    counts = recap(converge(ansible, "--tags", "thunderbolt_network").stdout)
    assert all(c["failed"] == 0 for c in counts.values()), counts


def test_rdma_required_but_disabled_stops_every_node(converged, ansible):
    maclab("fault", "rdma-off", "mac4")
    try:
        proc = converge(ansible, "-e", "macops_rdma_required=true", check=False)
        assert proc.returncode != 0
        assert "Enable RDMA on mac4" in proc.stdout
        assert "rdma_ctl enable" in proc.stdout
        assert "Write the MLX hostfiles on the node" not in proc.stdout
    finally:
        maclab("fault", "clear")


def test_bad_mtu_is_rejected_before_any_change(converged, ansible):
    proc = converge(ansible, "-e", "thunderbolt_network_mtu=20000", check=False)
    assert proc.returncode != 0
    assert "thunderbolt_network_mtu" in proc.stdout
    assert all(c["changed"] == 0 for c in recap(proc.stdout).values())
