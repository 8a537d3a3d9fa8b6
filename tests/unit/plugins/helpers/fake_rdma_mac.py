"""A Mac Studio as rdma_status reads it: sw_vers, rdma_ctl, ibv_devices, ibv_devinfo, system_profiler and
networksetup, each answering with a capture that a test may replace."""
from fixture_files import read_fixture
from module_harness import FakeMac

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
