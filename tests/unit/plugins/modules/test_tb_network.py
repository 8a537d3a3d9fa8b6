"""macops.cluster.tb_network against mocked macOS commands: the plan applied in order, check mode predicting, the
state file, the cables verified after applying."""
import json
import os
import plistlib
import stat

from ansible.plugins.filter.core import to_nice_json

from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.modules import tb_network

from fake_links import LINK, PING, ROUTE, link_mac
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

NS = "/usr/sbin/networksetup"
PORTS = [NS, "-listallhardwareports"]
ORDER = [NS, "-listnetworkserviceorder"]
BRIDGE_INFO = [NS, "-getinfo", "Thunderbolt Bridge"]
IFCONFIG_BRIDGE = ["/sbin/ifconfig", "bridge0"]
EN3 = {"device": "en3", "address": "198.19.0.1"}


def ok(fixture):
    return (0, read_fixture(fixture), "")


def fresh_studio(extra=()):
    return FakeMac([
        (PORTS, ok("networksetup/listallhardwareports_studio.txt")),
        (ORDER, ok("networksetup/listnetworkserviceorder_fresh_studio.txt")),
        (BRIDGE_INFO, ok("networksetup/getinfo_dhcp_no_lease.txt")),
        (IFCONFIG_BRIDGE, ok("ifconfig/bridge0_two_members.txt")),
    ] + list(extra))


CHANGES = [
    [NS, "-createnetworkservice", "Thunderbolt 2", "Thunderbolt 2"],
    [NS, "-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.252"],
    [NS, "-setnetworkserviceenabled", "Thunderbolt Bridge", "off"],
    ["/usr/libexec/PlistBuddy", "-c", "Delete :VirtualNetworkInterfaces:Bridge:bridge0",
     "/Library/Preferences/SystemConfiguration/preferences.plist"],
    ["/sbin/ifconfig", "bridge0", "deletem", "en2"],
    ["/sbin/ifconfig", "bridge0", "deletem", "en3"],
    ["/sbin/ifconfig", "bridge0", "destroy"],
]


def test_check_mode_reads_only_and_predicts_the_changes(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, tb_network.main,
                               {"services": [EN3], "_ansible_check_mode": True, "_ansible_diff": True}, fresh_studio())
    # The first reads run at once, in any order.
    assert sorted(calls) == sorted([PORTS, ORDER, IFCONFIG_BRIDGE])
    assert result["changed"] is True
    assert [[step["tool"]] + step["args"] for step in result["commands"]][:2] == [
        ["networksetup"] + CHANGES[0][1:], ["networksetup"] + CHANGES[1][1:]]
    assert result["diff"]["before"]["thunderbolt_bridge"]["live_members"] == ["en2", "en3"]
    assert result["diff"]["after"]["thunderbolt_services"]["Thunderbolt 2"]["ipv4"]["ip_address"] == "198.19.0.1"


def test_real_run_applies_the_planned_commands_in_order(monkeypatch, capsys):
    mac = fresh_studio([(argv, (0, "", "")) for argv in CHANGES])
    result, calls = run_module(monkeypatch, capsys, tb_network.main, {"services": [EN3]}, mac)
    assert sorted(calls[:3]) == sorted([PORTS, ORDER, IFCONFIG_BRIDGE]) and calls[3:] == CHANGES
    assert result["changed"] is True
    assert result["bridge_removed"] is True
    assert result["services"] == [{"device": "en3", "service": "Thunderbolt 2", "address": "198.19.0.1",
                                   "netmask": "255.255.255.252"}]


def test_the_hardware_ports_an_earlier_read_found_are_not_asked_again(monkeypatch, capsys):
    known = parse_hardware_ports(read_fixture("networksetup/listallhardwareports_studio.txt"))
    asked, _ = run_module(monkeypatch, capsys, tb_network.main, {"services": [EN3], "_ansible_check_mode": True},
                          fresh_studio())
    given, calls = run_module(monkeypatch, capsys, tb_network.main,
                              {"services": [EN3], "_ansible_check_mode": True, "hardware_ports": known}, fresh_studio())
    assert PORTS not in calls and sorted(calls) == sorted([ORDER, IFCONFIG_BRIDGE])
    assert given["commands"] == asked["commands"] and given["changed"] is True


def test_failing_command_names_what_was_already_applied(monkeypatch, capsys):
    mac = fresh_studio([(CHANGES[0], (0, "", "")), (CHANGES[1], (4, "** Error: The parameters were not valid.\n", ""))])
    result, calls = run_module(monkeypatch, capsys, tb_network.main, {"services": [EN3]}, mac)
    assert calls[-1] == CHANGES[1]
    assert result["failed"] is True
    assert "exit status 4" in result["msg"]
    assert "-createnetworkservice Thunderbolt 2 Thunderbolt 2" in result["msg"]


def test_mtu_outside_the_valid_range_is_refused_before_reading(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, tb_network.main, {"services": [EN3], "mtu": 65000}, fresh_studio())
    assert calls == []
    assert "mtu must be between 1280 and 9000" in result["msg"]


