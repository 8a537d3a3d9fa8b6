"""The Thunderbolt network planner (plugins/module_utils/_tb_network.py): parsed Mac state in,
networksetup/ifconfig/PlistBuddy steps out; the plan's state file as to_nice_json wrote it."""
import pytest
from ansible.plugins.filter.core import to_nice_json

from ansible_collections.macops.cluster.plugins.module_utils._ifconfig import parse_interface
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import (parse_getinfo, parse_hardware_ports,
                                                                                   parse_service_order)
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_network import plan, state_text, state_view

from fixture_files import read_fixture

PORTS = parse_hardware_ports(read_fixture("networksetup/listallhardwareports_studio.txt"))
FRESH = parse_service_order(read_fixture("networksetup/listnetworkserviceorder_fresh_studio.txt"))
BRIDGE = parse_interface(read_fixture("ifconfig/bridge0_two_members.txt"))
MANUAL = parse_getinfo(read_fixture("networksetup/getinfo_manual.txt"))  # 198.19.0.1/30, no router
DHCP = parse_getinfo(read_fixture("networksetup/getinfo_dhcp_no_lease.txt"))
EN3 = {"device": "en3", "address": "198.19.0.1", "netmask": "255.255.255.252"}
EN4 = {"device": "en4", "address": "198.19.0.5", "netmask": "255.255.255.252"}


def service(order, name, device, enabled=True, port=None):
    return {"order": order if enabled else None, "name": name, "enabled": enabled,
            "hardware_port": port or name, "device": device}


def wanted(services=(EN3,), mtu=None, bridge="absent", order=True):
    return {"services": list(services), "mtu": mtu, "bridge": bridge, "order": order}


def commands(result):
    return [[step["tool"]] + step["args"] for step in result["steps"]]


def test_fresh_studio_gets_services_addresses_no_bridge_and_order():
    result = plan(PORTS, FRESH, {"Thunderbolt Bridge": DHCP}, {"en3": {"active": 1500, "current": 1500},
                                                                 "en4": {"active": 1500, "current": 1500}},
                  BRIDGE, wanted([EN3, EN4], mtu=9000))
    assert commands(result) == [
        ["networksetup", "-createnetworkservice", "Thunderbolt 2", "Thunderbolt 2"],
        ["networksetup", "-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.252"],
        ["networksetup", "-createnetworkservice", "Thunderbolt 3", "Thunderbolt 3"],
        ["networksetup", "-setmanual", "Thunderbolt 3", "198.19.0.5", "255.255.255.252"],
        ["networksetup", "-setMTU", "en3", "9000"],
        ["networksetup", "-setMTU", "en4", "9000"],
        ["networksetup", "-setnetworkserviceenabled", "Thunderbolt Bridge", "off"],
        ["PlistBuddy", "-c", "Delete :VirtualNetworkInterfaces:Bridge:bridge0",
         "/Library/Preferences/SystemConfiguration/preferences.plist"],
        ["ifconfig", "bridge0", "deletem", "en2"],
        ["ifconfig", "bridge0", "deletem", "en3"],
        ["ifconfig", "bridge0", "destroy"],
    ]
    assert result["bridge_removed"] is True
    assert result["readdressed"] == []
    assert result["services"] == [dict(EN3, service="Thunderbolt 2"), dict(EN4, service="Thunderbolt 3")]
    assert result["after"]["service_order"] == ["Ethernet", "Wi-Fi", "Thunderbolt Bridge", "Thunderbolt 2", "Thunderbolt 3"]
    assert result["after"]["thunderbolt_bridge"] == {"configured": [], "live_members": None}
    assert result["before"]["thunderbolt_bridge"] == {"configured": ["bridge0"], "live_members": ["en2", "en3"]}


def converged_services():
    ports = [port for port in PORTS if port["device"] != "bridge0"]
    services = [service(1, "Ethernet", "en0"), service(2, "Wi-Fi", "en1"),
                service(None, "Thunderbolt Bridge", "bridge0", enabled=False),
                service(3, "Thunderbolt 2", "en3")]
    return ports, services


def test_converged_mac_needs_nothing():
    ports, services = converged_services()
    result = plan(ports, services, {"Thunderbolt Bridge": DHCP, "Thunderbolt 2": MANUAL},
                  {"en3": {"active": 1500, "current": 1500}}, None, wanted(mtu=1500))
    assert result["steps"] == []
    assert result["bridge_removed"] is False
    assert result["before"] == result["after"]


def test_address_reset_to_dhcp_is_reapplied_and_reported():
    ports, services = converged_services()
    result = plan(ports, services, {"Thunderbolt 2": DHCP}, {}, None, wanted())
    assert commands(result) == [["networksetup", "-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.252"]]
    assert result["readdressed"] == [{"device": "en3", "service": "Thunderbolt 2",
                                      "was": {"method": "dhcp", "ip_address": None, "subnet_mask": None, "router": None}}]


def test_router_on_a_thunderbolt_service_is_removed():
    ports, services = converged_services()
    routed = dict(MANUAL, router="198.19.0.2")
    result = plan(ports, services, {"Thunderbolt 2": routed}, {}, None, wanted())
    assert commands(result) == [["networksetup", "-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.252"]]
    assert "via router 198.19.0.2" in result["steps"][0]["reason"]


