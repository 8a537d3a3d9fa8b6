"""sw_vers, uname, sysctl, vm_stat, who -b and the call log, checked against ansible's own
Darwin fact collectors where ansible reads them."""
import json
import struct

from ansible.module_utils.facts.hardware.darwin import DarwinHardware
from ansible.module_utils.facts.sysctl import get_sysctl


def test_sw_vers_full_and_single_fields(lab):
    full = lab.run("sw_vers")
    assert full.rc == 0
    assert full.out == "ProductName:\t\tmacOS\nProductVersion:\t\t26.2\nBuildVersion:\t\t25C56\n"
    assert lab.run("sw_vers", "-productVersion").out == "26.2\n"
    assert lab.run("sw_vers", "-buildVersion").out == "25C56\n"
    assert lab.run("sw_vers", "-productName").out == "macOS\n"
    assert lab.run("sw_vers", "-bogus").rc == 1


def test_sw_vers_follows_the_state(lab):
    with lab.edit_state() as state:
        state["os"].update({"version": "26.5.1", "build": "25F80"})
    assert lab.run("sw_vers", "-buildVersion").out == "25F80\n"
    assert lab.run("sw_vers", "-productVersionExtra").out == ""


def test_a_security_response_shows_as_a_real_mac_shows_it(lab):
    """Issue 48: a Mac carrying the Background Security Improvement 26.3.1 (a): sw_vers adds ProductVersionExtra (one
    tab) and the response's build; system_profiler's System Version has both; our own parsers read them."""
    from macsim.profiles import os_info
    from ansible_collections.macops.cluster.plugins.module_utils import _sw_vers, _system_profiler

    with lab.edit_state() as state:
        state["os"] = os_info("26.3.1 (a)", "25D771280a")
    full = lab.run("sw_vers").out
    assert full == ("ProductName:\t\tmacOS\nProductVersion:\t\t26.3.1\nProductVersionExtra:\t(a)\n"
                    "BuildVersion:\t\t25D771280a\n")
    assert lab.run("sw_vers", "-productVersionExtra").out == "(a)\n"
    parsed = _sw_vers.parse_full(full)
    assert (parsed["product_version"], parsed["product_version_extra"], parsed["build_version"]) == (
        "26.3.1", "(a)", "25D771280a")
    profile = json.loads(lab.run("system_profiler", "-json", "SPSoftwareDataType").out)["SPSoftwareDataType"]
    assert profile[0]["os_version"] == "macOS 26.3.1 (a) (25D771280a)"
    software = _system_profiler.parse_software(profile)
    assert (software["macos_version"], software["macos_version_extra"], software["macos_build"]) == (
        "26.3.1", "(a)", "25D771280a")
    assert "System Version: macOS 26.3.1 (a) (25D771280a)" in lab.run("system_profiler", "SPSoftwareDataType").out


def test_uname_fields(lab):
    assert lab.run("uname").out == "Darwin\n"
    assert lab.run("uname", "-s").out == "Darwin\n"
    assert lab.run("uname", "-r").out == "25.2.0\n"
    assert lab.run("uname", "-m").out == "arm64\n"
    words = lab.run("uname", "-a").out.split()
    assert words[0] == "Darwin" and words[2] == "25.2.0" and words[-1] == "arm64"
    assert "RELEASE_ARM64" in words[-2]
    assert lab.run("uname", "-x").rc == 1


def test_sysctl_gives_ansible_every_hardware_fact(lab, ansible_module):
    facts = DarwinHardware(ansible_module).populate()
    assert facts["model"] == "Mac15,14"
    assert facts["osversion"] == "25C56"
    assert facts["osrevision"] == "199506"
    assert facts["processor"] == "Apple M3 Ultra"
    assert facts["processor_cores"] == "32"
    assert facts["processor_vcpus"] == "32"
    assert facts["memtotal_mb"] == 512 * 1024
    assert 0 < facts["memfree_mb"] < facts["memtotal_mb"]
    boottime = lab.volatile()["boottime"]
    assert abs(facts["uptime_seconds"] - (__import__("time").time() - boottime)) < 5


def test_sysctl_prefix_listing_holds_only_that_prefix(lab, ansible_module):
    values = get_sysctl(ansible_module, ["hw"])
    assert values["hw.memsize"] == str(549755813888)
    assert values["hw.pagesize"] == "16384"
    assert all(key.startswith("hw.") for key in values)
    kern = get_sysctl(ansible_module, ["kern"])
    for key in ("kern.osversion", "kern.osrevision", "kern.osproductversion", "kern.ostype",
                "kern.osrelease", "kern.hostname", "kern.bootsessionuuid", "kern.boottime"):
        assert key in kern
    assert kern["kern.bootsessionuuid"] == lab.volatile()["boot_session_uuid"]


