"""doctor.yml's Thunderbolt settings check (_tb_config_check): the applied plan file read back as the
tb_network input that applied it, and the planner's differences on a drifted Mac turned into one
problem per kind, on the right port, with the fix."""
import json
import os

import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils._ifconfig import parse_interface
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import (
    parse_getinfo,
    parse_hardware_ports,
)
from ansible_collections.macops.cluster.plugins.module_utils._problems import PROBLEM_KEYS
from ansible_collections.macops.cluster.plugins.module_utils._tb_config_check import (
    applied_settings, plan_difference_problems)
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_network import plan

PORTS = parse_hardware_ports(read_fixture("networksetup/listallhardwareports_studio.txt"))
BRIDGE = parse_interface(read_fixture("ifconfig/bridge0_two_members.txt"))
MANUAL = parse_getinfo(read_fixture("networksetup/getinfo_manual.txt"))  # 198.19.0.1/30, no router
DHCP = parse_getinfo(read_fixture("networksetup/getinfo_dhcp_no_lease.txt"))
PLAN = {"pool": "198.19.0.0/16", "hosts": {
    "mac1": {"en3": {"ip": "198.19.0.1", "netmask": "255.255.255.252", "peer_ip": "198.19.0.2", "peer_host": "mac2"}},
    "mac2": {"en3": {"ip": "198.19.0.2", "netmask": "255.255.255.252", "peer_ip": "198.19.0.1", "peer_host": "mac1"}}}}


def service(order, name, device, enabled=True):
    return {"order": order if enabled else None, "name": name, "enabled": enabled, "hardware_port": name,
            "device": device}


def write(tmp_path, content):
    path = tmp_path / "thunderbolt-plan.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def applied_from_file(path, host):
    """What node_facts hands applied_settings: the file's text from its one read, None when missing."""
    text = open(path).read() if os.path.exists(path) else None
    return applied_settings(path, text, host)


def test_the_plan_file_gives_back_what_tb_network_applied(tmp_path):
    path = write(tmp_path, dict(PLAN, applied={"mtu": 9000, "bridge": "absent", "order": True}))
    assert applied_from_file(path, "mac1") == (True, {
        "services": [{"device": "en3", "address": "198.19.0.1", "netmask": "255.255.255.252"}],
        "mtu": 9000, "bridge": "absent", "order": True})
    # A plan written before tb_network recorded its settings: its defaults.
    assert applied_from_file(write(tmp_path, PLAN), "mac2")[1]["mtu"] is None
    # Keep mode: the single cable's address is on the bridge.
    keep = applied_from_file(write(tmp_path, dict(PLAN, applied={"bridge": "keep"})), "mac1")[1]
    assert keep["services"][0]["device"] == "bridge0" and keep["bridge"] == "keep"
    assert applied_from_file(str(tmp_path / "missing.json"), "mac1") == (False, None)
    assert applied_from_file(path, "mac9")[1]["services"] == []


@pytest.mark.parametrize("content, message", [
    ("{not json", "not JSON"),
    ({"hosts": {"mac1": ["en3"]}}, "hosts.mac1 is not an object"),
    ({"hosts": {"mac1": {"en3": {"peer_ip": "198.19.0.2"}}}}, "hosts.mac1.en3 has no ip"),
])
def test_a_file_that_is_no_plan_is_refused_naming_it(tmp_path, content, message):
    with pytest.raises(PlanError, match=message):
        applied_from_file(write(tmp_path, content), "mac1")


def drifted(tmp_path, services, infos, bridge_live=None, ports=None):
    wanted = applied_from_file(write(tmp_path, dict(PLAN, applied={"mtu": None, "bridge": "absent", "order": True})),
                          "mac1")[1]
    ports = ports or [port for port in PORTS if port["device"] != "bridge0"]
    return plan(ports, services, infos, {}, bridge_live, wanted)["differences"]


def converged():
    return [service(1, "Ethernet", "en0"), service(2, "Wi-Fi", "en1"), service(3, "Thunderbolt 2", "en3")]


def test_a_node_as_applied_has_no_difference_and_no_problem(tmp_path):
    assert drifted(tmp_path, converged(), {"Thunderbolt 2": MANUAL}) == []
    assert plan_difference_problems("mac1", [], False) == []


def test_an_address_reset_to_dhcp_is_one_error_on_its_port_and_names_exos_daemon_when_loaded(tmp_path):
    differences = drifted(tmp_path, converged(), {"Thunderbolt 2": DHCP})
    assert [(d["kind"], d["device"]) for d in differences] == [("address", "en3")]
    (found,) = plan_difference_problems("mac1", differences, False)
    assert (found["code"], found["severity"], found["host"], found["port"]) == ("tb_address_differs", "error", "mac1", "en3")
    assert "dhcp" in found["message"] and "site.yml --tags thunderbolt_network" in found["fix"]
    assert set(found) == set(PROBLEM_KEYS)
    (daemon,) = plan_difference_problems("mac1", differences, True)
    assert "launchctl bootout system/io.exo.networksetup" in daemon["fix"]


def test_the_bridge_back_and_a_wrong_order_are_one_problem_each(tmp_path):
    services = [service(1, "Thunderbolt 2", "en3"), service(2, "Ethernet", "en0"), service(3, "Wi-Fi", "en1"),
                service(4, "Thunderbolt Bridge", "bridge0")]
    differences = drifted(tmp_path, services, {"Thunderbolt 2": MANUAL}, BRIDGE, ports=PORTS)
    assert set(d["kind"] for d in differences) == {"bridge", "order"}
    problems = plan_difference_problems("mac1", differences, False)
    assert [(p["code"], p["port"]) for p in problems] == [("tb_bridge_on", "bridge0"), ("tb_service_order", None)]
    assert "the live bridge holds en2, en3" in problems[0]["message"] and "removes the bridge" in problems[0]["fix"]
    assert problems[0]["message"].count("en3") == 1


def test_a_second_service_and_the_mtu_are_settings_drift(tmp_path):
    differences = [{"kind": "mtu", "device": "en3", "reason": "en3 has MTU 1500"},
                   {"kind": "duplicate", "device": "en3", "reason": "Spare is a second service on en3"}]
    (found,) = plan_difference_problems("mac1", differences, False)
    assert (found["code"], found["severity"], found["port"]) == ("tb_config_drift", "warning", "en3")
    assert "MTU 1500" in found["message"] and "Spare" in found["message"]
