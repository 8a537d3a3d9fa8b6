"""Verify a converged lab node the way an owner would check a real Mac, over SSH (paramiko)."""
import json

PLAN = "/Library/Application Support/macops/thunderbolt-plan.json"


def test_is_a_mac_on_the_required_macos(host):
    assert host.check_output("/usr/bin/sw_vers -productVersion") >= "26.2"
    assert host.check_output("/usr/bin/uname -s") == "Darwin"


def test_thunderbolt_bridge_is_gone_and_every_cable_has_its_address(host):
    assert host.run("/sbin/ifconfig bridge0").rc != 0
    name = host.check_output("/bin/hostname -s")
    plan = json.loads(host.file(PLAN).content_string)
    ends = plan["hosts"][name]
    assert ends, "the node has cables"
    for device, end in ends.items():
        assert "inet %s netmask 0xfffffffc" % end["ip"] in host.check_output("/sbin/ifconfig %s" % device)
        assert host.run("/sbin/ping -c 1 -t 3 %s" % end["peer_ip"]).rc == 0


def test_scoped_sudo_rules_are_installed(host):
    rules = host.file("/etc/sudoers.d/macops")
    assert rules.exists and rules.mode == 0o440
    assert host.run("sudo -n /usr/sbin/sysctl -n iogpu.wired_limit_mb").rc == 0


def test_gpu_wired_limit_is_set(host):
    assert int(host.check_output("/usr/sbin/sysctl -n iogpu.wired_limit_mb")) > 0


def test_every_node_has_an_ssh_key_for_the_mesh(host):
    assert host.file("/Users/admin/.ssh/id_ed25519").exists
