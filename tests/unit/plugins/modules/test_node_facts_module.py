"""macops.cluster.node_facts: one run per node, each command at most once, against mocked commands."""
import plistlib

import pytest
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import node_facts

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


@pytest.mark.parametrize("check_mode", [False, True])
def test_defaults_read_each_command_once(monkeypatch, capsys, check_mode):
    result, calls = run_module(monkeypatch, capsys, node_facts.main,
                               {"set_facts": True, "_ansible_check_mode": check_mode}, studio())
    assert result.get("failed") is None, result.get("msg")
    # system_profiler has the macOS version and build (SPSoftwareDataType): no sw_vers.
    assert sorted(calls) == sorted([PROFILE, PORTS, DF_ROOT, FDESETUP, AUTHRESTART, SSHD, PRINT_DISABLED])
    assert result["changed"] is False
    assert result["macos"] == {"version": "26.2", "extra": None, "build": "25C56"}
    assert result["mac"]["chip"] == "Apple M3 Ultra"
    assert result["volumes"]["/"]["free_gb"] > 0
    assert result["filevault"]["state"] == "off" and result["filevault"]["on"] is False
    assert result["filevault"]["supports_authrestart"] is False and result["launchd_disabled"] == []
    assert result["launchd"] == {"com.openssh.sshd": True}
    facts = result["ansible_facts"]
    assert facts["macops_mac"] == result["mac"]
    assert facts["macops_node"]["launchd"] == result["launchd"] and "mac" not in facts["macops_node"]
    assert set(facts) >= {"user_id", "user_dir"}


def test_sw_vers_fills_a_profile_without_software_keys_once(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["mac", "macos"]},
                               studio({tuple(PROFILE): ok("system_profiler/studio_thunderbolt_only.json")}))
    assert (result["mac"]["macos_version"], result["mac"]["macos_build"]) == ("26.2", "25C56")
    assert result["macos"] == {"version": "26.2", "extra": None, "build": "25C56"}
    assert calls.count(SW_VERS) == 1 and calls[-1] == SW_VERS


def test_macos_alone_runs_sw_vers(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["macos"]},
                               studio({tuple(SW_VERS): ok("sw_vers/tahoe_26_1.txt")}))
    assert calls == [SW_VERS]
    assert result["macos"]["version"] == "26.1"


def test_launchd_labels_and_volumes(monkeypatch, capsys):
    args = {"gather": ["launchd", "disk"], "launchd_labels": ["com.openssh.sshd", "io.exo.networksetup"],
            "volumes": ["/", "/Volumes/Models"]}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert sorted(calls) == sorted([SSHD, EXO_DAEMON, PRINT_DISABLED, DF_ROOT, DF_MODELS])
    assert result["launchd"] == {"com.openssh.sshd": True, "io.exo.networksetup": False}
    assert sorted(result["volumes"]) == ["/", "/Volumes/Models"]
    assert "ansible_facts" not in result


def test_the_labels_launchctl_disable_keeps_from_booting(monkeypatch, capsys):
    args = {"gather": ["launchd"], "launchd_labels": ["org.macops.serve", "org.macops.exo", "io.exo.networksetup"]}
    found = studio(dict((("/bin/launchctl", "print", "system/" + label), (113, "", "")) for label in args[
        "launchd_labels"]))
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, args, found)
    # The fixture has org.macops.serve disabled and org.macops.exo enabled again.
    assert result["launchd_disabled"] == ["org.macops.serve"]


def test_launchd_other_failure_fails(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["launchd"]},
                                studio({tuple(SSHD): (5, "", "Input/output error\n")}))
    assert result["failed"] is True and "launchctl print system/com.openssh.sshd" in result["msg"]


def test_rdma_with_an_earlier_mac_fact_runs_no_system_profiler(monkeypatch, capsys):
    first, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["mac", "macos"]}, studio())
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["rdma"], "mac": first["mac"]},
                               studio())
    assert result.get("failed") is None, result.get("msg")
    assert sorted(calls) == sorted([RDMA_CTL, IBV_DEVICES, IBV_DEVINFO])
    rdma = result["rdma"]
    assert (rdma["enabled"], rdma["ready"], rdma["macos_version"], rdma["macos_build"]) == (True, True, "26.2", "25C56")
    assert [port["interface"] for port in rdma["ports"] if port["cabled"]] == ["en3", "en4"]


