"""macops.cluster.rdma_status: readiness scenarios against mocked commands."""
import pytest
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.module_utils._rdma_readiness import RECOVERY_STEPS
from ansible_collections.macops.cluster.plugins.modules import rdma_status

SW_VERS = ["/usr/bin/sw_vers"]
RDMA_CTL = ["/usr/bin/rdma_ctl", "status"]
IBV_DEVICES = ["/usr/bin/ibv_devices"]
IBV_DEVINFO = ["/usr/bin/ibv_devinfo", "-v"]
PROFILE = ["/usr/sbin/system_profiler", "-json", "SPThunderboltDataType"]
PORTS = ["/usr/sbin/networksetup", "-listallhardwareports"]
ALL_TOOLS = ["sw_vers", "rdma_ctl", "ibv_devices", "ibv_devinfo", "system_profiler", "networksetup"]


def ok(fixture):
    return (0, read_fixture(fixture), "")


def fake_mac(sw_vers="sw_vers/tahoe_26_2.txt", rdma_ctl=ok("rdma_ctl/enabled.txt"), devices="ibv_devices/studio.txt",
             devinfo=ok("ibv_devinfo/studio_ready_v.txt"), profile="system_profiler/studio_thunderbolt_only.json",
             installed=ALL_TOOLS):
    return FakeMac([
        (SW_VERS, ok(sw_vers)),
        (RDMA_CTL, rdma_ctl),
        (IBV_DEVICES, ok(devices)),
        (IBV_DEVINFO, devinfo),
        (PROFILE, ok(profile)),
        (PORTS, ok("networksetup/listallhardwareports_studio.txt")),
    ], installed=installed)


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


def test_ready_ports(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, rdma_status.main, {"_ansible_check_mode": True}, fake_mac())
    assert (result["macos_version"], result["macos_build"]) == ("26.2", "25C56")
    assert [port["device"] for port in result["ports"]] == ["rdma_en%d" % n for n in range(2, 8)]
    en3 = result["ports"][1]
    assert en3 == {"device": "rdma_en3", "interface": "en3", "present": True, "state": "PORT_ACTIVE", "active": True,
                   "ipv4_gid": True, "gids": ["fe80::345e:bff:fe41:7c02", "::ffff:198.19.0.1", "fe80::1c8a:4dff:fe21:93b0"],
                   "cabled": True, "speed_gbps": 80}
    idle = result["ports"][0]
    assert (idle["cabled"], idle["speed_gbps"], idle["active"]) == (False, None, False)


def test_problem_texts(monkeypatch, capsys):
    disabled, _calls = run_module(monkeypatch, capsys, rdma_status.main, {},
                                  fake_mac(rdma_ctl=ok("rdma_ctl/disabled.txt"), devices="ibv_devices/rdma_disabled.txt"))
    assert disabled["problems"][0]["fix"] == RECOVERY_STEPS
    for step in ("shut the Mac down", "about 10 seconds", "Loading startup options", "Options, then Continue",
                 "Utilities > Terminal", "`rdma_ctl enable`", "reboot"):
        assert step in RECOVERY_STEPS
    # The cabled ports are listed with their expected device names even though no device exists.
    assert [(p["device"], p["present"], p["cabled"]) for p in disabled["ports"]] == [("rdma_en3", False, True), ("rdma_en4", False, True)]

    problems, _calls = run_module(monkeypatch, capsys, rdma_status.main, {},
                                  fake_mac(devinfo=ok("ibv_devinfo/studio_problems_v.txt")))
    no_gid, down = problems["problems"]
    assert no_gid["message"].startswith("rdma_en3 has no IPv4 address: ")
    assert "sudo ifconfig en3 inet 169.254.0.1 netmask 255.255.0.0 alias" in no_gid["fix"]
    assert down["message"].startswith("rdma_en4 is PORT_DOWN although en4 (Thunderbolt 3) is cabled to Mac mini")
    assert "RDMA disabled" in down["message"] and "cable" in down["message"]

    tb4, _calls = run_module(monkeypatch, capsys, rdma_status.main, {}, fake_mac(profile="system_profiler/studio_tb4_and_en2.json"))
    assert tb4["problems"][1]["message"] == "en5 (Thunderbolt 4): this link runs at 40 Gb/s: a TB4 cable or port cannot carry RDMA"


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
