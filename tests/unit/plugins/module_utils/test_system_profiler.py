"""system_profiler's parsers, JSON and text (plugins/module_utils/_system_profiler.py), also on the formats people
outside this project captured on real Macs and published (test fixtures of Mac tooling such as oMLX's
tests/test_cluster_topology.py, exo's issue threads): integer and four-field core counts, lower-case text."""

import json

import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture

GIB = 1024 ** 3


def load(fixture):
    return sp.parse_json(read_fixture("system_profiler/" + fixture))


VALID_HARDWARE = [
    ("studio_m3_ultra.json", ("Apple M3 Ultra", "Mac15,14", "Mac Studio", 512 * GIB, 32, 24, 8, "QX7F2L9K4M")),
    ("mini_m4_pro.json", ("Apple M4 Pro", "Mac16,11", "Mac mini", 64 * GIB, 14, 10, 4, "MN4P8T2R6V")),
    # "proc 14:0:10:4": four fields, the last two add up to the total.
    ("macbook_pro_m4_max.json", ("Apple M4 Max", "Mac16,6", "MacBook Pro", 36 * GIB, 14, 10, 4, "LP9M4X3C7Q")),
]


@pytest.mark.parametrize("fixture, expected", VALID_HARDWARE)
def test_hardware(fixture, expected):
    hardware = sp.parse_hardware(load(fixture)[sp.HARDWARE])
    assert tuple(hardware[key] for key in (
        "chip", "model_id", "model_name", "memory_bytes", "cores_total", "cores_performance",
        "cores_efficiency", "serial_number")) == expected


@pytest.mark.parametrize("processors, expected", [
    ("proc 32:24:8", (32, 24, 8)),
    ("proc 14:0:10:4", (14, 10, 4)),
    ("proc 12:3:4", (12, None, None)),
    ("proc 10", (10, None, None)),
    ("twelve", (None, None, None)),
])
def test_processor_counts(processors, expected):
    hardware = sp.parse_hardware([{"number_processors": processors}])
    assert (hardware["cores_total"], hardware["cores_performance"], hardware["cores_efficiency"]) == expected


@pytest.mark.parametrize("fixture, expected", [
    ("studio_m3_ultra.json", ("26.2", "25C56", "25.2.0")),
    ("mini_m4_pro.json", ("26.5.1", "25F80", "25.5.0")),
    ("old_macos.json", ("15.6", "24G84", "24.6.0")),
])
def test_software(fixture, expected):
    software = sp.parse_software(load(fixture)[sp.SOFTWARE])
    assert (software["macos_version"], software["macos_build"], software["kernel"]) == expected


def test_software_with_a_security_response():
    """Issue 48: `System Version: macOS 26.3.1 (a) (25D771280a)` on a Mac carrying the Background Security Improvement
    (a) (a real capture's text; the JSON's os_version is read the same way)."""
    software = sp.parse_software([{"_name": "os_overview", "os_version": "macOS 26.3.1 (a) (25D771280a)",
                                   "kernel_version": "Darwin 25.3.0"}])
    assert (software["macos_version"], software["macos_version_extra"], software["macos_build"]) == (
        "26.3.1", "(a)", "25D771280a")
    plain = sp.parse_software(load("studio_m3_ultra.json")[sp.SOFTWARE])
    assert plain["macos_version_extra"] is None


def test_thunderbolt_studio():
    ports = sp.parse_thunderbolt(load("studio_m3_ultra.json")[sp.THUNDERBOLT])
    assert [(p["receptacle"], p["bus"], p["speed"], p["speed_gbps"], p["link"], p["connected"]) for p in ports] == [
        (1, 0, "Up to 120 Gb/s", 120, "down", False),
        (2, 1, "80 Gb/s", 80, "up", True),
        (3, 2, "80 Gb/s", 80, "up", True),
        (4, 3, "Up to 120 Gb/s", 120, "down", False),
        (5, 4, "Up to 120 Gb/s", 120, "down", False),
        (6, 5, "Up to 120 Gb/s", 120, "down", False),
    ]
    assert ports[0]["peer"] is None
    assert ports[1]["bus_name"] == "thunderboltusb4_bus_1"
    assert ports[1]["device_name"] == "Mac Studio"
    assert ports[1]["peer"]["model_id"] == "Mac15,14"
    assert ports[1]["peer"]["name"] == "Mac Studio"
    assert ports[1]["peer"]["rdma_service"] is True
    assert ports[1]["peer"]["domain_uuid"] != ports[1]["domain_uuid"]


