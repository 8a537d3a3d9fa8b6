"""macops.cluster.rdma_status: readiness scenarios against mocked commands, the Mac facts from the same
system_profiler run, and an external SSD's port listed but not cabled (a published capture)."""
import json

import pytest

from ansible_collections.macops.cluster.plugins.modules import rdma_status

from fake_rdma_mac import ALL_TOOLS, IBV_DEVICES, IBV_DEVINFO, PORTS, PROFILE, RDMA_CTL, SW_VERS, fake_mac, ok
from fixture_files import read_fixture
from module_harness import FakeMac, run_module


def codes(result):
    return [(problem["code"], problem["severity"], problem["port"]) for problem in result["problems"]]


FULL_RUN = [SW_VERS, RDMA_CTL, IBV_DEVICES, IBV_DEVINFO, PROFILE, PORTS]

SCENARIOS = [
    ("ready", {}, {}, FULL_RUN, True, True, []),
    ("no_ipv4_gid_and_port_down", {"devinfo": ok("ibv_devinfo/studio_problems_v.txt")}, {}, FULL_RUN, True, False,
     [("rdma_no_ipv4_gid", "error", "en3"), ("rdma_port_down", "error", "en4")]),
    ("rdma_disabled", {"rdma_ctl": ok("rdma_ctl/disabled.txt"), "devices": "ibv_devices/rdma_disabled.txt"}, {},
     # ibv_devinfo starts with the others (one round of commands), its answer unused without devices
     FULL_RUN, False, False, [("rdma_disabled", "error", None)]),
    ("sequoia_without_rdma_tools", {"sw_vers": "sw_vers/sequoia_15_6.txt", "installed": ["sw_vers", "system_profiler", "networksetup"]},
     {}, [SW_VERS, PROFILE, PORTS], None, False,
     [("rdma_ctl_missing", "error", None), ("macos_too_old", "error", None)]),
    ("macos_26_1", {"sw_vers": "sw_vers/tahoe_26_1.txt"}, {}, FULL_RUN, True, False, [("macos_too_old", "error", None)]),
    ("macos_26_1_accepted", {"sw_vers": "sw_vers/tahoe_26_1.txt"}, {"min_macos": "26.1"}, FULL_RUN, True, True, []),
    ("tb4_link_and_port_next_to_ethernet", {"profile": "system_profiler/studio_tb4_and_en2.json"}, {}, FULL_RUN, True, False,
     # The TB4 link is an error (the planner's too) and does not hide the port's other faults; the
     # port next to Ethernet can never carry RDMA, so nothing more is said about it.
     [("tb_port_next_to_ethernet", "error", "en2"), ("tb_link_tb4_speed", "error", "en5"),
      ("rdma_port_down", "error", "en5"), ("rdma_no_ipv4_gid", "error", "en5")]),
    ("device_missing", {"devices": "ibv_devices/studio_unsorted_without_en4.txt"}, {}, FULL_RUN, True, False,
     [("rdma_device_missing", "error", "en4")]),
    ("rdma_ctl_fails", {"rdma_ctl": (1, "", "rdma_ctl: not permitted")}, {}, FULL_RUN, None, False,
     [("rdma_status_unknown", "error", None)]),
    ("rdma_ctl_garbage", {"rdma_ctl": (0, "maybe\n", "")}, {}, FULL_RUN, None, False,
     [("rdma_status_unknown", "error", None)]),
    ("ibv_devinfo_fails", {"devinfo": (1, "", "Failed to open device")}, {}, FULL_RUN, True, False,
     [("rdma_port_down", "error", "en3"), ("rdma_no_ipv4_gid", "error", "en3"),
      ("rdma_port_down", "error", "en4"), ("rdma_no_ipv4_gid", "error", "en4"), ("rdma_tool_failed", "warning", None)]),
    ("no_cables", {"profile": "system_profiler/old_macos.json"}, {}, FULL_RUN, True, True,
     [("tb_no_cabled_ports", "warning", None)]),
]