def test_bridge_that_came_back_is_removed_again():
    ports, services = converged_services()
    services[2] = service(3, "Thunderbolt Bridge", "bridge0")
    services[3]["order"] = 4
    result = plan(PORTS, services, {"Thunderbolt 2": MANUAL}, {}, BRIDGE, wanted())
    assert commands(result)[0] == ["networksetup", "-setnetworkserviceenabled", "Thunderbolt Bridge", "off"]
    assert result["bridge_removed"] is True
    assert result["readdressed"] == []


def test_keep_mode_addresses_the_bridge_and_leaves_it():
    bridge_address = {"device": "bridge0", "address": "198.19.0.1", "netmask": "255.255.255.252"}
    result = plan(PORTS, FRESH, {"Thunderbolt Bridge": DHCP}, {}, BRIDGE, wanted([bridge_address], bridge="keep"))
    assert commands(result) == [["networksetup", "-setmanual", "Thunderbolt Bridge", "198.19.0.1", "255.255.255.252"]]
    assert result["bridge_removed"] is False


def test_disabled_service_is_enabled_and_duplicates_disabled():
    ports, services = converged_services()
    services[3] = service(None, "Thunderbolt 2", "en3", enabled=False)
    services.append(service(4, "EXO Thunderbolt 2", "en3", port="Thunderbolt 2"))
    result = plan(ports, services, {"Thunderbolt 2": MANUAL, "EXO Thunderbolt 2": DHCP}, {}, None, wanted())
    assert commands(result) == [
        ["networksetup", "-setnetworkserviceenabled", "Thunderbolt 2", "on"],
        ["networksetup", "-setnetworkserviceenabled", "EXO Thunderbolt 2", "off"],
    ]


def test_thunderbolt_service_above_management_is_moved_down():
    ports, services = converged_services()
    services = [services[3], services[0], services[1], services[2]]
    result = plan(ports, services, {"Thunderbolt 2": MANUAL}, {}, None, wanted())
    # Thunderbolt services keep their relative order, after every other service.
    assert commands(result) == [["networksetup", "-ordernetworkservices", "Ethernet", "Wi-Fi", "Thunderbolt 2",
                                 "Thunderbolt Bridge"]]
    unordered = plan(ports, services, {"Thunderbolt 2": MANUAL}, {}, None, wanted(order=False))
    assert unordered["steps"] == []


def test_unknown_device_is_refused():
    with pytest.raises(PlanError, match="en9 is not a hardware port"):
        plan(PORTS, FRESH, {}, {}, None, wanted([{"device": "en9", "address": "198.19.0.1", "netmask": "255.255.255.252"}]))


def test_name_clash_is_refused():
    services = FRESH + [service(4, "Thunderbolt 2", "en5", port="Thunderbolt 4")]
    services_without_en3 = [svc for svc in services if svc["device"] != "en3"]
    with pytest.raises(PlanError, match="not bound to en3"):
        plan(PORTS, services_without_en3, {}, {}, None, wanted())


def test_only_a_port_that_had_its_planned_address_before_has_lost_it():
    """A cable just plugged in (a Mac that joined: its port was never addressed) and a moved cable (its port had
    another address) lost nothing; a port back on DHCP with the same planned address did."""
    from ansible_collections.macops.cluster.plugins.module_utils._tb_network import lost_addresses
    import json
    previous = json.dumps({"hosts": {"mac1": {"en3": {"ip": "198.19.0.1"}, "en4": {"ip": "198.19.0.5"}}}})
    readdressed = [{"device": "en3", "service": "Thunderbolt 2", "was": {"method": "dhcp"}},
                   {"device": "en4", "service": "Thunderbolt 3", "was": {"method": "manual"}},
                   {"device": "en6", "service": "Thunderbolt 5", "was": {"method": "dhcp"}}]
    wanted = [{"device": "en3", "address": "198.19.0.1"}, {"device": "en4", "address": "198.19.0.9"},
              {"device": "en6", "address": "198.19.0.13"}]
    assert lost_addresses(readdressed, previous, "mac1", wanted) == readdressed[:1]
    assert lost_addresses(readdressed, None, "mac1", wanted) == []
    assert lost_addresses(readdressed, "not json", "mac1", wanted) == []
    assert lost_addresses(readdressed, previous, "mac2", wanted) == []


# The state file: what the role stores (the plan's addresses), read before and written after.
PLAN = {"pool": "198.19.0.0/16",
        "links": {"mac1:en3-mac2:en3": {"subnet": "198.19.0.0/30", "a_ip": "198.19.0.1", "b_ip": "198.19.0.2"}},
        "hosts": {"mac1": {"en3": {"ip": "198.19.0.1", "prefix": 30, "netmask": "255.255.255.252",
                                   "peer_ip": "198.19.0.2", "peer_host": "mac2", "link_id": "mac1:en3-mac2:en3"}}}}


def test_state_text_is_what_to_nice_json_wrote():
    # Files written by the former copy task (to_nice_json + newline) must read as unchanged.
    assert state_text(PLAN) == to_nice_json(PLAN) + "\n"
    assert state_view(state_text(PLAN)) == PLAN
    assert state_view("not json") == "not json" and state_view(None) is None
