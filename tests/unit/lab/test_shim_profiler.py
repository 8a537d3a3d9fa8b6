"""system_profiler: the Thunderbolt JSON read with MLX's and exo's rule, text/JSON agreement,
and the hardware text ansible and exo parse."""
import json
import os

import pytest
from ansible.module_utils.facts.hardware.darwin import DarwinHardware

import tbrules
from shimlab import CABLES, PROFILES, REPO

with open(os.path.join(REPO, "tests", "unit", "plugins", "module_utils", "fixtures", "system_profiler",
                       "studio_external_ssd.json")) as _handle:
    REAL_SSD_FIXTURE = _handle.read()


def thunderbolt(lab, host, *extra):
    result = lab.run("system_profiler", "SPThunderboltDataType", "-json", *extra, host=host)
    assert result.rc == 0, result
    return json.loads(result.out)["SPThunderboltDataType"]


def links_by_mlx_rule(lab):
    buses = {h: thunderbolt(lab, h) for h in sorted(PROFILES)}
    ports = {h: tbrules.parse_hardware_ports(lab.run("networksetup", "-listallhardwareports", host=h).out)
             for h in sorted(PROFILES)}
    return tbrules.links_by_mlx_rule(buses, ports)


def test_thunderbolt_json_gives_back_the_cabling(lab):
    expected = tbrules.expected_links(CABLES)
    assert len(expected) == 2
    assert links_by_mlx_rule(lab) == expected
    assert ("40 Gb/s" in {link[2] for link in expected})


def test_one_bus_per_port_highest_first_with_confirmed_keys(lab):
    buses = thunderbolt(lab, "mac1")
    assert [b["_name"] for b in buses] == ["thunderboltusb4_bus_%d" % n for n in range(5, -1, -1)]
    ports = {p["bus"]: p for p in lab.state()["hardware"]["tb_ports"]}
    for bus in buses:
        port = ports[int(bus["_name"].rsplit("_", 1)[1])]
        assert bus["domain_uuid_key"] == port["domain_uuid"]
        assert bus["receptacle_1_tag"]["receptacle_id_key"] == str(port["receptacle"])
        assert bus["device_name_key"] == "Mac Studio"
        assert bus["switch_uid_key"] == port["switch_uid"]


def test_connected_port_names_the_peer_and_its_port_uuid(lab):
    bus = next(b for b in thunderbolt(lab, "mac1") if b["receptacle_1_tag"]["receptacle_id_key"] == "2")
    tag = bus["receptacle_1_tag"]
    assert (tag["current_speed_key"], tag["link_status_key"], tag["receptacle_status_key"]) == \
        ("80 Gb/s", "0x2", "receptacle_connected")
    peer = bus["_items"][0]
    mac2_port3 = next(p for p in lab.state("mac2")["hardware"]["tb_ports"] if p["receptacle"] == 3)
    assert peer["domain_uuid_key"] == mac2_port3["domain_uuid"]
    assert (peer["_name"], peer["device_name_key"]) == ("Mac Studio", "Mac15,14")
    assert [s["_name"] for s in peer["services_title"]] == ["service_ip"]


def test_degraded_cable_reports_40_and_the_mini(lab):
    bus = next(b for b in thunderbolt(lab, "mac1") if b["receptacle_1_tag"]["receptacle_id_key"] == "3")
    assert bus["receptacle_1_tag"]["current_speed_key"] == "40 Gb/s"
    assert bus["_items"][0]["device_name_key"] == "Mac16,11"
    assert bus["_items"][0]["_name"] == "Mac mini"


def idle(bus):
    tag = bus["receptacle_1_tag"]
    return ("_items" not in bus and tag["current_speed_key"] == "Up to 120 Gb/s"
            and tag["link_status_key"] == "0x100"
            and tag["receptacle_status_key"] == "receptacle_no_devices_connected")