@pytest.mark.parametrize("name, mac_args, module_args, expected_calls, enabled, ready, problems", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_scenarios(monkeypatch, capsys, name, mac_args, module_args, expected_calls, enabled, ready, problems):
    result, calls = run_module(monkeypatch, capsys, rdma_status.main, module_args, fake_mac(**mac_args))
    # Every read runs at once, in any order, each exactly once (ibv_devinfo too).
    assert sorted(calls) == sorted(expected_calls)
    assert result.get("failed") is None, result.get("msg")
    assert result["changed"] is False
    assert result["enabled"] is enabled
    assert result["ready"] is ready
    assert codes(result) == problems


@pytest.mark.parametrize("mac, args, message", [
    (fake_mac(sw_vers="sw_vers/garbage.txt"), {}, "cannot parse the output of `sw_vers`"),
    (fake_mac(), {"min_macos": "latest"}, "min_macos: 'latest' is not a macOS version"),
    (FakeMac([], installed=[]), {}, "sw_vers not found in /usr/bin or PATH: this module runs on macOS only"),
])
def test_fails_cleanly(monkeypatch, capsys, mac, args, message):
    result, _calls = run_module(monkeypatch, capsys, rdma_status.main, args, mac)
    assert result["failed"] is True
    assert result["msg"].startswith(message)
    assert "exception" not in result


def test_mac_facts_come_from_the_same_system_profiler_run(monkeypatch, capsys):
    """mac_facts: one system_profiler run answers both the readiness and the facts, and the facts
    are exactly what the system_profiler module publishes from the same output."""
    from ansible_collections.macops.cluster.plugins.modules import system_profiler

    full_profile = ["/usr/sbin/system_profiler", "-json", "SPHardwareDataType", "SPSoftwareDataType", "SPThunderboltDataType"]
    mac = fake_mac()
    del mac.outputs[tuple(PROFILE)]
    mac.outputs[tuple(full_profile)] = ok("system_profiler/studio_m3_ultra.json")
    result, calls = run_module(monkeypatch, capsys, rdma_status.main, {"mac_facts": True}, mac)
    assert [call for call in calls if call[0].endswith("system_profiler")] == [full_profile]
    assert result["ready"] is True

    published, _calls = run_module(monkeypatch, capsys, system_profiler.main, {"set_facts": True}, FakeMac([
        (full_profile, ok("system_profiler/studio_m3_ultra.json")),
        (PORTS, ok("networksetup/listallhardwareports_studio.txt")),
    ]))
    assert result["ansible_facts"] == published["ansible_facts"]
    assert result["ansible_facts"]["macops_mac"]["chip"] == "Apple M3 Ultra"

    without, _calls = run_module(monkeypatch, capsys, rdma_status.main, {}, fake_mac())
    assert "ansible_facts" not in without


def test_a_mac_fact_read_earlier_replaces_sw_vers_and_system_profiler(monkeypatch, capsys):
    """The post-network RDMA check of site.yml: only the RDMA tools run, with preflight's cabling."""
    full, _calls = run_module(monkeypatch, capsys, rdma_status.main, {"mac_facts": True}, FakeMac([
        (SW_VERS, ok("sw_vers/tahoe_26_2.txt")), (RDMA_CTL, ok("rdma_ctl/enabled.txt")),
        (IBV_DEVICES, ok("ibv_devices/studio.txt")), (IBV_DEVINFO, ok("ibv_devinfo/studio_ready_v.txt")),
        (["/usr/sbin/system_profiler", "-json", "SPHardwareDataType", "SPSoftwareDataType", "SPThunderboltDataType"],
         ok("system_profiler/studio_m3_ultra.json")),
        (PORTS, ok("networksetup/listallhardwareports_studio.txt"))], installed=ALL_TOOLS))
    mac = full["ansible_facts"]["macops_mac"]
    result, calls = run_module(monkeypatch, capsys, rdma_status.main, {"mac": mac}, fake_mac())
    assert sorted(calls) == sorted([RDMA_CTL, IBV_DEVICES, IBV_DEVINFO])
    assert result.get("failed") is None, result.get("msg")
    assert (result["ready"], result["macos_version"], result["ports"]) == (full["ready"], "26.2", full["ports"])
    old, _calls = run_module(monkeypatch, capsys, rdma_status.main, {"mac": dict(mac, macos_version="26.1")}, fake_mac())
    assert [problem["code"] for problem in old["problems"]] == ["macos_too_old"]


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