def test_rdma_disabled_is_a_problem_not_a_failure(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["mac", "macos", "rdma"]},
                               studio({tuple(RDMA_CTL): ok("rdma_ctl/disabled.txt"),
                                         tuple(IBV_DEVICES): ok("ibv_devices/rdma_disabled.txt")}))
    assert [call[0] for call in calls].count("/usr/sbin/system_profiler") == 1
    # ibv_devinfo ran with the others, once; without devices its answer is not judged
    assert calls.count(IBV_DEVINFO) == 1
    assert [problem["code"] for problem in result["rdma"]["problems"]] == ["rdma_disabled"]


def test_rdma_without_ports_fails_with_a_reason(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["rdma"]}, studio())
    assert result["failed"] is True and "gather mac too" in result["msg"]


def test_boot_session_and_wired_limit_with_its_boot_target(monkeypatch, capsys, tmp_path):
    plist = tmp_path / "org.macops.gpu-memory.plist"
    plist.write_bytes(plistlib.dumps({"Label": "org.macops.gpu-memory", "RunAtLoad": True,
                                      "ProgramArguments": ["/usr/sbin/sysctl", "-w", "iogpu.wired_limit_mb=229376"]}))
    args = {"gather": ["boot", "wired_limit"], "wired_limit_plist": str(plist)}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert sorted(calls) == sorted([BOOT, WIRED])
    assert result["boot_session"] == BOOT_UUID
    assert result["wired_limit"] == {"live_mb": 229376, "target_mb": 229376, "plist": str(plist)}


def test_wired_limit_without_sysctl_or_daemon_is_null(monkeypatch, capsys, tmp_path):
    args = {"gather": ["wired_limit"], "wired_limit_plist": str(tmp_path / "absent.plist")}
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, args,
                                studio({tuple(WIRED): (1, "", "sysctl: unknown oid 'iogpu.wired_limit_mb'\n")}))
    assert (result["wired_limit"]["live_mb"], result["wired_limit"]["target_mb"]) == (None, None)


def test_wired_limit_daemon_that_is_no_plist_fails(monkeypatch, capsys, tmp_path):
    plist = tmp_path / "broken.plist"
    plist.write_text("iogpu.wired_limit_mb=1")
    result, _calls = run_module(monkeypatch, capsys, node_facts.main,
                                {"gather": ["wired_limit"], "wired_limit_plist": str(plist)}, studio())
    assert result["failed"] is True and "not a property list" in result["msg"]


def test_updates(monkeypatch, capsys):
    listing = ("Software Update Tool\n\nFinding available software\n"
               "Software Update found the following new or updated software:\n"
               "* Label: macOS Tahoe 26.2.1-25C101\n"
               "\tTitle: macOS Tahoe 26.2.1, Version: 26.2.1, Size: 1500000KiB, Recommended: YES, Action: restart, \n")
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["updates"]},
                                studio({tuple(UPDATES): (0, listing, "")}))
    assert result["updates"] == [{"label": "macOS Tahoe 26.2.1-25C101", "title": "macOS Tahoe 26.2.1",
                                  "version": "26.2.1", "version_extra": None, "build": "25C101",
                                  "size_bytes": 1500000 * 1024,
                                  "recommended": True, "restart": True}]
    none, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["updates"]}, studio())
    assert none["updates"] == []


def test_installers_lists_apple_s_full_installers_and_who_is_at_the_screen(monkeypatch, capsys):
    """Issue 48: read when a version is asked; a listing that fails (no network to Apple) is said, not fatal."""
    listed = ok("softwareupdate/list_full_installers_tahoe_26_7.txt")
    listing, console = ("/usr/sbin/softwareupdate", "--list-full-installers"), ("/usr/bin/stat", "-f", "%Su",
                                                                                "/dev/console")
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["installers"]},
                                studio({listing: listed, console: (0, "admin\n", "")}))
    assert result["installers"] == {"offered": [{"title": "macOS Tahoe", "version": "26.7", "build": "25G229",
                                                 "size_bytes": 17951133 * 1024, "deferred": False, "beta": False}],
                                    "error": None, "console_user": "admin"}
    failed, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["installers"]},
                                studio({listing: (1, "", "Can't connect to the server\n"), console: (0, "root\n", "")}))
    assert failed.get("failed") is None and failed["installers"]["offered"] == [] and failed["installers"][
        "console_user"] is None and "Can't connect" in failed["installers"]["error"]


