"""The modules on the formats captured on real Macs: an external SSD is no RDMA port and no peer,
an integer core count is a clean result (published captures from real Macs)."""
import json

from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import rdma_status, system_profiler

PORTS = ["/usr/sbin/networksetup", "-listallhardwareports"]


def ok(fixture):
    return (0, read_fixture(fixture), "")


def studio_with_ssd():
    return FakeMac([
        (["/usr/bin/sw_vers"], ok("sw_vers/tahoe_26_2.txt")),
        (["/usr/bin/rdma_ctl", "status"], ok("rdma_ctl/enabled.txt")),
        (["/usr/bin/ibv_devices"], ok("ibv_devices/studio.txt")),
        (["/usr/bin/ibv_devinfo", "-v"], ok("ibv_devinfo/studio_ready_v.txt")),
        (["/usr/sbin/system_profiler", "-json", "SPThunderboltDataType"], ok("system_profiler/studio_external_ssd.json")),
        (PORTS, ok("networksetup/listallhardwareports_studio.txt")),
    ])


def test_the_ssd_port_is_listed_but_not_cabled_and_raises_no_problem(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, rdma_status.main, {}, studio_with_ssd())
    ports = dict((port["interface"], port) for port in result["ports"])
    # en5 is receptacle 4, the Envoy Ultra; en3 the cable to the MacBook Pro
    assert ports["en5"]["cabled"] is False and ports["en5"]["speed_gbps"] is None
    assert ports["en3"]["cabled"] is True
    assert not [p for p in result["problems"] if p["port"] == "en5"]
    assert not any("Envoy" in p["message"] for p in result["problems"])


def test_only_a_drive_attached_says_no_port_is_cabled_to_a_mac(monkeypatch, capsys):
    mac = studio_with_ssd()
    profile = ("/usr/sbin/system_profiler", "-json", "SPThunderboltDataType")
    text = read_fixture("system_profiler/studio_external_ssd.json")
    # the MacBook Pro unplugged: the drive is all that is left
    data = json.loads(text)
    for bus in data["SPThunderboltDataType"]:
        if bus["receptacle_1_tag"]["receptacle_id_key"] == "2":
            del bus["_items"]
            bus["receptacle_1_tag"].update(current_speed_key="Up to 120 Gb/s", link_status_key="0x100",
                                           receptacle_status_key="receptacle_no_devices_connected")
    mac.outputs[profile] = (0, json.dumps(data), "")
    result, _calls = run_module(monkeypatch, capsys, rdma_status.main, {}, mac)
    assert [(p["code"], p["message"]) for p in result["problems"]] == [
        ("tb_no_cabled_ports", "no Thunderbolt port is cabled to another Mac, so no RDMA link can form")]


def test_integer_core_count_is_a_result_with_a_note(monkeypatch, capsys):
    argv = ["/usr/sbin/system_profiler", "-json", "SPHardwareDataType"]
    mac = FakeMac([(argv, ok("system_profiler/virtual_mac_integer_processors.json")),
                   (PORTS, ok("networksetup/listallhardwareports_mini.txt"))])
    result, _calls = run_module(monkeypatch, capsys, system_profiler.main, {"data_types": ["SPHardwareDataType"]}, mac)
    assert not result.get("failed")
    assert (result["mac"]["cores_total"], result["mac"]["cores_performance"]) == (8, None)
    assert "number_processors 8 is a bare total" in result["mac"]["cores_note"]