def test_unknown_device_fails_with_the_port_list(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, tb_network.main,
                                {"services": [{"device": "en42", "address": "198.19.0.1"}]}, fresh_studio())
    assert result["failed"] is True
    assert "en42 is not a hardware port" in result["msg"]


# The state file: what the role stores (the plan's addresses), read before and written after.
PLAN = {"pool": "198.19.0.0/16",
        "links": {"mac1:en3-mac2:en3": {"subnet": "198.19.0.0/30", "a_ip": "198.19.0.1", "b_ip": "198.19.0.2"}},
        "hosts": {"mac1": {"en3": {"ip": "198.19.0.1", "prefix": 30, "netmask": "255.255.255.252",
                                   "peer_ip": "198.19.0.2", "peer_host": "mac2", "link_id": "mac1:en3-mac2:en3"}}}}


def network_untouched():
    """A Mac where the module only reads (no services, bridge kept, order left alone)."""
    return FakeMac([
        (PORTS, ok("networksetup/listallhardwareports_studio.txt")),
        (ORDER, ok("networksetup/listnetworkserviceorder_fresh_studio.txt")),
    ])


# What record() applies, recorded beside the plan for doctor.yml's check (node_facts network).
WRITTEN = dict(PLAN, applied={"mtu": None, "bridge": "keep", "order": False})


def record(path, content=PLAN, **extra):
    return dict({"services": [], "bridge": "keep", "order": False,
                 "state_file": {"path": str(path), "content": content, "mode": "0644"}}, **extra)


def test_state_file_written_then_found_and_left_alone(monkeypatch, capsys, tmp_path):
    path = tmp_path / "thunderbolt-plan.json"
    first, _calls = run_module(monkeypatch, capsys, tb_network.main, record(path), network_untouched())
    assert first["changed"] is True and first["state_changed"] is True
    assert first["state_found"] is False
    assert first["commands"] == []
    assert path.read_text() == to_nice_json(WRITTEN) + "\n"
    assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o644

    again, _calls = run_module(monkeypatch, capsys, tb_network.main, record(path), network_untouched())
    assert again["changed"] is False and again["state_changed"] is False
    assert again["state_found"] is True


def test_state_file_check_mode_predicts_without_writing(monkeypatch, capsys, tmp_path):
    path = tmp_path / "thunderbolt-plan.json"
    path.write_text(json.dumps({"pool": "198.19.0.0/16", "links": {}, "hosts": {}}))
    result, _calls = run_module(monkeypatch, capsys, tb_network.main,
                                dict(record(path), _ansible_check_mode=True, _ansible_diff=True), network_untouched())
    assert result["changed"] is True and result["state_found"] is True
    assert result["diff"]["before"]["state_file"]["links"] == {}
    assert result["diff"]["after"]["state_file"] == WRITTEN
    assert json.loads(path.read_text())["links"] == {}


def test_state_file_check_mode_on_a_fresh_node(monkeypatch, capsys, tmp_path):
    # A fresh node in --check: not even the state directory exists yet.
    path = tmp_path / "missing-dir" / "thunderbolt-plan.json"
    result, _calls = run_module(monkeypatch, capsys, tb_network.main,
                                dict(record(path), _ansible_check_mode=True), network_untouched())
    assert result["changed"] is True and result["state_found"] is False
    assert not path.parent.exists()


def test_state_file_not_written_when_a_network_change_fails(monkeypatch, capsys, tmp_path):
    path = tmp_path / "thunderbolt-plan.json"
    mac = fresh_studio([(CHANGES[0], (0, "", "")), (CHANGES[1], (4, "** Error: The parameters were not valid.\n", ""))])
    result, _calls = run_module(monkeypatch, capsys, tb_network.main,
                                {"services": [EN3], "state_file": {"path": str(path), "content": PLAN}}, mac)
    assert result["failed"] is True
    assert not path.exists()


def test_address_reset_daemons_installed_and_loaded(monkeypatch, capsys, tmp_path):
    # exo's daemon, loaded; another tool's, installed but disabled and booted out (launchctl: 113);
    # one whose plist cannot be read (its label is then the file name), loaded; one not installed.
    loaded = tmp_path / "io.exo.networksetup.plist"
    loaded.write_bytes(plistlib.dumps({"Label": "io.exo.networksetup", "ProgramArguments": ["/bin/true"]}))
    booted_out = tmp_path / "com.example.resetter.plist"
    booted_out.write_bytes(plistlib.dumps({"Label": "com.example.resetter-job"}))
    unreadable = tmp_path / "org.example.broken.plist"
    unreadable.write_text("<plist")
    missing = str(tmp_path / "org.example.other.plist")
    mac = network_untouched()
    mac.outputs.update({
        ("/bin/launchctl", "print", "system/io.exo.networksetup"): (0, "system/io.exo.networksetup = {\n", ""),
        ("/bin/launchctl", "print", "system/com.example.resetter-job"):
            (113, "", "Could not find service \"com.example.resetter-job\" in domain for system\n"),
        ("/bin/launchctl", "print", "system/org.example.broken"): (0, "system/org.example.broken = {\n", ""),
    })
    result, calls = run_module(monkeypatch, capsys, tb_network.main,
                               {"services": [], "bridge": "keep", "order": False,
                                "address_reset_daemons": [str(loaded), str(booted_out), str(unreadable), missing]}, mac)
    assert result["address_reset_daemons"] == [str(loaded), str(booted_out), str(unreadable)]
    assert result["address_reset_daemons_loaded"] == [str(loaded), str(unreadable)]
    assert result["changed"] is False and result["state_found"] is False
    assert len([call for call in calls if call[0] == "/bin/launchctl"]) == 3


