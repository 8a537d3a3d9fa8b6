"""ifconfig, route and ipconfig: ansible's Darwin network facts from our output, and the
volatile (live-only) changes MLX's --auto-setup and exo's script make."""
import os

from ansible.module_utils.facts.network.darwin import DarwinNetwork

from shimlab import NOBODY


def test_ansible_network_facts(lab, ansible_module):
    facts = DarwinNetwork(ansible_module).populate()
    assert facts["default_ipv4"]["gateway"] == "198.18.0.1"
    assert facts["default_ipv4"]["interface"] == "en0"
    assert facts["default_ipv4"]["address"] == "198.18.0.11"
    assert facts["default_ipv4"]["netmask"] == "255.255.255.0"
    assert facts["en0"]["macaddress"] == lab.state()["hardware"]["ethernet"]["mac"]
    assert facts["en0"]["status"] == "active"
    assert facts["en3"]["status"] == "active" and facts["en6"]["status"] == "inactive"
    assert facts["lo0"]["ipv4"][0]["address"] == "127.0.0.1"
    assert set(facts["interfaces"]) >= {"lo0", "en0", "en2", "en7", "bridge0"}
    assert ["/usr/sbin/route", "-n", "get", "default"] in ansible_module.calls


def test_bridge_lists_members_and_status(lab):
    out = lab.run("ifconfig", "bridge0").out
    assert out.startswith("bridge0: flags=8863<UP,BROADCAST,SMART,RUNNING,SIMPLEX,MULTICAST> mtu 1500\n")
    members = [l.split()[1] for l in out.splitlines() if l.startswith("\tmember: ")]
    assert members == ["en2", "en3", "en4", "en5", "en6", "en7"]
    assert "\tstatus: active\n" in out


def test_missing_interface(lab):
    result = lab.run("ifconfig", "en42")
    assert (result.rc, result.err) == (1, "ifconfig: interface en42 does not exist\n")


def test_mlx_auto_setup_commands_are_live_only(lab):
    before = lab.state()
    assert lab.run("ifconfig", "bridge0", "down").rc == 0
    assert lab.run("ifconfig", "en3", "inet", "198.19.0.1", "netmask", "255.255.255.252").rc == 0
    assert lab.run("route", "change", "198.19.0.2", "-interface", "en3").out == \
        "change host 198.19.0.2: gateway en3\n"
    assert lab.live()["bridge0"]["up"] is False
    assert lab.live()["en3"]["inet"] == ["198.19.0.1/30"]
    assert "route replace 198.19.0.2/32 dev en3" in lab.ip_log()
    assert lab.volatile()["routes"] == [{"destination": "198.19.0.2", "interface": "en3",
                                         "gateway": None}]
    assert lab.state() == before
    got = lab.run("route", "-n", "get", "198.19.0.2").out
    assert "  interface: en3\n" in got


def test_inet_without_alias_replaces_and_alias_adds(lab):
    lab.run("ifconfig", "en3", "inet", "198.19.0.1/30")
    lab.run("ifconfig", "en3", "inet", "198.19.0.5", "netmask", "0xfffffffc")
    assert lab.live()["en3"]["inet"] == ["198.19.0.5/30"]
    lab.run("ifconfig", "en3", "inet", "198.19.0.9", "netmask", "255.255.255.252", "alias")
    assert lab.live()["en3"]["inet"] == ["198.19.0.5/30", "198.19.0.9/30"]
    lab.run("ifconfig", "en3", "inet", "198.19.0.9", "-alias")
    assert lab.live()["en3"]["inet"] == ["198.19.0.5/30"]


def test_bridge_member_removal_and_destroy(lab):
    assert lab.run("ifconfig", "bridge0", "deletem", "en3").rc == 0
    assert "en3" not in [l.split()[1] for l in lab.run("ifconfig", "bridge0").out.splitlines()
                         if l.startswith("\tmember: ")]
    assert lab.run("ifconfig", "bridge0", "addm", "en3").rc == 0
    assert lab.live()["en3"]["master"] == "bridge0"
    assert lab.run("ifconfig", "bridge0", "destroy").rc == 0
    assert lab.run("ifconfig", "bridge0").rc == 1
    # Volatile: the preferences still hold the bridge.
    assert lab.state()["network"]["bridge"]["exists"] is True