def test_a_failing_required_read_fails(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {},
                                studio({tuple(FDESETUP): (1, "", "fdesetup: not permitted\n")}))
    assert result["failed"] is True and "fdesetup status" in result["msg"]


def test_models_lists_each_deployed_model_checked_by_name_and_size(monkeypatch, capsys, tmp_path):
    """A model directory with its record, one with a file gone and one of the wrong size, one without a record
    (not ours: not listed) and a record that is not JSON."""
    import json
    models = tmp_path / "models"
    for name in ("good", "broken", "foreign", "garbled"):
        (models / name).mkdir(parents=True)
    for name in ("good", "broken"):
        (models / name / "a.safetensors").write_bytes(b"x" * 10)
        (models / name / "b.safetensors").write_bytes(b"y" * 20)
    (models / "broken" / "b.safetensors").write_bytes(b"y" * 19)
    record = {"name": "good", "runtime": "mlx-lm", "rank": 1, "ranks": 2, "layers": [12, 24],
              "files": [{"file": "a.safetensors", "size": 10, "sha256": "0" * 64},
                        {"file": "b.safetensors", "size": 20, "sha256": "1" * 64}]}
    (models / "good" / ".macops-model.json").write_text(json.dumps(record))
    broken = dict(record, name="broken", files=record["files"] + [{"file": "c.safetensors", "size": 5, "sha256": "2" * 64}])
    (models / "broken" / ".macops-model.json").write_text(json.dumps(broken))
    (models / "garbled" / ".macops-model.json").write_text("{not json")
    args = {"gather": ["models"], "models_dirs": [str(models), str(tmp_path / "absent")]}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert calls == []  # files only, no command
    by_name = dict((entry.get("name", "garbled"), entry) for entry in result["models"])
    assert sorted(by_name) == ["broken", "garbled", "good"]
    assert by_name["good"]["complete"] is True and by_name["good"]["files"] == 2 and by_name["good"]["bytes"] == 30
    assert by_name["good"]["layers"] == [12, 24] and by_name["good"]["path"] == str(models / "good")
    assert by_name["broken"]["complete"] is False
    assert (by_name["broken"]["missing"], by_name["broken"]["wrong_size"]) == (["c.safetensors"], ["b.safetensors"])
    assert by_name["garbled"]["complete"] is False and ".macops-model.json" in by_name["garbled"]["error"]


def test_programs_says_which_are_executable_files_runs_nothing_and_expands_the_home(monkeypatch, capsys, tmp_path):
    home = tmp_path / "home"
    (home / ".cargo" / "bin").mkdir(parents=True)
    (home / ".cargo" / "bin" / "cargo").write_text("#!/bin/sh\n")
    (home / ".cargo" / "bin" / "cargo").chmod(0o755)
    (tmp_path / "brew").write_text("not executable")
    monkeypatch.setenv("HOME", str(home))
    args = {"gather": ["programs"], "programs": ["~/.cargo/bin/cargo", str(tmp_path / "brew"), str(tmp_path),
                                                 str(tmp_path / "node")]}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert calls == []
    assert result["programs"] == {"~/.cargo/bin/cargo": True, str(tmp_path / "brew"): False, str(tmp_path): False,
                                  str(tmp_path / "node"): False}


ROUTE_PEER = ["/sbin/route", "-n", "get", "198.19.0.2"]
ROUTE_DEFAULT = ["/sbin/route", "-n", "get", "default"]
PING_PEER = ["/sbin/ping", "-c", "2", "-i", "0.2", "-t", "3", "198.19.0.2"]
EXO_PRINT = ["/bin/launchctl", "print", "system/org.macops.exo"]
EXO_RUNNING = (0, "system/org.macops.exo = {\n\tstate = running\n\tpid = 812\n}\n", "")


