"""The formats people outside this project captured on real Macs and published (test fixtures of
Mac tooling such as oMLX's tests/test_cluster_topology.py, exo's issue threads): integer and
four-field core counts, drives and docks on Thunderbolt ports, link codes beyond 0x2/0x100, laptop
port maps, lower-case text."""
import json

import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._thunderbolt_items import describe_device

GIB = 1024 ** 3


def load(fixture):
    return sp.parse_json(read_fixture("system_profiler/" + fixture))


@pytest.mark.parametrize("fixture, model, memory, cores, note", [
    # Integer on virtual and Intel Macs: the total stays, the split is None and the note says why.
    ("virtual_mac_integer_processors.json", "VirtualMac2,1", 16 * GIB, (8, None, None), "bare total"),
    ("intel_integer_processors.json", "MacBookPro16,1", 32 * GIB, (8, None, None), "bare total"),
    # Four fields, tiers named: 16 performance + 8 efficiency on an M2 Ultra.
    ("studio_m2_ultra_proc_24_16_8_0.json", "Mac14,14", 192 * GIB, (24, 16, 8), None),
    ("macbook_pro_m4_max.json", "Mac16,6", 36 * GIB, (14, 10, 4), None),
    # M5 Max: 6 and 12 cores in tiers whose names system_profiler does not give.
    ("macbook_pro_m5_max_proc_18_6_0_12.json", "Mac17,7", 128 * GIB, (18, None, None), "not named"),
])
def test_core_counts_of_every_published_layout(fixture, model, memory, cores, note):
    hardware = sp.parse_hardware(load(fixture)[sp.HARDWARE])
    assert (hardware["model_id"], hardware["memory_bytes"]) == (model, memory)
    assert (hardware["cores_total"], hardware["cores_performance"], hardware["cores_efficiency"]) == cores
    if note is None:
        assert hardware["cores_note"] is None
    else:
        assert note in hardware["cores_note"] and "number_processors" in hardware["cores_note"]
        assert "`system_profiler -json` SPHardwareDataType" in hardware["cores_note"]


@pytest.mark.parametrize("value, expected", [
    (4, (4, None, None)), (True, (None, None, None)), (12.0, (None, None, None)), ([8], (None, None, None)),
    ("proc 24:8:8:8", (24, None, None)), ("proc 20:4:0:12", (20, None, None)), ("proc 10:0:6:4", (10, 6, 4)),
])
def test_unexpected_core_values_never_raise(value, expected):
    hardware = sp.parse_hardware([{"number_processors": value}])
    assert (hardware["cores_total"], hardware["cores_performance"], hardware["cores_efficiency"]) == expected
    # a note exactly when the split is missing
    assert bool(hardware["cores_note"]) is (expected[1] is None)


def test_intel_mac_without_chip_builds_a_mac_dict():
    mac = build_mac(load("intel_integer_processors.json"), [])
    assert (mac["chip"], mac["model_name"], mac["cores_total"], mac["thunderbolt_ports"]) == (None, "MacBook Pro", 8, [])
    assert "bare total" in mac["cores_note"]


@pytest.mark.parametrize("items, reason", [
    ([{"physical_memory": 512}], "memory size 512 is not like `512 GB`"),
    ([{"physical_memory": ["512 GB"]}], "is not like `512 GB`"),
])
def test_hardware_values_of_the_wrong_type_fail_naming_the_field(items, reason):
    with pytest.raises(ParseError) as error:
        sp.parse_hardware(items)
    assert reason in error.value.reason and error.value.command == "system_profiler -json"


def test_software_values_of_the_wrong_type_fail_naming_the_field():
    with pytest.raises(ParseError, match="os_version 26 is not like"):
        sp.parse_software([{"os_version": 26, "kernel_version": 25}])
    assert sp.parse_software([{"os_version": "macOS 26.2 (25C56)", "kernel_version": 25}])["kernel"] is None


def test_text_cores_in_lower_case():
    hardware = sp.parse_hardware_text(read_fixture("system_profiler/studio_hardware_lower_case_cores.txt"))
    assert (hardware["cores_total"], hardware["cores_performance"], hardware["cores_efficiency"]) == (24, 16, 8)
    assert hardware["cores_note"] is None
    assert hardware["model_id"] == "Mac14,14"


@pytest.mark.parametrize("line, expected", [
    ("Total Number of Cores: 8", (8, None, None)),
    ("Total Number of Cores: 18 (6 Super and 12 Performance)", (18, None, None)),
    ("Total Number of Cores: many", (None, None, None)),
])
def test_text_cores_without_a_split_keep_the_total_and_say_so(line, expected):
    text = "Hardware:\n\n    Hardware Overview:\n\n      Model Identifier: Mac17,7\n      %s\n" % line
    hardware = sp.parse_hardware_text(text)
    assert (hardware["cores_total"], hardware["cores_performance"], hardware["cores_efficiency"]) == expected
    assert "`system_profiler SPHardwareDataType` prints `%s`" % line in hardware["cores_note"]