def test_changes_need_root(lab):
    result = lab.run_process("ifconfig", "bridge0", "down", uid=NOBODY)
    assert result.rc == 1 and "Operation not permitted" in result.err
    assert lab.live()["bridge0"]["up"] is True
    route = lab.run_process("route", "change", "198.19.0.2", "-interface", "en3", uid=NOBODY)
    assert route.rc == 1 and route.err == "route: must be root to alter routing table\n"


def test_no_default_route(lab):
    lab.run("networksetup", "-setmanual", "Ethernet", "198.18.0.11", "255.255.255.0")
    result = lab.run("route", "-n", "get", "default")
    assert (result.rc, result.err) == (1, "route: writing to routing socket: not in table\n")
    assert lab.run("route", "-n", "get", "-inet6", "default").rc == 1


def test_unreachable_destination(lab):
    assert lab.run("route", "-n", "get", "203.0.113.9").rc == 1


def test_ipconfig_getifaddr(lab):
    assert lab.run("ipconfig", "getifaddr", "en0").out == "198.18.0.11\n"
    empty = lab.run("ipconfig", "getifaddr", "en2")
    assert (empty.rc, empty.out) == (1, "")


def test_ifconfig_list(lab):
    assert lab.run("ifconfig", "-l").out == "lo0 en0 en2 en3 en4 en5 en6 en7 bridge0\n"


def test_bridges_are_always_created_with_stp(lab):
    with open(lab.ip_state() + ".boot.log") as fh:
        boot = [l for l in fh.read().splitlines() if l.startswith("link add bridge0")]
    assert len(boot) == 1 and boot[0].endswith("type bridge stp_state 1 forward_delay 200")
    lab.run("ifconfig", "bridge0", "destroy")
    assert lab.run("ifconfig", "bridge0", "create").rc == 0
    assert lab.ip_log()[-1] == "link add bridge0 type bridge stp_state 1 forward_delay 200"
    assert lab.run("ifconfig", "bridge0", "create").rc == 1


def _fake_linux_ping(lab, stdout, rc):
    """A stand-in for iputils ping in the lab's Linux tool dir: records its argv, prints stdout."""
    path = os.path.join(lab.linux, "bin", "ping")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write("#!/bin/sh\nprintf '%%s\\n' \"$*\" > \"$0.args\"\ncat <<'OUT'\n%sOUT\nexit %d\n" % (stdout, rc))
    os.chmod(path, 0o755)
    return path + ".args"


LINUX_PING_OK = """PING 198.19.0.2 (198.19.0.2) 56(84) bytes of data.
64 bytes from 198.19.0.2: icmp_seq=1 ttl=64 time=0.051 ms
64 bytes from 198.19.0.2: icmp_seq=2 ttl=64 time=0.049 ms

--- 198.19.0.2 ping statistics ---
2 packets transmitted, 2 received, 0% packet loss, time 1001ms
rtt min/avg/max/mdev = 0.049/0.050/0.051/0.001 ms
"""


def test_ping_takes_macos_options_and_prints_the_macos_summary(lab):
    args = _fake_linux_ping(lab, LINUX_PING_OK, 0)
    result = lab.run("ping", "-c", "2", "-t", "3", "198.19.0.2")
    assert result.rc == 0
    with open(args) as handle:
        assert handle.read().split() == ["-n", "-c", "2", "-w", "3", "198.19.0.2"]
    assert "2 packets transmitted, 2 packets received, 0.0% packet loss\n" in result.out
    assert "round-trip min/avg/max/stddev = 0.049/0.050/0.051/0.001 ms" in result.out


def test_ping_without_reply_exits_2_like_macos(lab):
    _fake_linux_ping(lab, LINUX_PING_OK.replace("2 received, 0%", "0 received, 100%"), 1)
    result = lab.run("ping", "-c", "2", "-t", "3", "198.19.0.2")
    assert result.rc == 2 and "0 packets received, 100.0% packet loss" in result.out


def test_ping_rejects_linux_only_options(lab):
    assert lab.run("ping", "-w", "3", "198.19.0.2").rc == 64