def plan_file(tmp_path):
    import json

    path = tmp_path / "thunderbolt-plan.json"
    path.write_text(json.dumps({"hosts": {"mac1": {"en3": {"peer_ip": "198.19.0.2", "peer_host": "mac2"}},
                                          "mac2": {"en3": {"peer_ip": "198.19.0.1", "peer_host": "mac1"}}}}))
    return str(path)


def link_outputs(ping=ok("ping/macos_two_replies.txt")):
    return {tuple(ROUTE_PEER): ok("route/peer_on_en3.txt"), tuple(PING_PEER): ping,
            tuple(ROUTE_DEFAULT): ok("route/default_en0.txt")}


def test_links_pings_every_cable_of_the_plan_beside_the_other_reads(monkeypatch, capsys, tmp_path):
    args = {"gather": ["boot", "links"], "links": {"plan_file": plan_file(tmp_path), "host": "mac1", "interval": 0.2}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio(link_outputs()))
    assert result.get("failed") is None, result.get("msg")
    links = result["links"]
    assert links["plan_found"] is True and links["planned_links"] == 1 and links["problems"] == []
    assert [(link["interface"], link["peer_host"], link["received"], link["ok"]) for link in links["links"]] == [
        ("en3", "mac2", 2, True)]
    # The default route is on en0, so the hardware ports are read to judge it: once, after the probe.
    assert sorted(map(tuple, calls)) == sorted(map(tuple, [BOOT, ROUTE_PEER, PING_PEER, ROUTE_DEFAULT, PORTS]))


def test_a_silent_cable_is_a_problem_not_a_failure(monkeypatch, capsys, tmp_path):
    args = {"gather": ["links"], "links": {"plan_file": plan_file(tmp_path), "host": "mac1", "interval": 0.2}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args,
                           studio(link_outputs(ping=(2, read_fixture("ping/macos_no_reply.txt"), ""))))
    assert result.get("failed") is None, result.get("msg")
    assert [(p["code"], p["port"]) for p in result["links"]["problems"]] == [("tb_link_no_reply", "en3")]


def test_links_without_a_plan_pings_nothing_and_needs_the_host(monkeypatch, capsys, tmp_path):
    args = {"gather": ["links"], "links": {"plan_file": str(tmp_path / "none.json"), "host": "mac1"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(ROUTE_DEFAULT): (1, "", "")}))
    assert result["links"]["plan_found"] is False and result["links"]["links"] == []
    assert not any(argv[0] == "/sbin/ping" for argv in calls)
    result, _ = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["links"]}, studio())
    assert result["failed"] and "links.host" in result["msg"]


def exo_plist(tmp_path, port="52999"):
    path = tmp_path / "org.macops.exo.plist"
    path.write_bytes(plistlib.dumps({"Label": "org.macops.exo", "ProgramArguments": [
        "/opt/macops/exo-venv/bin/exo", "--api-port", port], "StandardErrorPath": "/Library/Logs/macops/exo.log"}))
    return str(path)


@pytest.fixture
def exo_api(monkeypatch):
    """/state's answers, one per question (the last repeats), and the URLs asked."""
    from ansible_collections.macops.cluster.plugins.module_utils import _exo_probe

    state = {"answers": [(True, 4)], "urls": []}

    def ask(url, timeout=5):
        state["urls"].append(url)
        return state["answers"].pop(0) if len(state["answers"]) > 1 else state["answers"][0]

    monkeypatch.setattr(_exo_probe, "ask_state", ask)
    monkeypatch.setattr(_exo_probe, "DELAY_SECONDS", 0)
    return state


def test_exo_asks_the_exo_its_launchdaemon_describes(monkeypatch, capsys, tmp_path, exo_api):
    args = {"gather": ["boot", "exo"], "exo": {"plist": exo_plist(tmp_path), "expected_nodes": 4, "host": "mac1"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(EXO_PRINT): EXO_RUNNING}))
    assert result.get("failed") is None, result.get("msg")
    exo = result["exo"]
    assert (exo["installed"], exo["label"], exo["api_port"], exo["running"], exo["nodes_seen"], exo["healthy"]) == (
        True, "org.macops.exo", 52999, True, 4, True)
    assert exo["message"] == "" and exo_api["urls"] == ["http://127.0.0.1:52999/state"]
    assert EXO_PRINT in calls