def test_thunderbolt_tb4_peer_without_rdma_service():
    ports = sp.parse_thunderbolt(load("studio_tb4_and_en2.json")[sp.THUNDERBOLT])
    tb4 = ports[3]
    assert (tb4["receptacle"], tb4["speed_gbps"], tb4["peer"]["rdma_service"]) == (4, 40, False)


@pytest.mark.parametrize("bus, expected_link, expected_connected", [
    # The receptacle status decides first: real dock ports show 0x4 (connected) and 0x7 (idle).
    ({"link_status_key": "0x4", "receptacle_status_key": "receptacle_connected"}, "up", True),
    ({"link_status_key": "0x7", "receptacle_status_key": "receptacle_no_devices_connected"}, "down", False),
    ({"link_status_key": "0x2", "receptacle_status_key": "receptacle_no_devices_connected"}, "down", False),
    ({"receptacle_status_key": "receptacle_no_devices_connected"}, "down", False),
    # No or unknown status: the link code, then nothing attached means down.
    ({"link_status_key": "0x2"}, "up", True),
    ({"link_status_key": "0x7", "receptacle_status_key": 7}, "down", False),
])
def test_thunderbolt_link_fallback(bus, expected_link, expected_connected):
    tag = dict(bus, receptacle_id_key="1", current_speed_key="unknown")
    port = sp.parse_thunderbolt([{"_name": "odd", "domain_uuid_key": "X", "receptacle_1_tag": tag}])[0]
    assert (port["link"], port["connected"], port["speed_gbps"], port["bus"]) == (expected_link, expected_connected, None, None)


def test_thunderbolt_skips_buses_without_domain_uuid():
    assert sp.parse_thunderbolt([{"_name": "thunderboltusb4_bus_0"}, "junk"]) == []


@pytest.mark.parametrize("bus, reason", [
    ({"_name": "thunderboltusb4_bus_0", "domain_uuid_key": "X"}, "has no receptacle_1_tag"),
    ({"_name": "thunderboltusb4_bus_0", "domain_uuid_key": "X", "receptacle_1_tag": {"receptacle_id_key": "left"}}, "is not a number"),
])
def test_thunderbolt_rejects(bus, reason):
    with pytest.raises(ParseError, match="system_profiler -json") as error:
        sp.parse_thunderbolt([bus])
    assert reason in error.value.reason


def test_memory_and_network():
    data = load("memory_network.json")
    assert sp.parse_memory(data[sp.MEMORY]) == {"memory_bytes": 64 * GIB, "type": "LPDDR5", "manufacturer": "Micron"}
    assert sp.parse_network(data[sp.NETWORK]) == [
        {"name": "Ethernet", "interface": "en0", "type": "Ethernet", "hardware": "Ethernet",
         "ipv4_method": "Manual", "ipv4_addresses": ["198.18.0.11"], "service_order": 1},
        {"name": "Thunderbolt Bridge", "interface": "bridge0", "type": "Bridge", "hardware": "Bridge",
         "ipv4_method": "DHCP", "ipv4_addresses": [], "service_order": 2},
    ]


INVALID_JSON = [
    (read_fixture("system_profiler/empty.json"), "the output is empty"),
    (read_fixture("system_profiler/truncated.json"), "not JSON"),
    ("[]", "expected an object keyed by data type"),
    ('{"SPHardwareDataType": {}}', "SPHardwareDataType is not a list"),
]


@pytest.mark.parametrize("text, reason", INVALID_JSON)
def test_json_rejects(text, reason):
    with pytest.raises(ParseError, match="`system_profiler -json`") as error:
        sp.parse_json(text)
    assert reason in error.value.reason


