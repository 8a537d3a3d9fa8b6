"""networksetup and PlistBuddy: listings, exact errors, persistence in state.json, and the
live effect through netapply (seen in the fake ip(8) and in ifconfig)."""
import pytest

from macsim import netapply

from shimlab import NOBODY


def services(lab):
    return {s["name"]: s for s in lab.state()["network"]["services"]}


def test_hardware_ports_listing(lab):
    out = lab.run("networksetup", "-listallhardwareports").out
    hw = lab.state()["hardware"]
    assert out.startswith("\nHardware Port: Ethernet\nDevice: en0\nEthernet Address: %s\n\n"
                          % hw["ethernet"]["mac"])
    assert "Hardware Port: Thunderbolt Bridge\nDevice: bridge0\n" in out
    for port in hw["tb_ports"]:
        assert "Hardware Port: Thunderbolt %d\nDevice: %s\nEthernet Address: %s\n" % (
            port["receptacle"], port["device"], port["mac"]) in out
    assert out.endswith("\nVLAN Configurations\n===================\n")


def test_service_listings_mark_disabled_services(lab):
    assert lab.run("networksetup", "-setnetworkserviceenabled", "Thunderbolt 1", "off").rc == 0
    names = lab.run("networksetup", "-listallnetworkservices").out.splitlines()
    assert names[0] == "An asterisk (*) denotes that a network service is disabled."
    assert names[1:4] == ["Ethernet", "Thunderbolt Bridge", "*Thunderbolt 1"]
    order = lab.run("networksetup", "-listnetworkserviceorder").out
    assert "(1) Ethernet\n(Hardware Port: Ethernet, Device: en0)\n\n" in order
    assert "(*) Thunderbolt 1\n(Hardware Port: Thunderbolt 1, Device: en2)\n\n" in order
    assert lab.run("networksetup", "-getnetworkserviceenabled", "Thunderbolt 1").out == "Disabled\n"
    assert lab.run("networksetup", "-getnetworkserviceenabled", "Ethernet").out == "Enabled\n"


def test_unknown_service_error_is_networksetups(lab):
    result = lab.run("networksetup", "-getinfo", "Nope")
    assert result.rc == 4
    assert result.out == ("Nope is not a recognized network service.\n"
                          "** Error: The parameters were not valid.\n")


@pytest.mark.parametrize("args", [
    ["-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.300"],
    ["-setmanual", "Thunderbolt 2", "not-an-ip", "255.255.255.252"],
    ["-setmanual", "Thunderbolt 2"],
    ["-setnetworkserviceenabled", "Thunderbolt 2", "maybe"],
    ["-setMTU", "en3", "99999"],
])
def test_bad_parameters_exit_4_and_change_nothing(lab, args):
    before = lab.state()
    result = lab.run("networksetup", *args)
    assert result.rc == 4
    assert result.out.endswith("** Error: The parameters were not valid.\n")
    assert lab.state() == before


def test_changes_need_root(lab):
    before = lab.state()
    result = lab.run_process("networksetup", "-setnetworkserviceenabled", "Thunderbolt Bridge",
                             "off", uid=NOBODY)
    assert result.rc != 0
    assert "requires admin privileges" in result.out
    assert lab.state() == before
    # Reading stays open to everyone.
    assert lab.run_process("networksetup", "-getnetworkserviceenabled", "Thunderbolt Bridge",
                           uid=NOBODY).out == "Enabled\n"


def test_setmanual_persists_and_reaches_the_link(lab):
    result = lab.run("networksetup", "-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.252")
    assert (result.rc, result.out, result.err) == (0, "", "")
    assert services(lab)["Thunderbolt 2"]["ipv4"] == {"method": "manual", "address": "198.19.0.1",
                                                      "mask": "255.255.255.252"}
    assert "198.19.0.1/30" in lab.live()["en3"]["inet"]
    info = lab.run("networksetup", "-getinfo", "Thunderbolt 2").out.splitlines()
    assert info[:3] == ["Manual Configuration", "IP address: 198.19.0.1", "Subnet mask: 255.255.255.252"]
    assert "\tinet 198.19.0.1 netmask 0xfffffffc broadcast 198.19.0.3" in lab.run("ifconfig", "en3").out
    assert lab.run("ipconfig", "getifaddr", "en3").out == "198.19.0.1\n"
    # Back to DHCP: no lease in the lab, the address goes.
    assert lab.run("networksetup", "-setdhcp", "Thunderbolt 2").rc == 0
    assert lab.live()["en3"]["inet"] == []
    assert lab.run("networksetup", "-getinfo", "Thunderbolt 2").out.startswith("DHCP Configuration\n")


def test_uncabled_port_keeps_manual_address_in_prefs_only(lab):
    assert lab.run("networksetup", "-setmanual", "Thunderbolt 5", "198.19.9.1", "255.255.255.252").rc == 0
    assert services(lab)["Thunderbolt 5"]["ipv4"]["address"] == "198.19.9.1"
    assert lab.live()["en6"]["inet"] == []