def test_exo_missing_nodes_is_unhealthy_with_the_readings_and_what_to_check(monkeypatch, capsys, tmp_path, exo_api):
    exo_api["answers"] = [(True, 2)]
    args = {"gather": ["exo"], "exo": {"plist": exo_plist(tmp_path), "expected_nodes": 4, "timeout": 0, "host": "mac3"}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(EXO_PRINT): EXO_RUNNING}))
    exo = result["exo"]
    assert result.get("failed") is None and exo["healthy"] is False and exo["nodes_seen"] == 2
    assert "exo on mac3" in exo["message"] and "nodes in /state 2 of 4" in exo["message"]
    assert "/Library/Logs/macops/exo.log" in exo["message"]


def test_exo_not_installed_asks_nobody(monkeypatch, capsys, tmp_path, exo_api):
    args = {"gather": ["exo"], "exo": {"plist": str(tmp_path / "none.plist"), "host": "mac2"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert result["exo"]["installed"] is False and result["exo"]["healthy"] is False
    assert "not installed" in result["exo"]["message"] and calls == [] and exo_api["urls"] == []


def test_a_read_that_breaks_in_its_thread_fails_the_module_naming_it(monkeypatch, capsys, tmp_path, exo_api):
    args = {"gather": ["exo"], "exo": {"plist": exo_plist(tmp_path)}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args, studio())  # launchctl print not canned
    assert result["failed"] and result["msg"].startswith("exo: the read failed: unexpected command")


SERVICE_ORDER = ["/usr/sbin/networksetup", "-listnetworkserviceorder"]
GETINFO_TB2 = ["/usr/sbin/networksetup", "-getinfo", "Thunderbolt 2"]
IFCONFIG_BRIDGE = ["/sbin/ifconfig", "bridge0"]


def applied_plan_file(tmp_path, applied=None):
    import json

    path = tmp_path / "thunderbolt-plan.json"
    path.write_text(json.dumps({"hosts": {"mac1": {"en3": {"ip": "198.19.0.1", "netmask": "255.255.255.252",
                                                           "peer_ip": "198.19.0.2", "peer_host": "mac2"}}},
                                "applied": applied or {"mtu": None, "bridge": "absent", "order": True}}))
    return str(path)


def network_outputs(getinfo="networksetup/getinfo_manual.txt"):
    return {tuple(SERVICE_ORDER): ok("networksetup/listnetworkserviceorder.txt"), tuple(GETINFO_TB2): ok(getinfo),
            tuple(IFCONFIG_BRIDGE): (1, "", "ifconfig: interface bridge0 does not exist\n")}


@pytest.mark.parametrize("check_mode", [False, True])
def test_network_compares_the_node_with_its_applied_plan_and_changes_nothing(monkeypatch, capsys, tmp_path,
                                                                            check_mode):
    args = {"gather": ["mac", "network"], "network": {"plan_file": applied_plan_file(tmp_path), "host": "mac1"}}
    if check_mode:
        args["_ansible_check_mode"] = True
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio(network_outputs()))
    assert result.get("failed") is None, result.get("msg")
    network = result["network"]
    # The fixture's Mac still defines bridge0 and lists a Thunderbolt service above the VPN: both are
    # differences; en3 has its planned address, so it is none.
    assert network["plan_found"] and set(d["kind"] for d in network["differences"]) == {"bridge", "order"}
    assert [(p["code"], p["host"], p["port"]) for p in network["problems"]] == [
        ("tb_bridge_on", "mac1", "bridge0"), ("tb_service_order", "mac1", None)]
    # Reads only, each once; the hardware ports are the mac group's.
    assert sorted(map(tuple, calls)) == sorted(map(tuple, [PROFILE, PORTS, SERVICE_ORDER, IFCONFIG_BRIDGE,
                                                           GETINFO_TB2]))
    assert result["changed"] is False


def test_network_names_a_lost_address_and_without_a_plan_compares_nothing(monkeypatch, capsys, tmp_path):
    args = {"gather": ["network", "launchd"], "launchd_labels": ["io.exo.networksetup"],
            "network": {"plan_file": applied_plan_file(tmp_path), "host": "mac1"}}
    loaded = {tuple(EXO_DAEMON): (0, "system/io.exo.networksetup = {\n}\n", "")}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args,
                           studio(dict(list(network_outputs("networksetup/getinfo_dhcp_no_lease.txt").items())
                                       + list(loaded.items()))))
    lost = [p for p in result["network"]["problems"] if p["code"] == "tb_address_differs"]
    assert [(p["port"], "io.exo.networksetup" in p["fix"]) for p in lost] == [("en3", True)]
    args["network"]["plan_file"] = str(tmp_path / "none.json")
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert result["network"] == {"plan_found": False, "differences": [], "problems": []}
    assert not any("networksetup" in argv[0] for argv in calls)
    result, _ = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["network"]}, studio())
    assert result["failed"] and "network.host" in result["msg"]


