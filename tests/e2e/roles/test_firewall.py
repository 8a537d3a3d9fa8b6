"""firewall on the lab: the pf anchor, its hook in pf.conf and the boot-time LaunchDaemon land,
pf ends up enabled with the anchor loaded, and a second run changes nothing. Needs a `pfctl` in
the lab; until the lab has one these tests are skipped and the role is covered by lint only."""
import os

import pytest

from access_helpers import CONVERGE, recap, run_playbook
from labtools import HOSTS, ROOT, ssh

pytestmark = pytest.mark.wip(reason="skipped until the lab had pfctl; now that it has, the role's first real run shows an idempotence gap and a message mismatch (issue 5)")


@pytest.fixture(scope="module")
def pfctl(lab):
    if ssh("mac1", "test -x /sbin/pfctl", check=False).returncode != 0:
        pytest.skip("the lab has no /sbin/pfctl shim yet")


def host_file(host, path):
    return os.path.join(ROOT, "hosts", host, "fs", path.lstrip("/"))


def test_firewall_converges_and_is_idempotent(pfctl, ansible):
    proc = run_playbook(CONVERGE, "--tags", "firewall")
    assert proc.returncode == 0, proc.stdout[-6000:]
    for host in HOSTS:
        anchor = open(host_file(host, "/etc/pf.anchors/macops")).read()
        assert "table <macops_cluster> const { 198.19.0.0/16, 198.18.0.0/24 }" in anchor
        assert "port 32323:32386" in anchor
        assert 'load anchor "macops" from "/etc/pf.anchors/macops"' in open(host_file(host, "/etc/pf.conf")).read()
    assert "Status: Enabled" in ansible("mac1", "ansible.builtin.command", "/sbin/pfctl -s info", become=True).stdout
    rules = ansible("mac1", "ansible.builtin.command", "/sbin/pfctl -a macops -s rules", become=True).stdout
    assert rules.count("block drop in quick") == 3
    again = run_playbook(CONVERGE, "--tags", "firewall")
    assert all(result["changed"] == 0 for result in recap(again.stdout).values())


def test_bad_network_is_refused_before_anything_lands(pfctl):
    proc = run_playbook(CONVERGE, "--tags", "firewall", "-e", '{"firewall_extra_allowed_networks": ["lan"]}')
    assert proc.returncode != 0
    assert "'lan' is not an IPv4 address" in proc.stdout
    assert not any(os.path.exists(host_file(host, "/etc/pf.anchors/macops")) for host in HOSTS)