def test_cut_cable_and_empty_ports_are_idle(lab):
    buses = {b["receptacle_1_tag"]["receptacle_id_key"]: b for b in thunderbolt(lab, "mac1")}
    assert [r for r, b in sorted(buses.items()) if idle(b)] == ["1", "4", "5", "6"]


def test_peer_going_dark_makes_the_port_idle(lab):
    # A halted or rebooting peer: the supervisor takes its links down, ours loses carrier.
    lab.set_live("en3", carrier=False)
    bus = next(b for b in thunderbolt(lab, "mac1") if b["receptacle_1_tag"]["receptacle_id_key"] == "2")
    assert idle(bus)


def test_rdma_service_is_advertised_only_when_rdma_is_enabled(lab):
    with lab.edit_state() as state:
        state["rdma"]["enabled"] = True
    bus = next(b for b in thunderbolt(lab, "mac1") if b["receptacle_1_tag"]["receptacle_id_key"] == "2")
    services = {s["_name"]: s["protocol_id_key"] for s in bus["_items"][0]["services_title"]}
    assert services == {"service_ip": 1, "unknown_xd_service": 64087}


@pytest.mark.parametrize("rdma", [False, True])
def test_thunderbolt_text_agrees_with_json(lab, rdma):
    with lab.edit_state() as state:
        state["rdma"]["enabled"] = rdma
    from_json = tbrules.json_rows(thunderbolt(lab, "mac1"))
    text = lab.run("system_profiler", "SPThunderboltDataType").out
    assert text.startswith("Thunderbolt/USB4:\n\n")
    assert tbrules.text_rows(text) == from_json
    assert any(row[5] for row in from_json) is rdma


def test_json_layout_is_system_profilers(lab):
    raw = lab.run("system_profiler", "SPHardwareDataType", "-json").out
    assert raw.startswith('{\n  "SPHardwareDataType" : [\n')


def test_several_types_in_one_call(lab):
    result = lab.run("system_profiler", "-json", "SPHardwareDataType", "SPSoftwareDataType",
                     "SPNetworkDataType", "SPMemoryDataType", "SPThunderboltDataType",
                     "SPNoSuchDataType")
    data = json.loads(result.out)
    assert sorted(data) == ["SPHardwareDataType", "SPMemoryDataType", "SPNetworkDataType",
                            "SPSoftwareDataType", "SPThunderboltDataType"]
    hw = data["SPHardwareDataType"][0]
    assert (hw["machine_model"], hw["chip_type"], hw["physical_memory"], hw["number_processors"]) == \
        ("Mac15,14", "Apple M3 Ultra", "512 GB", "proc 32:24:8")
    assert data["SPSoftwareDataType"][0]["os_version"] == "macOS 26.2 (25C56)"
    assert data["SPMemoryDataType"][0]["SPMemoryDataType"] == "512 GB"
    ethernet = next(s for s in data["SPNetworkDataType"] if s["_name"] == "Ethernet")
    assert ethernet["ip_address"] == ["198.18.0.11"]
    assert ethernet["IPv4"]["ConfigMethod"] == "Manual"


def test_hardware_text_for_exo_and_ansible(lab, ansible_module):
    text = lab.run("system_profiler", "SPHardwareDataType", host="mac3").out
    # exo: first line containing "Model Name" / "Chip", value after ": ".
    model = next(l for l in text.splitlines() if "Model Name" in l).split(": ", 1)[1]
    chip = next(l for l in text.splitlines() if "Chip" in l).split(": ", 1)[1]
    assert (model, chip) == ("Mac mini", "Apple M4 Pro")
    profile = DarwinHardware(ansible_module).get_system_profile()
    assert profile["Model Identifier"] == "Mac15,14"
    assert profile["Total Number of Cores"] == "32 (24 Performance and 8 Efficiency)"
    assert profile["Memory"] == "512 GB"


