"""The `mac` dict (plugins/module_utils/_mac_facts.py) built from system_profiler and networksetup: a Studio, a
laptop's port map out of order, an Intel Mac without a chip, memory fallbacks, serials masked unless asked."""
import json

from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac, mask_raw_serials
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports

from fixture_files import read_fixture

GIB = 1024 ** 3


def load(fixture):
    return sp.parse_json(read_fixture("system_profiler/" + fixture))


STUDIO_PORTS = parse_hardware_ports(read_fixture("networksetup/listallhardwareports_studio.txt"))


def test_build_mac_studio():
    mac = build_mac(load("studio_m3_ultra.json"), STUDIO_PORTS)
    assert {key: mac[key] for key in (
        "chip", "model_id", "model_name", "memory_bytes", "cores_total", "cores_performance",
        "cores_efficiency", "macos_version", "macos_build", "kernel", "serial_number")} == {
        "chip": "Apple M3 Ultra", "model_id": "Mac15,14", "model_name": "Mac Studio",
        "memory_bytes": 549755813888, "cores_total": 32, "cores_performance": 24, "cores_efficiency": 8,
        "macos_version": "26.2", "macos_build": "25C56", "kernel": "25.2.0", "serial_number": "QX7F******"}
    assert mac["hardware_ports"] == STUDIO_PORTS
    assert [(p["receptacle"], p["interface"], p["connected"]) for p in mac["thunderbolt_ports"]] == [
        (1, "en2", False), (2, "en3", True), (3, "en4", True), (4, "en5", False), (5, "en6", False), (6, "en7", False)]
    assert sorted(mac["thunderbolt_ports"][1]) == [
        "bus", "connected", "device_name", "devices", "domain_uuid", "interface", "link", "peer", "receptacle", "speed", "speed_gbps"]
    assert mac["thunderbolt_ports"][1]["devices"] == [] and mac["thunderbolt_ports"][1]["peer"]["via"] == []
    assert mac["cores_note"] is None
    assert mac["network_services"] == []


def test_build_mac_unmasked_and_laptop_port_map():
    ports = parse_hardware_ports(read_fixture("networksetup/listallhardwareports_macbook_pro.txt"))
    mac = build_mac(load("macbook_pro_m4_max.json"), ports, unmask_serial=True)
    assert mac["serial_number"] == "LP9M4X3C7Q"
    assert [(p["receptacle"], p["interface"]) for p in mac["thunderbolt_ports"]] == [(1, "en1"), (2, "en2"), (3, "en3")]


def test_build_mac_memory_fallback_and_missing_types():
    mac = build_mac(load("memory_network.json"), STUDIO_PORTS)
    assert (mac["memory_bytes"], mac["chip"], mac["macos_version"], mac["thunderbolt_ports"]) == (64 * GIB, None, None, [])
    assert [service["name"] for service in mac["network_services"]] == ["Ethernet", "Thunderbolt Bridge"]


def test_mask_raw_serials_only_touches_serials():
    raw = load("studio_m3_ultra.json")
    masked = mask_raw_serials(raw)
    assert masked[sp.HARDWARE][0]["serial_number"] == "QX7F******"
    masked[sp.HARDWARE][0]["serial_number"] = raw[sp.HARDWARE][0]["serial_number"]
    assert json.dumps(masked, sort_keys=True) == json.dumps(raw, sort_keys=True)


def test_intel_mac_without_chip_builds_a_mac_dict():
    mac = build_mac(load("intel_integer_processors.json"), [])
    assert (mac["chip"], mac["model_name"], mac["cores_total"], mac["thunderbolt_ports"]) == (None, "MacBook Pro", 8, [])
    assert "bare total" in mac["cores_note"]


def test_laptop_ports_map_through_networksetup_out_of_order():
    ports = parse_hardware_ports(read_fixture("networksetup/listallhardwareports_macbook_pro_m5_max.txt"))
    mac = build_mac(load("macbook_pro_m5_max_thunderbolt.json"), ports)
    assert [(p["receptacle"], p["interface"], p["connected"]) for p in mac["thunderbolt_ports"]] == [
        (1, "en1", True), (2, "en6", False), (3, "en2", False)]
    assert mac["thunderbolt_ports"][0]["peer"]["model_id"] == "Mac15,14"
    # the two captures of one cable point at each other
    studio = {p["receptacle"]: p for p in sp.parse_thunderbolt(load("studio_external_ssd.json")[sp.THUNDERBOLT])}
    assert studio[2]["peer"]["domain_uuid"] == mac["thunderbolt_ports"][0]["domain_uuid"]
    assert mac["thunderbolt_ports"][0]["peer"]["domain_uuid"] == studio[2]["domain_uuid"]
