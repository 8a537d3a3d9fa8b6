"""macops.cluster.system_profiler: main() against mocked commands, and the ad-hoc call CI and the README make, run
by `ansible` against localhost with the captured output of a Mac Studio's commands."""
import json
import os
import sys

import pytest

from ansible_collections.macops.cluster.plugins.modules import system_profiler

from ansible_cli import BIN, run_ansible
from fixture_files import FIXTURES, read_fixture
from module_harness import FakeMac, run_module

PROFILE_ARGV = ["/usr/sbin/system_profiler", "-json", "SPHardwareDataType", "SPSoftwareDataType", "SPThunderboltDataType"]
PORTS_ARGV = ["/usr/sbin/networksetup", "-listallhardwareports"]


def studio(profile_result=None):
    return FakeMac([
        (PROFILE_ARGV, profile_result or (0, read_fixture("system_profiler/studio_m3_ultra.json"), "")),
        (PORTS_ARGV, (0, read_fixture("networksetup/listallhardwareports_studio.txt"), "")),
    ])


@pytest.mark.parametrize("check_mode", [False, True])
def test_defaults_run_system_profiler_once(monkeypatch, capsys, check_mode):
    result, calls = run_module(monkeypatch, capsys, system_profiler.main, {"_ansible_check_mode": check_mode}, studio())
    assert calls == [PROFILE_ARGV, PORTS_ARGV]
    assert result["changed"] is False
    mac = result["mac"]
    assert (mac["chip"], mac["model_id"], mac["macos_version"], mac["serial_number"]) == ("Apple M3 Ultra", "Mac15,14", "26.2", "QX7F******")
    cabled = [(p["interface"], p["speed_gbps"], p["peer"]["model_id"]) for p in mac["thunderbolt_ports"] if p["connected"]]
    assert cabled == [("en3", 80, "Mac15,14"), ("en4", 80, "Mac16,11")]
    assert "ansible_facts" not in result and "raw" not in result


def test_set_facts_raw_unmasked(monkeypatch, capsys):
    args = {"set_facts": True, "raw": True, "unmask_serial": True}
    result, calls = run_module(monkeypatch, capsys, system_profiler.main, args, studio())
    assert result["ansible_facts"]["macops_mac"] == result["mac"]
    assert result["mac"]["serial_number"] == "QX7F2L9K4M"
    assert result["raw"]["SPHardwareDataType"][0]["serial_number"] == "QX7F2L9K4M"
    assert [call[0] for call in calls].count("/usr/sbin/system_profiler") == 1


def test_raw_masked_by_default(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, system_profiler.main, {"raw": True}, studio())
    assert result["raw"]["SPHardwareDataType"][0]["serial_number"] == "QX7F******"


def test_custom_data_types_in_one_call(monkeypatch, capsys):
    argv = ["/usr/sbin/system_profiler", "-json", "SPMemoryDataType", "SPNetworkDataType"]
    mac = FakeMac([
        (argv, (0, read_fixture("system_profiler/memory_network.json"), "")),
        (PORTS_ARGV, (0, read_fixture("networksetup/listallhardwareports_mini.txt"), "")),
    ])
    result, calls = run_module(monkeypatch, capsys, system_profiler.main, {"data_types": ["SPMemoryDataType", "SPNetworkDataType"]}, mac)
    assert calls == [argv, PORTS_ARGV]
    assert result["mac"]["memory_bytes"] == 68719476736
    assert result["mac"]["network_services"][0]["interface"] == "en0"


def test_the_readme_ad_hoc_read_of_the_thunderbolt_ports(monkeypatch, capsys):
    """README.md: `ansible macs -m macops.cluster.system_profiler -a 'data_types=SPThunderboltDataType'`."""
    argv = ["/usr/sbin/system_profiler", "-json", "SPThunderboltDataType"]
    mac = FakeMac([
        (argv, (0, read_fixture("system_profiler/studio_thunderbolt_only.json"), "")),
        (PORTS_ARGV, (0, read_fixture("networksetup/listallhardwareports_studio.txt"), "")),
    ])
    result, calls = run_module(monkeypatch, capsys, system_profiler.main,
                               {"data_types": "SPThunderboltDataType", "_ansible_check_mode": True}, mac)
    assert calls == [argv, PORTS_ARGV] and result["changed"] is False
    cabled = [(p["interface"], p["speed_gbps"]) for p in result["mac"]["thunderbolt_ports"] if p["connected"]]
    assert cabled == [("en3", 80), ("en4", 80)]