def test_external_ssd_is_a_device_on_its_port_not_a_peer():
    ports = {p["receptacle"]: p for p in sp.parse_thunderbolt(load("studio_external_ssd.json")[sp.THUNDERBOLT])}
    ssd = ports[4]
    assert (ssd["connected"], ssd["link"], ssd["speed_gbps"], ssd["peer"]) == (True, "up", 80, None)
    assert ssd["devices"] == [{"name": "Envoy Ultra", "vendor": "Other World Computing", "model": "Envoy Ultra",
                               "mode": "usb_four_v2", "speed": "80 Gb/s", "depth": 1, "upstream": None}]
    assert describe_device(ssd["devices"][0]) == "Envoy Ultra (Other World Computing)"
    # the one Mac of the capture, with the RDMA service keyed on its protocol id (its key is garbled)
    assert [(r, p["peer"]["model_id"], p["peer"]["rdma_service"], p["peer"]["via"]) for r, p in ports.items()
            if p["peer"]] == [(2, "Mac17,7", True, [])]
    assert [r for r, p in ports.items() if not p["connected"]] == [1, 3, 5, 6]


def test_mac_behind_a_dock_is_found_one_level_deeper():
    ports = {p["receptacle"]: p for p in sp.parse_thunderbolt(load("studio_dock_with_mini_behind.json")[sp.THUNDERBOLT])}
    docked = ports[2]
    assert docked["peer"] == {"domain_uuid": "0B4D6F81-A3C5-4E27-9B19-3D5F7A9C1E04", "model_id": "Mac16,11",
                              "name": "Mac mini", "rdma_service": True, "via": ["TS5 Plus"]}
    assert [(d["name"], d["vendor"], d["mode"], d["depth"]) for d in docked["devices"]] == [
        ("TS5 Plus", "CalDigit, Inc.", "thunderbolt_five", 1)]
    # link code 0x4 on the connected dock port, 0x7 on idle ports: the receptacle status decides
    assert (docked["link"], docked["connected"]) == ("up", True)
    assert [(r, p["link"], p["connected"]) for r, p in sorted(ports.items()) if r != 2] == [
        (r, "down", False) for r in (1, 3, 4, 5, 6)]


def test_devices_at_every_depth_and_junk_items_are_skipped():
    items = [
        "junk",
        {"_name": "Dock", "vendor_name_key": "Acme", "_items": [
            {"_name": "Drive", "receptacle_upstream_ambiguous_tag": "odd"},
            {"device_name_key": "Display", "_items": "not a list"},
            {"_name": "Far Mac", "domain_uuid_key": "F", "_items": [{"_name": "behind the Mac"}]},
            {"_name": "Second Mac", "domain_uuid_key": "S"},
        ]},
    ]
    bus = {"_name": 5, "domain_uuid_key": "X", "receptacle_1_tag": {"receptacle_id_key": 3, "current_speed_key": 80},
           "_items": items}
    port = sp.parse_thunderbolt([bus])[0]
    assert (port["bus"], port["bus_name"], port["receptacle"], port["speed"], port["speed_gbps"]) == (None, None, 3, None, None)
    assert (port["peer"]["domain_uuid"], port["peer"]["via"], port["connected"]) == ("F", ["Dock"], True)
    assert [(d["name"], d["depth"], d["upstream"], d["speed"]) for d in port["devices"]] == [
        ("Dock", 1, None, None), ("Drive", 2, "Dock", None), ("Display", 2, "Dock", None)]
    assert describe_device({"name": None, "model": None, "vendor": "Acme"}) == "an unnamed device (Acme)"


def test_text_form_classifies_like_the_json():
    ports = {p["receptacle"]: p for p in sp.parse_thunderbolt_text(
        read_fixture("system_profiler/studio_thunderbolt_dock_and_ssd.txt"))}
    assert (ports[4]["peer"], [d["name"] for d in ports[4]["devices"]], ports[4]["devices"][0]["speed"]) == \
        (None, ["Envoy Ultra"], "80 Gb/s")
    assert ports[2]["peer"]["via"] == ["TS5 Plus"] and ports[2]["peer"]["rdma_service"] is True
    assert (ports[2]["link"], ports[1]["link"], ports[1]["connected"]) == ("up", "down", False)


def test_intel_thunderbolt3_text_fails_naming_the_format():
    with pytest.raises(ParseError) as error:
        sp.parse_thunderbolt_text(read_fixture("system_profiler/intel_thunderbolt3.txt"))
    assert error.value.command == "system_profiler SPThunderboltDataType"
    assert "`Thunderbolt Bus 0:` is the Thunderbolt 3 layout" in error.value.reason


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


def test_fixtures_are_in_system_profilers_json_layout():
    for fixture in ("studio_external_ssd.json", "studio_dock_with_mini_behind.json", "macbook_pro_m5_max_thunderbolt.json"):
        text = read_fixture("system_profiler/" + fixture)
        assert text.startswith('{\n  "SPThunderboltDataType" : [\n') and json.loads(text)