def test_sysctl_n_prints_bare_values_in_argument_order(lab):
    result = lab.run("sysctl", "-n", "hw.model", "hw.memsize", "machdep.cpu.core_count")
    assert result.out == "Mac15,14\n549755813888\n32\n"


def test_sysctl_boottime_text_and_binary_agree(lab):
    boottime = lab.volatile()["boottime"]
    text = lab.run("sysctl", "kern.boottime").out
    assert text.startswith("kern.boottime: { sec = %d, usec = 0 } " % boottime)
    raw = lab.run_process("sysctl", "-b", "kern.boottime", binary=True)
    assert raw.rc == 0 and len(raw.out) == 16
    assert struct.unpack("<qi4x", raw.out) == (boottime, 0)


def test_sysctl_unknown_oid(lab):
    result = lab.run("sysctl", "hw.nonsense")
    assert result.rc == 1
    assert result.err == "sysctl: unknown oid 'hw.nonsense'\n"


def test_wired_limit_is_settable_by_root_and_volatile(lab):
    assert lab.run("sysctl", "iogpu.wired_limit_mb").out == "iogpu.wired_limit_mb: 0\n"
    result = lab.run("sysctl", "-w", "iogpu.wired_limit_mb=519168")
    assert result.rc == 0
    assert result.out == "iogpu.wired_limit_mb: 0 -> 519168\n"
    assert lab.volatile()["sysctl"]["iogpu.wired_limit_mb"] == 519168
    assert "iogpu" not in json.dumps(lab.state())
    assert lab.run("sysctl", "-n", "iogpu.wired_limit_mb").out == "519168\n"
    # The form without -w works too, and reports the previous value.
    assert lab.run("sysctl", "iogpu.wired_limit_mb=60416").out == \
        "iogpu.wired_limit_mb: 519168 -> 60416\n"


def test_wired_limit_needs_root(lab):
    result = lab.run_process("sysctl", "-w", "iogpu.wired_limit_mb=1", uid=65534)
    assert result.rc == 1
    assert "Operation not permitted" in result.err
    assert lab.volatile()["sysctl"]["iogpu.wired_limit_mb"] == 0


def test_read_only_sysctl_cannot_be_written(lab):
    result = lab.run("sysctl", "-w", "hw.memsize=1")
    assert result.rc == 1 and "read only" in result.err


def test_vm_stat_uses_16k_pages_and_sums_to_memory(lab):
    lines = lab.run("vm_stat").out.splitlines()
    assert lines[0] == "Mach Virtual Memory Statistics: (page size of 16384 bytes)"
    pages = {k: int(v.strip().rstrip(".")) for k, v in (l.split(":", 1) for l in lines[1:])}
    total = sum(pages[k] for k in ("Pages free", "Pages active", "Pages inactive",
                                   "Pages speculative", "Pages wired down"))
    assert total * 16384 == 549755813888


def test_memory_other_programs_hold_is_active_not_available(lab):
    """maclab fault memory-used: what the collection's parser (_vm_stat.py) says a new program can have drops by that
    much, and the pages still add up to the Mac's memory."""
    from ansible_collections.macops.cluster.plugins.module_utils._vm_stat import parse
    before = parse(lab.run("vm_stat").out)
    with lab.edit_state() as state:
        state["memory_used_bytes"] = 100 * 10 ** 9
    after = parse(lab.run("vm_stat").out)
    assert before["available_bytes"] - after["available_bytes"] == (100 * 10 ** 9 // 16384) * 16384
    assert sum(after["pages"][k] for k in ("Pages free", "Pages active", "Pages inactive", "Pages speculative",
                                           "Pages wired down")) * 16384 == 549755813888
    with lab.edit_state() as state:
        state["memory_used_bytes"] = 10 ** 15  # more than the Mac has: nothing left, never below zero
    assert parse(lab.run("vm_stat").out)["available_bytes"] == 0


def test_who_b_changes_with_the_boottime(lab):
    first = lab.run("who", "-b").out
    assert first.startswith("         system boot  ") and first.endswith(" \n")
    with lab.edit_state(name="volatile.json") as volatile:
        volatile["boottime"] += 60
    assert lab.run("who", "-b").out != first


def test_every_call_is_logged(lab):
    lab.run("sw_vers", "-productVersion")
    lab.run("sysctl", "hw.nonsense")
    lab.run_process("uname", "-r", uid=65534)
    with open(lab.host_dir() + "/log/shim.log") as fh:
        entries = [json.loads(line) for line in fh]
    assert [e["argv"] for e in entries] == [["/usr/bin/sw_vers", "-productVersion"],
                                            ["/usr/bin/sysctl", "hw.nonsense"],
                                            [lab.root + "/bin/uname", "-r"]]
    assert [e["rc"] for e in entries] == [0, 1, 0]
    assert [e["uid"] for e in entries] == [0, 0, 65534]
    assert all(isinstance(e["t"], float) for e in entries)


def test_unknown_command_name(lab):
    assert lab.run("frobnicate").rc == 127