@pytest.mark.parametrize("profile_result, message", [
    ((0, read_fixture("system_profiler/truncated.json"), ""), "cannot parse the output of `system_profiler -json`: not JSON"),
    ((0, "", ""), "cannot parse the output of `system_profiler -json`: the output is empty"),
    ((1, "", "system_profiler: unknown data type"), "exit status 1: system_profiler: unknown data type"),
])
def test_bad_output_fails_cleanly(monkeypatch, capsys, profile_result, message):
    result, _calls = run_module(monkeypatch, capsys, system_profiler.main, {}, studio(profile_result))
    assert result["failed"] is True
    assert message in result["msg"]
    assert "exception" not in result


def test_malformed_hardware_ports_fail_cleanly(monkeypatch, capsys):
    mac = FakeMac([
        (PROFILE_ARGV, (0, read_fixture("system_profiler/studio_m3_ultra.json"), "")),
        (PORTS_ARGV, (0, read_fixture("networksetup/listallhardwareports_no_device.txt"), "")),
    ])
    result, _calls = run_module(monkeypatch, capsys, system_profiler.main, {}, mac)
    assert result["msg"] == "cannot parse the output of `networksetup -listallhardwareports`: port 'Ethernet' has no `Device:` line"


def test_rejects_option_like_data_types_before_running_anything(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, system_profiler.main, {"data_types": ["-xml"]}, studio())
    assert result["failed"] is True and "-xml" in result["msg"]
    assert calls == []


def test_not_a_mac(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, system_profiler.main, {}, FakeMac([], installed=[]))
    assert result["msg"] == "system_profiler not found in /usr/sbin or PATH: this module runs on macOS only"
    assert calls == []


PORTS = ["/usr/sbin/networksetup", "-listallhardwareports"]


def ok(fixture):
    return (0, read_fixture(fixture), "")


def test_integer_core_count_is_a_result_with_a_note(monkeypatch, capsys):
    argv = ["/usr/sbin/system_profiler", "-json", "SPHardwareDataType"]
    mac = FakeMac([(argv, ok("system_profiler/virtual_mac_integer_processors.json")),
                   (PORTS, ok("networksetup/listallhardwareports_mini.txt"))])
    result, _calls = run_module(monkeypatch, capsys, system_profiler.main, {"data_types": ["SPHardwareDataType"]}, mac)
    assert not result.get("failed")
    assert (result["mac"]["cores_total"], result["mac"]["cores_performance"]) == (8, None)
    assert "number_processors 8 is a bare total" in result["mac"]["cores_note"]


FAKE_COMMAND = """#!%(python)s
import sys
with open(%(log)r, "a") as log:
    log.write(" ".join(sys.argv) + "\\n")
with open(%(fixture)r) as handle:
    sys.stdout.write(handle.read())
"""


def test_ci_s_ad_hoc_call_reads_the_thunderbolt_ports_through_ansible(monkeypatch, tmp_path):
    """What CI and the README run, `ansible ... -m macops.cluster.system_profiler -a
    'data_types=SPThunderboltDataType'`, against localhost, where system_profiler and networksetup on the PATH print
    the captures of a Mac Studio."""
    bin_dir, log = tmp_path / "bin", tmp_path / "commands.log"
    bin_dir.mkdir()
    for command, fixture in (("system_profiler", "system_profiler/studio_thunderbolt_only.json"),
                             ("networksetup", "networksetup/listallhardwareports_studio.txt")):
        script = bin_dir / command
        script.write_text(FAKE_COMMAND % {"python": sys.executable, "log": str(log),
                                          "fixture": os.path.join(FIXTURES, fixture)})
        script.chmod(0o755)
    monkeypatch.setenv("PATH", "%s%s%s" % (bin_dir, os.pathsep, os.environ["PATH"]))
    result = run_ansible([os.path.join(BIN, "ansible"), "localhost", "-i", "localhost,", "-c", "local",
                          "-e", "ansible_python_interpreter=" + sys.executable,
                          "-m", "macops.cluster.system_profiler", "-a", "data_types=SPThunderboltDataType"], tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    read = json.loads(result.stdout)["plays"][0]["tasks"][0]["hosts"]["localhost"]
    assert read["changed"] is False and "failed" not in read
    cabled = [(p["interface"], p["speed_gbps"]) for p in read["mac"]["thunderbolt_ports"] if p["connected"]]
    assert cabled == [("en3", 80), ("en4", 80)]
    assert [line.split(" ", 1)[1] for line in log.read_text().splitlines()] == [
        "-json SPThunderboltDataType", "-listallhardwareports"]
