"""A Mac Studio as node_facts reads it: each command's argv and its captured output, a plan file, the links'
commands and exo's LaunchDaemon (the stand-in for exo's API: the exo_api fixture, module_utils/conftest.py)."""
import plistlib

from fixture_files import read_fixture
from module_harness import FakeMac

PROFILE = ["/usr/sbin/system_profiler", "-json", "SPHardwareDataType", "SPSoftwareDataType", "SPThunderboltDataType"]
PORTS = ["/usr/sbin/networksetup", "-listallhardwareports"]
SW_VERS = ["/usr/bin/sw_vers"]
DF_ROOT = ["/bin/df", "-k", "/"]
DF_MODELS = ["/bin/df", "-k", "/Volumes/Models"]
FDESETUP = ["/usr/bin/fdesetup", "status"]
AUTHRESTART = ["/usr/bin/fdesetup", "supportsauthrestart"]
PRINT_DISABLED = ["/bin/launchctl", "print-disabled", "system"]
SSHD = ["/bin/launchctl", "print", "system/com.openssh.sshd"]
EXO_DAEMON = ["/bin/launchctl", "print", "system/io.exo.networksetup"]
BOOT = ["/usr/sbin/sysctl", "-n", "kern.bootsessionuuid"]
WIRED = ["/usr/sbin/sysctl", "-n", "iogpu.wired_limit_mb"]
RDMA_CTL = ["/usr/bin/rdma_ctl", "status"]
IBV_DEVICES = ["/usr/bin/ibv_devices"]
IBV_DEVINFO = ["/usr/bin/ibv_devinfo", "-v"]
UPDATES = ["/usr/sbin/softwareupdate", "--list"]
BOOT_UUID = "5D1C4D2E-7A0B-4C61-9E1F-3B2A8C9D0E11"


def ok(fixture):
    return (0, read_fixture(fixture), "")


def studio(overrides=None):
    outputs = {
        tuple(PROFILE): ok("system_profiler/studio_m3_ultra.json"),
        tuple(PORTS): ok("networksetup/listallhardwareports_studio.txt"),
        tuple(SW_VERS): ok("sw_vers/tahoe_26_2.txt"),
        tuple(DF_ROOT): ok("df/studio_root.txt"),
        tuple(DF_MODELS): ok("df/studio_data_volume.txt"),
        tuple(FDESETUP): ok("fdesetup/off.txt"),
        tuple(AUTHRESTART): (0, "false\n", ""),
        tuple(PRINT_DISABLED): ok("launchctl/print_disabled_macos14.txt"),
        tuple(SSHD): (0, "system/com.openssh.sshd = {\n}\n", ""),
        tuple(EXO_DAEMON): (113, "", "Could not find service \"io.exo.networksetup\" in domain for system\n"),
        tuple(BOOT): (0, BOOT_UUID + "\n", ""),
        tuple(WIRED): (0, "229376\n", ""),
        tuple(RDMA_CTL): ok("rdma_ctl/enabled.txt"),
        tuple(IBV_DEVICES): ok("ibv_devices/studio.txt"),
        tuple(IBV_DEVINFO): ok("ibv_devinfo/studio_ready_v.txt"),
        tuple(UPDATES): (0, "Software Update Tool\n\nFinding available software\n",
                         "No new software available.\n"),
    }
    outputs.update(overrides or {})
    return FakeMac([(list(argv), result) for argv, result in outputs.items()])


ROUTE_PEER = ["/sbin/route", "-n", "get", "198.19.0.2"]
ROUTE_DEFAULT = ["/sbin/route", "-n", "get", "default"]
PING_PEER = ["/sbin/ping", "-c", "2", "-i", "0.2", "-t", "3", "198.19.0.2"]


def plan_file(tmp_path):
    import json

    path = tmp_path / "thunderbolt-plan.json"
    path.write_text(json.dumps({"hosts": {"mac1": {"en3": {"peer_ip": "198.19.0.2", "peer_host": "mac2"}},
                                          "mac2": {"en3": {"peer_ip": "198.19.0.1", "peer_host": "mac1"}}}}))
    return str(path)


def link_outputs(ping=ok("ping/macos_two_replies.txt")):
    return {tuple(ROUTE_PEER): ok("route/peer_on_en3.txt"), tuple(PING_PEER): ping,
            tuple(ROUTE_DEFAULT): ok("route/default_en0.txt")}


def exo_plist(tmp_path, port="52999"):
    path = tmp_path / "org.macops.exo.plist"
    path.write_bytes(plistlib.dumps({"Label": "org.macops.exo", "ProgramArguments": [
        "/opt/macops/exo-venv/bin/exo", "--api-port", port], "StandardErrorPath": "/Library/Logs/macops/exo.log"}))
    return str(path)