def test_no_daemon_installed_asks_launchd_nothing(monkeypatch, capsys, tmp_path):
    result, calls = run_module(monkeypatch, capsys, tb_network.main,
                               {"services": [], "bridge": "keep", "order": False,
                                "address_reset_daemons": [str(tmp_path / "io.exo.networksetup.plist")]},
                               network_untouched())
    assert (result["address_reset_daemons"], result["address_reset_daemons_loaded"]) == ([], [])
    assert not [call for call in calls if "launchctl" in call[0]]


# tb_network's own verification: one module run applies the plan and pings every peer.

def verifying_mac(ping=("ping/macos_two_replies.txt", 0)):
    mac = link_mac(ping=ping)
    mac.outputs.update({tuple(ORDER): ok("networksetup/listnetworkserviceorder_fresh_studio.txt")})
    return mac


def verify_args(**extra):
    return dict({"services": [], "bridge": "keep", "order": False, "links": [dict(LINK, ip="198.19.0.1")],
                 "host": "mac1"}, **extra)


def test_apply_then_ping_every_peer_in_one_run(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, tb_network.main, verify_args(), verifying_mac())
    assert result.get("failed") is not True and result["problems"] == []
    (link,) = result["links"]
    assert link["ok"] is True and link["ip"] == "198.19.0.1" and link["route_interface"] == "en3"
    assert [PING, "-c", "2", "-t", "3", "198.19.0.2"] in calls


def test_a_silent_peer_fails_the_node_naming_port_peer_and_host(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, tb_network.main, verify_args(),
                                verifying_mac(ping=("ping/macos_no_reply.txt", 2)))
    assert result["failed"] is True
    (problem,) = result["problems"]
    assert (problem["code"], problem["host"], problem["port"], problem["peer"]) == ("tb_link_no_reply", "mac1", "en3", "mac2")
    assert result["msg"].startswith("[tb_link_no_reply] mac1 en3: no reply from mac2")
    # without require_links the same finding is only reported
    result, _calls = run_module(monkeypatch, capsys, tb_network.main, verify_args(require_links=False),
                                verifying_mac(ping=("ping/macos_no_reply.txt", 2)))
    assert result.get("failed") is not True and [p["code"] for p in result["problems"]] == ["tb_link_no_reply"]


def test_check_mode_and_verify_off_ping_nothing(monkeypatch, capsys):
    for extra in ({"_ansible_check_mode": True}, {"verify": False}):
        result, calls = run_module(monkeypatch, capsys, tb_network.main, verify_args(**extra), verifying_mac())
        assert [link["ok"] for link in result["links"]] == [None]
        assert not [call for call in calls if call[0] in (PING, ROUTE)]


def test_a_daemon_an_earlier_read_found_not_loaded_is_not_asked_again(monkeypatch, capsys, tmp_path):
    plist = tmp_path / "io.exo.networksetup.plist"
    plist.write_bytes(plistlib.dumps({"Label": "io.exo.networksetup"}))
    args = {"services": [], "bridge": "keep", "order": False, "address_reset_daemons": [str(plist)], "host": "mac4"}
    result, calls = run_module(monkeypatch, capsys, tb_network.main,
                               dict(args, launchd_loaded={"io.exo.networksetup": False}), network_untouched())
    assert result["address_reset_daemons_loaded"] == [] and not [c for c in calls if "launchctl" in c[0]]
    mac = network_untouched()
    mac.outputs[("/bin/launchctl", "print", "system/io.exo.networksetup")] = (0, "system/io.exo.networksetup = {\n", "")
    result, calls = run_module(monkeypatch, capsys, tb_network.main,
                               dict(args, launchd_loaded={"io.exo.networksetup": True}), mac)
    assert result["address_reset_daemons_loaded"] == [str(plist)]
    (problem,) = result["problems"]
    assert problem["code"] == "tb_exo_networksetup_daemon" and problem["host"] == "mac4"
    assert str(plist) in problem["fix"]


def test_keep_with_two_cables_is_refused_before_anything_is_read(monkeypatch, capsys):
    services = [EN3, {"device": "en4", "address": "198.19.0.5"}]
    result, calls = run_module(monkeypatch, capsys, tb_network.main,
                               {"services": services, "bridge": "keep", "host": "mac1"}, FakeMac([]))
    assert result["failed"] is True and "mac1 has 2 cables planned" in result["msg"] and calls == []
