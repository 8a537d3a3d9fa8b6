"""node_facts' group readers (plugins/module_utils/_node_reads.py): macOS, launchd, the wired limit, programs, the
plan file read once, exo, the network against its applied plan, settings, packages and sudo; through node_facts
against mocked commands."""
import plistlib

import pytest

from ansible_collections.macops.cluster.plugins.modules import node_facts

from fake_node import (BOOT, BOOT_UUID, DF_MODELS, DF_ROOT, EXO_DAEMON, PORTS, PRINT_DISABLED, PROFILE, ROUTE_DEFAULT,
                       SSHD, SW_VERS, WIRED, exo_plist, link_outputs, ok, studio)
from module_harness import FakeMac, run_module


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
    # launchctl print-disabled only with the group launchd_disabled (only an update needs it).
    assert sorted(calls) == sorted([SSHD, EXO_DAEMON, DF_ROOT, DF_MODELS]) and "launchd_disabled" not in result
    assert result["launchd"] == {"com.openssh.sshd": True, "io.exo.networksetup": False}
    assert sorted(result["volumes"]) == ["/", "/Volumes/Models"]
    assert "ansible_facts" not in result


def test_the_labels_launchctl_disable_keeps_from_booting(monkeypatch, capsys):
    args = {"gather": ["launchd", "launchd_disabled"],
            "launchd_labels": ["org.macops.serve", "org.macops.exo", "io.exo.networksetup"]}
    found = studio(dict((("/bin/launchctl", "print", "system/" + label), (113, "", "")) for label in args[
        "launchd_labels"]))
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, args, found)
    # The fixture has org.macops.serve disabled and org.macops.exo enabled again.
    assert result["launchd_disabled"] == ["org.macops.serve"]


def test_launchd_other_failure_fails(monkeypatch, capsys):
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["launchd"]},
                                studio({tuple(SSHD): (5, "", "Input/output error\n")}))
    assert result["failed"] is True and "launchctl print system/com.openssh.sshd" in result["msg"]


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


EXO_PRINT = ["/bin/launchctl", "print", "system/org.macops.exo"]


EXO_RUNNING = (0, "system/org.macops.exo = {\n\tstate = running\n\tpid = 812\n}\n", "")


def test_links_without_a_plan_pings_nothing_and_needs_the_host(monkeypatch, capsys, tmp_path):
    args = {"gather": ["links"], "links": {"plan_file": str(tmp_path / "none.json"), "host": "mac1"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(ROUTE_DEFAULT): (1, "", "")}))
    assert result["links"]["plan_found"] is False and result["links"]["links"] == []
    assert not any(argv[0] == "/sbin/ping" for argv in calls)
    result, _ = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["links"]}, studio())
    assert result["failed"] and "links.host" in result["msg"]


def test_exo_asks_the_exo_its_launchdaemon_describes(monkeypatch, capsys, tmp_path, exo_api):
    args = {"gather": ["boot", "exo"], "exo": {"plist": exo_plist(tmp_path), "expected_nodes": 4, "host": "mac1"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(EXO_PRINT): EXO_RUNNING}))
    assert result.get("failed") is None, result.get("msg")
    exo = result["exo"]
    assert (exo["installed"], exo["label"], exo["api_port"], exo["running"], exo["nodes_seen"], exo["healthy"]) == (
        True, "org.macops.exo", 52999, True, 4, True)
    assert exo["message"] == "" and exo_api["urls"] == ["http://127.0.0.1:52999/state"]
    assert EXO_PRINT in calls


@pytest.mark.parametrize("printed, loaded", [(EXO_RUNNING, True), ((113, "", "Could not find service"), False)])
def test_launchd_and_exo_asking_about_exo_s_job_share_one_launchctl_print(monkeypatch, capsys, tmp_path, exo_api,
                                                                          printed, loaded):
    args = {"gather": ["launchd", "exo"], "launchd_labels": ["com.openssh.sshd", "org.macops.exo"],
            "exo": {"plist": exo_plist(tmp_path), "expected_nodes": 4, "timeout": 0, "host": "mac1"}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio({tuple(EXO_PRINT): printed}))
    assert result.get("failed") is None, result.get("msg")
    assert calls.count(EXO_PRINT) == 1 and SSHD in calls
    assert result["launchd"] == {"com.openssh.sshd": True, "org.macops.exo": loaded}
    assert result["exo"]["running"] is loaded


def test_a_shared_print_that_fails_otherwise_fails_the_read_naming_it(monkeypatch, capsys, tmp_path, exo_api):
    args = {"gather": ["launchd", "exo"], "launchd_labels": ["org.macops.exo"],
            "exo": {"plist": exo_plist(tmp_path), "timeout": 0, "host": "mac1"}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args,
                           studio({tuple(EXO_PRINT): (5, "", "launchctl: Operation not permitted")}))
    assert result["failed"] and "launchctl print system/org.macops.exo" in result["msg"]
    assert "Operation not permitted" in result["msg"]


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