def test_disabling_the_bridge_service_frees_the_ports_and_persists(lab):
    assert lab.live()["en3"].get("master") == "bridge0"
    assert lab.run("networksetup", "-setnetworkserviceenabled", "Thunderbolt Bridge", "off").rc == 0
    assert services(lab)["Thunderbolt Bridge"]["enabled"] is False
    live = lab.live()
    assert live["bridge0"]["up"] is False
    assert not [n for n, i in live.items() if i.get("master") == "bridge0"]
    bridge = lab.run("ifconfig", "bridge0").out
    assert "member:" not in bridge and "\tstatus: inactive" in bridge
    # Boot re-applies the same persistent state: still off.
    netapply_again = _apply(lab)
    assert netapply_again == []
    assert lab.run("networksetup", "-setnetworkserviceenabled", "Thunderbolt Bridge", "on").rc == 0
    assert {n for n, i in lab.live().items() if i.get("master") == "bridge0"} == \
        {"en2", "en3", "en4", "en5", "en6", "en7"}


def _apply(lab):
    import os
    saved = dict(os.environ)
    os.environ.update(lab.env())
    try:
        return netapply.apply(lab.state(), lab.host_dir())
    finally:
        os.environ.clear()
        os.environ.update(saved)


def test_boot_apply_is_idempotent(lab):
    assert _apply(lab) == []


def test_plistbuddy_deletes_the_bridge_the_exo_way(lab):
    command = ["-c", "Delete :VirtualNetworkInterfaces:Bridge:bridge0",
               "/Library/Preferences/SystemConfiguration/preferences.plist"]
    assert lab.run("PlistBuddy", *command).rc == 0
    assert lab.state()["network"]["bridge"]["exists"] is False
    assert "Thunderbolt Bridge" not in lab.run("networksetup", "-listallhardwareports").out
    # Only the preferences changed; the live bridge goes with `ifconfig bridge0 destroy` or boot.
    assert "bridge0" in lab.live()
    again = lab.run("PlistBuddy", *command)
    assert again.rc == 1 and "Does Not Exist" in again.out
    _apply(lab)
    assert "bridge0" not in lab.live()


def test_create_order_and_remove_services(lab):
    assert lab.run("networksetup", "-createnetworkservice", "EXO Thunderbolt 2", "Thunderbolt 2").rc == 0
    created = services(lab)["EXO Thunderbolt 2"]
    assert (created["device"], created["ipv4"]) == ("en3", {"method": "dhcp"})
    dup = lab.run("networksetup", "-createnetworkservice", "EXO Thunderbolt 2", "Thunderbolt 2")
    assert dup.rc == 4
    assert lab.run("networksetup", "-createnetworkservice", "X", "Thunderbolt 9").rc == 4
    order = lab.state()["network"]["order"]
    assert order[-1] == "EXO Thunderbolt 2"
    reordered = [order[-1]] + order[:-1]
    assert lab.run("networksetup", "-ordernetworkservices", *reordered).rc == 0
    assert lab.run("networksetup", "-listallnetworkservices").out.splitlines()[1] == "EXO Thunderbolt 2"
    assert lab.run("networksetup", "-ordernetworkservices", "Ethernet").rc == 4
    assert lab.run("networksetup", "-removenetworkservice", "EXO Thunderbolt 2").rc == 0
    assert "EXO Thunderbolt 2" not in services(lab)
    assert "EXO Thunderbolt 2" not in lab.state()["network"]["order"]


def test_locations_switch_service_sets(lab):
    assert lab.run("networksetup", "-getcurrentlocation").out == "Automatic\n"
    assert lab.run("networksetup", "-createlocation", "exo", "populate").rc == 0
    assert lab.run("networksetup", "-listlocations").out == "Automatic\nexo\n"
    switched = lab.run("networksetup", "-switchtolocation", "exo")
    assert (switched.rc, switched.out) == (0, "found it!\n")
    assert lab.run("networksetup", "-getcurrentlocation").out == "exo\n"
    assert lab.run("networksetup", "-setmanual", "Thunderbolt 2", "198.19.0.5", "255.255.255.252").rc == 0
    # The management address survives: the populated Ethernet keeps its settings.
    assert "198.18.0.11/24" in lab.live()["en0"]["inet"]
    assert "198.19.0.5/30" in lab.live()["en3"]["inet"]
    assert lab.run("networksetup", "-deletelocation", "exo").rc == 4
    assert lab.run("networksetup", "-switchtolocation", "Automatic").rc == 0
    assert services(lab)["Thunderbolt 2"]["ipv4"] == {"method": "dhcp"}
    assert lab.live()["en3"]["inet"] == []
    assert lab.run("networksetup", "-deletelocation", "exo").rc == 0
    assert lab.run("networksetup", "-listlocations").out == "Automatic\n"
    assert lab.run("networksetup", "-switchtolocation", "nowhere").rc == 4


def test_mtu(lab):
    assert lab.run("networksetup", "-getMTU", "en3").out == "Active MTU: 1500 (Current Setting: 1500)\n"
    assert lab.run("networksetup", "-setMTU", "Thunderbolt 2", "9000").rc == 0
    assert lab.live()["en3"]["mtu"] == 9000
    assert lab.run("networksetup", "-getMTU", "en3").out == "Active MTU: 9000 (Current Setting: 9000)\n"
    assert lab.run("networksetup", "-getMTU", "en99").rc == 4
