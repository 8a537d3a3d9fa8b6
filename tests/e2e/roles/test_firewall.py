"""firewall on the lab: the pf anchor, its hook in pf.conf and the boot-time LaunchDaemon land,
pf ends up enabled with the anchor loaded, --check predicts the changes the real run makes, a
second run changes nothing, and a bad network is refused, named, before anything changes. Needs
the lab's `pfctl` shim (state only: the lab's pf filters no packets)."""
import os

import pytest

from access_helpers import CONVERGE, changed_tasks, recap, run_playbook
from labtools import HOSTS, ROOT, ssh
from macsim import layout

ANCHOR = "/etc/pf.anchors/macops"
PF_CONF = "/etc/pf.conf"


@pytest.fixture(scope="module")
def pfctl(lab):
    if ssh("mac1", "test -x /sbin/pfctl", check=False).returncode != 0:
        pytest.skip("the lab has no /sbin/pfctl shim yet")


def host_file(host, path):
    return os.path.join(ROOT, "hosts", host, "fs", path.lstrip("/"))


def read_host_file(host, path):
    name = host_file(host, path)
    return open(name).read() if os.path.exists(name) else None


def firewall_changes(stdout):
    return {host: [t for t in tasks if "macops.cluster.firewall :" in t]
            for host, tasks in changed_tasks(stdout).items()}


def test_firewall_converges_and_is_idempotent(pfctl, ansible):
    predicted = run_playbook(CONVERGE, "--tags", "firewall", "--check", "--diff")
    assert predicted.returncode == 0, predicted.stdout[-6000:]
    proc = run_playbook(CONVERGE, "--tags", "firewall")
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert firewall_changes(predicted.stdout) == firewall_changes(proc.stdout)
    for host in HOSTS:
        anchor = read_host_file(host, ANCHOR)
        assert "table <macops_cluster> const { 198.19.0.0/16, 198.18.%d.0/24 }" % layout.LAB_NUMBER in anchor
        assert "port 32323:32386" in anchor
        assert 'load anchor "macops" from "/etc/pf.anchors/macops"' in read_host_file(host, PF_CONF)
    assert "Status: Enabled" in ansible("mac1", "ansible.builtin.command", "/sbin/pfctl -s info", become=True).stdout
    rules = ansible("mac1", "ansible.builtin.command", "/sbin/pfctl -a macops -s rules", become=True).stdout
    # pfctl prints a port list as one rule per port: exo's 2 TCP ports, its UDP port, the MLX range.
    assert rules.count("block drop in quick") == 4
    again = run_playbook(CONVERGE, "--tags", "firewall")
    assert all(result["changed"] == 0 for result in recap(again.stdout).values()), changed_tasks(again.stdout)


def test_disabled_pf_is_enabled_again(pfctl, ansible):
    ansible("mac2", "ansible.builtin.command", "/sbin/pfctl -d", become=True)
    proc = run_playbook(CONVERGE, "--tags", "firewall")
    assert proc.returncode == 0, proc.stdout[-6000:]
    # The check reports pf off, and its handler loads the rules and enables pf: on mac2 only.
    assert {host: counts["changed"] for host, counts in recap(proc.stdout).items()} == \
        {host: 2 if host == "mac2" else 0 for host in HOSTS}
    assert "RUNNING HANDLER [macops.cluster.firewall : Load the pf rules]" in proc.stdout
    assert "Status: Enabled" in ansible("mac2", "ansible.builtin.command", "/sbin/pfctl -s info", become=True).stdout


def test_bad_network_is_refused_before_anything_changes(pfctl):
    before = {host: (read_host_file(host, ANCHOR), read_host_file(host, PF_CONF)) for host in HOSTS}
    proc = run_playbook(CONVERGE, "--tags", "firewall", "-e", '{"firewall_extra_allowed_networks": ["lan"]}')
    assert proc.returncode != 0
    assert "firewall_extra_allowed_networks = 'lan' is refused: 'lan' is not an IPv4 address or network" in proc.stdout
    assert {host: (read_host_file(host, ANCHOR), read_host_file(host, PF_CONF)) for host in HOSTS} == before