@pytest.mark.parametrize("parser, items, reason", [
    (sp.parse_hardware, [], "SPHardwareDataType holds no item"),
    (sp.parse_hardware, [{"physical_memory": "lots"}], "is not like `512 GB`"),
    (sp.parse_software, [{"os_version": "Tahoe"}], "is not like `macOS 26.2 (25C56)`"),
    (sp.parse_memory, [{"_items": [{"dimm_size": "8 GB"}]}], "Intel DIMM lists are not supported"),
    (sp.parse_network, [{"interface": "en0"}], "item without _name"),
])
def test_data_type_rejects(parser, items, reason):
    with pytest.raises(ParseError) as error:
        parser(items)
    assert reason in error.value.reason


def test_text_forms_agree_with_json():
    json_ports = sp.parse_thunderbolt(load("studio_m3_ultra.json")[sp.THUNDERBOLT])
    text_ports = sp.parse_thunderbolt_text(read_fixture("system_profiler/studio_thunderbolt.txt"))
    assert sp.thunderbolt_differences(json_ports, text_ports) == []
    assert [port["peer"]["rdma_service"] for port in text_ports if port["peer"]] == [True, True]
    assert text_ports[1]["peer"]["model_id"] == "Mac15,14"
    json_hardware = sp.parse_hardware(load("studio_m3_ultra.json")[sp.HARDWARE])
    assert sp.parse_hardware_text(read_fixture("system_profiler/studio_hardware.txt")) == json_hardware


def test_thunderbolt_differences_reported():
    json_ports = sp.parse_thunderbolt(load("studio_m3_ultra.json")[sp.THUNDERBOLT])
    text_ports = sp.parse_thunderbolt_text(read_fixture("system_profiler/studio_thunderbolt.txt"))
    text_ports[1] = dict(text_ports[1], speed="40 Gb/s", speed_gbps=40, peer=None)
    assert sp.thunderbolt_differences(json_ports, text_ports[:-1]) == [
        "receptacle 2 speed: JSON '80 Gb/s', text '40 Gb/s'",
        "receptacle 2 speed_gbps: JSON 80, text 40",
        "receptacle 2 peer domain_uuid: JSON %r, text None" % json_ports[1]["peer"]["domain_uuid"],
        "receptacle 6 only in the JSON form",
    ]
    assert sp.thunderbolt_differences([], text_ports[:1]) == ["receptacle 1 only in the text form"]


@pytest.mark.parametrize("parser, text, reason", [
    (sp.parse_thunderbolt_text, "", "the output is empty"),
    (sp.parse_thunderbolt_text, "Thunderbolt/USB4:\n    no colon here\n", "neither `Key: value` nor `Section:`"),
    (sp.parse_thunderbolt_text, "Thunderbolt/USB4:\n", "no `Thunderbolt/USB4 Bus N:` section"),
    (sp.parse_thunderbolt_text, "Thunderbolt/USB4 Bus 0:\n  Domain UUID: X\n  Port:\n    Speed: 80 Gb/s\n", "has no Port block"),
    (sp.parse_hardware_text, "Hardware:\n  Hardware Overview:\n    Chip: Apple M3 Ultra\n", "no `Model Identifier:` line"),
])
def test_text_rejects(parser, text, reason):
    with pytest.raises(ParseError) as error:
        parser(text)
    assert reason in error.value.reason
    assert error.value.command.startswith("system_profiler SP")


@pytest.mark.parametrize("serial, masked", [("QX7F2L9K4M", "QX7F******"), ("ABC", "***"), ("", ""), (None, None)])
def test_mask_serial(serial, masked):
    assert sp.mask_serial(serial) == masked


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


def test_intel_thunderbolt3_text_fails_naming_the_format():
    with pytest.raises(ParseError) as error:
        sp.parse_thunderbolt_text(read_fixture("system_profiler/intel_thunderbolt3.txt"))
    assert error.value.command == "system_profiler SPThunderboltDataType"
    assert "`Thunderbolt Bus 0:` is the Thunderbolt 3 layout" in error.value.reason


def test_fixtures_are_in_system_profilers_json_layout():
    for fixture in ("studio_external_ssd.json", "studio_dock_with_mini_behind.json", "macbook_pro_m5_max_thunderbolt.json"):
        text = read_fixture("system_profiler/" + fixture)
        assert text.startswith('{\n  "SPThunderboltDataType" : [\n') and json.loads(text)