PMSET = ["/usr/bin/pmset", "-g"]


def test_settings_reads_pmset_and_the_automatic_update_plist(monkeypatch, capsys, tmp_path):
    prefs = tmp_path / "com.apple.SoftwareUpdate.plist"
    prefs.write_bytes(plistlib.dumps({"AutomaticallyInstallMacOSUpdates": True, "AutomaticDownload": 0},
                                     fmt=plistlib.FMT_BINARY))
    pmset = (0, "System-wide power settings:\nCurrently in use:\n sleep                1 (sleep prevented by sharingd)\n"
                " autorestart          0\n womp                 1\n", "")
    args = {"gather": ["settings"], "software_update_plist": str(prefs)}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(PMSET): pmset}))
    assert result.get("failed") is None, result.get("msg")
    assert result["settings"]["power"] == {"sleep": "1", "autorestart": "0", "womp": "1"}
    auto = result["settings"]["auto_updates"]
    assert (auto["AutomaticallyInstallMacOSUpdates"], auto["AutomaticDownload"], auto["CriticalUpdateInstall"]) == (
        True, False, None)
    assert calls == [PMSET]
    # No file: macOS's defaults, which nobody wrote down: every key null.
    args["software_update_plist"] = str(tmp_path / "none.plist")
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(PMSET): pmset}))
    assert set(result["settings"]["auto_updates"].values()) == {None}
    prefs.write_text("<plist")
    args["software_update_plist"] = str(prefs)
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(PMSET): pmset}))
    assert result["failed"] and "not a property list" in result["msg"]


def test_packages_asks_the_environments_python_once_and_a_missing_one_is_a_reading(monkeypatch, capsys, tmp_path):
    python = tmp_path / "python"
    python.write_text("")
    argv_prefix = [str(python), "-c"]

    class Answering(FakeMac):
        def run_command(self, args, **kwargs):
            if list(args[:2]) == argv_prefix:
                self.calls.append(list(args))
                assert args[3:] == ["mlx", "mlx-lm"]
                return 0, '{"python": "3.12.8", "versions": {"mlx": "0.32.4", "mlx-lm": null}}\n', ""
            return FakeMac.run_command(self, args, **kwargs)

    args = {"gather": ["packages"], "packages": {"python": str(python), "names": ["mlx", "mlx-lm"]}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, Answering([]))
    assert result.get("failed") is None, result.get("msg")
    assert result["packages"] == {"python_path": str(python), "found": True, "python": "3.12.8",
                                  "versions": {"mlx": "0.32.4", "mlx-lm": None}, "error": None}
    assert len(calls) == 1
    args["packages"]["python"] = str(tmp_path / "none")
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, Answering([]))
    assert result["packages"]["found"] is False and "is not there" in result["packages"]["error"] and calls == []