def test_software_and_network_text_agree_with_json(lab):
    data = json.loads(lab.run("system_profiler", "-json", "SPSoftwareDataType", "SPNetworkDataType").out)
    text = lab.run("system_profiler", "SPSoftwareDataType", "SPNetworkDataType").out
    assert "System Version: " + data["SPSoftwareDataType"][0]["os_version"] in text
    for service in data["SPNetworkDataType"]:
        assert "\n    %s:\n" % service["_name"] in text
        assert "BSD Device Name: %s\n" % service["interface"] in text


def plug_ssd(lab, receptacle=6):
    from macsim.formats import profiler
    with lab.edit_state() as state:
        state["tb_devices"] = {str(receptacle): dict(profiler.DEVICES["ssd"], switch_uid="0x80870123456789AB")}


def test_external_ssd_is_printed_as_the_real_capture_shows_a_drive(lab):
    # The real-format fixture (a published capture, oMLX's tests/test_cluster_topology.py: a Mac
    # Studio with an Envoy Ultra) is
    # the reference the lab's drive must match key for key.
    fixture = json.loads(REAL_SSD_FIXTURE)["SPThunderboltDataType"]
    captured_bus = next(b for b in fixture if b.get("_items") and "domain_uuid_key" not in b["_items"][0])
    plug_ssd(lab)
    bus = next(b for b in thunderbolt(lab, "mac1") if b["receptacle_1_tag"]["receptacle_id_key"] == "6")
    (drive,) = bus["_items"]
    assert sorted(drive) == sorted(captured_bus["_items"][0])
    assert sorted(drive["receptacle_upstream_ambiguous_tag"]) == \
        sorted(captured_bus["_items"][0]["receptacle_upstream_ambiguous_tag"])
    assert {k: bus["receptacle_1_tag"][k] for k in ("current_speed_key", "link_status_key", "receptacle_status_key")} \
        == {k: captured_bus["receptacle_1_tag"][k] for k in ("current_speed_key", "link_status_key", "receptacle_status_key")}


def test_external_ssd_reads_as_a_device_in_both_forms_and_peers_stay(lab):
    from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
    plug_ssd(lab)
    for ports in (sp.parse_thunderbolt(thunderbolt(lab, "mac1")),
                  sp.parse_thunderbolt_text(lab.run("system_profiler", "SPThunderboltDataType").out)):
        by_receptacle = {p["receptacle"]: p for p in ports}
        ssd = by_receptacle[6]
        assert (ssd["peer"], ssd["connected"], ssd["speed_gbps"]) == (None, True, 80)
        assert [(d["name"], d["vendor"]) for d in ssd["devices"]] == [("Envoy Ultra", "Other World Computing")]
        assert by_receptacle[2]["peer"]["model_id"] == "Mac15,14" and by_receptacle[2]["devices"] == []


def test_a_drive_on_a_cabled_port_is_not_shown_over_the_mac(lab):
    plug_ssd(lab, receptacle=2)
    bus = next(b for b in thunderbolt(lab, "mac1") if b["receptacle_1_tag"]["receptacle_id_key"] == "2")
    assert [i["_name"] for i in bus["_items"]] == ["Mac Studio"]


def test_hardware_text_of_an_integer_core_count_is_the_bare_total():
    from macsim.formats import profiler
    item = dict(profiler.hardware_items({"memory_bytes": 8 * 1024 ** 3, "boot_rom": "1", "chip": "Apple M3 (Virtual)",
                                         "model_id": "VirtualMac2,1", "model_name": "Apple Virtual Machine 1",
                                         "model_number": "VM", "cores_total": 8, "cores_perf": 4, "cores_eff": 4,
                                         "platform_uuid": "U", "provisioning_udid": "P", "serial": "S"})[0])
    assert "Total Number of Cores: 8 (4 Performance and 4 Efficiency)" in profiler.hardware_text([item])
    item["number_processors"] = 8
    assert "      Total Number of Cores: 8\n" in profiler.hardware_text([item])
    item["number_processors"] = "proc 18:6:0:12"
    assert "      Total Number of Cores: 18\n" in profiler.hardware_text([item])