def test_exo_version_comes_from_the_python_beside_the_program_its_launchdaemon_runs(monkeypatch, capsys, tmp_path,
                                                                                   exo_api):
    from ansible_collections.macops.cluster.plugins.module_utils._exo_probe import VERSION_CODE

    venv_bin = tmp_path / "exo-venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").write_text("")
    plist = tmp_path / "org.macops.exo.plist"
    plist.write_bytes(plistlib.dumps({"Label": "org.macops.exo", "ProgramArguments": [str(venv_bin / "exo")]}))
    version = [str(venv_bin / "python"), "-c", VERSION_CODE]
    args = {"gather": ["exo"], "exo": {"plist": str(plist), "expected_nodes": 4, "host": "mac1"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args,
                               studio({tuple(EXO_PRINT): EXO_RUNNING, tuple(version): (0, "1.0.71\n", "")}))
    assert result["exo"]["version"] == "1.0.71" and version in calls


SUDO_LIST = ["/usr/bin/sudo", "-n", "-l"]


def test_sudo_lists_the_rules_without_a_password_and_a_failing_listing_is_a_problem(monkeypatch, capsys):
    refused = (1, "", "sudo: a password is required\n")
    result, calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["sudo"]},
                               studio({tuple(SUDO_LIST): refused}))
    assert result.get("failed") is None, result.get("msg")
    assert result["sudo"]["rc"] == 1 and [p["code"] for p in result["sudo"]["problems"]] == ["sudo_rules_inactive"]
    assert calls == [SUDO_LIST] and result["changed"] is False


def test_ssh_checks_every_peer_by_name_and_over_its_cable_beside_the_other_reads(monkeypatch, capsys, tmp_path):
    from ansible_collections.macops.cluster.plugins.module_utils import _ssh_check

    asked = []

    def fake(argv, timeout):
        asked.append(argv[-2])
        return (255, "Permission denied (publickey).\n") if argv[-2] == "198.19.0.2" else (0, "")

    monkeypatch.setattr(_ssh_check, "run_ssh", fake)
    ssh = tmp_path / "ssh"
    args = {"gather": ["boot", "ssh"], "ssh": {"peers": ["mac1", "mac2"], "host": "mac1", "plan_file": plan_file(tmp_path),
                                              "ssh": str(ssh)}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert result.get("failed") is None, result.get("msg")
    assert sorted(asked) == ["198.19.0.2", "mac2"] and calls == [BOOT]
    assert [(p["code"], p["peer"], p["port"]) for p in result["ssh"]["problems"]] == [("ssh_peer_unreachable", "mac2", "en3")]
    result, _ = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["ssh"]}, studio())
    assert result["failed"] and "ssh.host" in result["msg"]


def test_the_applied_plan_is_read_once_for_every_group_that_needs_it(monkeypatch, capsys, tmp_path):
    """doctor.yml's sweep: files, links, network and ssh all read the applied plan; one run opens it once."""
    import builtins

    from ansible_collections.macops.cluster.plugins.module_utils import _ssh_check

    path = applied_plan_file(tmp_path)
    real_open, opened = builtins.open, []

    def counting_open(file, *args, **kwargs):
        if file == path:
            opened.append(args[0] if args else kwargs.get("mode", "r"))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(_ssh_check, "run_ssh", lambda argv, timeout: (0, ""))
    args = {"gather": ["files", "links", "network", "ssh"], "files": [path],
            "links": {"plan_file": path, "host": "mac1", "interval": 0.2},
            "network": {"plan_file": path, "host": "mac1"},
            "ssh": {"peers": ["mac1", "mac2"], "host": "mac1", "plan_file": path, "ssh": str(tmp_path / "ssh")}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args,
                           studio(dict(list(link_outputs().items()) + list(network_outputs().items()))))
    assert result.get("failed") is None, result.get("msg")
    assert opened == ["rb"]
    # Every group still has what the plan says: its content, its cable, its address, the mesh over the cable.
    assert result["files"][path]["json"]["hosts"]["mac1"]["en3"]["peer_host"] == "mac2"
    assert result["links"]["plan_found"] and [link["peer_host"] for link in result["links"]["links"]] == ["mac2"]
    assert result["network"]["plan_found"] is True
    assert sorted(r["address"] for r in result["ssh"]["results"]) == ["198.19.0.2", "mac2"]


def test_a_plan_that_cannot_be_read_fails_with_its_path(monkeypatch, capsys, tmp_path):
    directory = tmp_path / "thunderbolt-plan.json"
    directory.mkdir()
    args = {"gather": ["links"], "links": {"plan_file": str(directory), "host": "mac1"}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert result["failed"] and result["msg"].startswith("Cannot read the Thunderbolt plan %s" % directory)
