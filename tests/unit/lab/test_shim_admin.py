"""brew, pmset, softwareupdate, profiles, scutil, fdesetup, defaults, plutil, dscl, diskutil, df, nvram,
csrutil: output formats and persistence."""
import json
import os
import plistlib
import subprocess

from shimlab import NOBODY

from ansible_collections.macops.cluster.plugins.module_utils import _fdesetup


def homebrew_owned_by_nobody(lab):
    prefix = os.path.join(lab.fs, "opt", "homebrew")
    os.makedirs(prefix)
    os.chown(prefix, NOBODY, NOBODY)
    return prefix


def test_brew_refuses_root(lab):
    result = lab.run("brew", "install", "python@3.11")
    assert result.rc == 1 and result.err.startswith("Error: Running Homebrew as root")


def test_brew_links_the_labs_interpreter(lab):
    prefix = homebrew_owned_by_nobody(lab)
    world = lab.lab_json()
    world["pythons"] = {"3.11": "/usr"}
    lab.write_lab_json(world)
    result = lab.run_process("brew", "install", "python@3.11", uid=NOBODY)
    assert result.rc == 0, result
    version = subprocess.run(["/usr/bin/python3.11", "--version"], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout.split()[1]
    assert "/opt/homebrew/Cellar/python@3.11/%s" % version in result.out
    for link in ("bin/python3.11", "opt/python@3.11/bin/python3.11"):
        assert os.path.realpath(os.path.join(prefix, link)) == os.path.realpath("/usr/bin/python3.11")
    again = lab.run_process("brew", "install", "python@3.11", uid=NOBODY)
    assert again.rc == 0 and "already installed" in again.err
    assert lab.run_process("brew", "list", uid=NOBODY).out == "python@3.11\n"
    assert lab.run_process("brew", "list", "--versions", uid=NOBODY).out == "python@3.11 %s\n" % version
    assert lab.run_process("brew", "--prefix", uid=NOBODY).out == "/opt/homebrew\n"
    unknown = lab.run_process("brew", "install", "python@3.99", uid=NOBODY)
    assert unknown.rc == 1 and 'No available formula with the name "python@3.99"' in unknown.err
    assert lab.run_process("brew", "uninstall", "python@3.11", uid=NOBODY).rc == 0
    assert not os.path.lexists(os.path.join(prefix, "bin", "python3.11"))
    assert lab.run_process("brew", "list", uid=NOBODY).out == ""


def test_pmset_reads_and_persists(lab):
    out = lab.run("pmset", "-g").out.splitlines()
    assert out[:2] == ["System-wide power settings:", "Currently in use:"]
    assert " sleep                1" in out
    assert lab.run("pmset", "-a", "sleep", "0", "autorestart", "1").rc == 0
    assert lab.state()["pmset"]["sleep"] == 0 and lab.state()["pmset"]["autorestart"] == 1
    assert " sleep                0" in lab.run("pmset", "-g").out.splitlines()
    assert lab.run_process("pmset", "-a", "sleep", "5", uid=NOBODY).rc == 1
    assert lab.state()["pmset"]["sleep"] == 0


def test_softwareupdate_list(lab):
    none = lab.run("softwareupdate", "--list")
    assert none.out == "Software Update Tool\n\nFinding available software\n"
    assert none.err == "No new software available.\n"
    with lab.edit_state() as state:
        state["pending_updates"] = [{"label": "macOS Tahoe 26.3-25D125", "title": "macOS Tahoe 26.3",
                                     "version": "26.3", "size_kib": 7011352, "action": "restart"}]
    some = lab.run("softwareupdate", "-l").out
    assert "* Label: macOS Tahoe 26.3-25D125\n\tTitle: macOS Tahoe 26.3, Version: 26.3, " in some


def test_profiles_says_the_mdm_enrollment_in_the_form_our_parser_reads(lab):
    from ansible_collections.macops.cluster.plugins.module_utils import _managed_updates
    alone = lab.run("profiles", "status", "-type", "enrollment")
    assert alone.rc == 0 and _managed_updates.parse_enrollment(alone.out)["enrolled"] is False
    with lab.edit_state() as state:
        state["mdm"] = {"enrolled": True, "dep": True, "server": "https://mdm.example.com/mdm"}
    managed = lab.run("profiles", "status", "-type", "enrollment").out
    assert managed == ("Enrolled via DEP: Yes\nMDM enrollment: Yes (User Approved)\n"
                       "MDM server: https://mdm.example.com/mdm\n")
    assert _managed_updates.parse_enrollment(managed) == {"enrolled": True, "dep": True, "user_approved": True,
                                                          "server": "https://mdm.example.com/mdm"}
    assert lab.run("profiles", "list").rc == 1


def test_scutil_names(lab):
    assert lab.run("scutil", "--get", "ComputerName").out == "mac1\n"
    unset = lab.run("scutil", "--get", "HostName")
    assert (unset.rc, unset.out) == (1, "HostName: not set\n")
    assert lab.run("scutil", "--set", "LocalHostName", "studio-1").rc == 0
    assert lab.state()["names"]["LocalHostName"] == "studio-1"
    assert lab.run_process("scutil", "--set", "ComputerName", "x", uid=NOBODY).rc == 1
    assert lab.state()["names"]["ComputerName"] == "mac1"


def test_fdesetup_and_csrutil(lab):
    assert lab.run("fdesetup", "status").out == "FileVault is Off.\n"
    assert lab.run("fdesetup", "isactive").rc == 1
    with lab.edit_state() as state:
        state["filevault"] = True
    assert lab.run("fdesetup", "status").out == "FileVault is On.\n"
    assert lab.run("csrutil", "status").out == "System Integrity Protection status: enabled.\n"


def test_fdesetup_supportsauthrestart_and_its_fault(lab):
    assert lab.run("fdesetup", "supportsauthrestart").out == "false\n"  # FileVault off
    with lab.edit_state() as state:
        state["filevault"] = True
    assert _fdesetup.parse_supports_authrestart(lab.run("fdesetup", "supportsauthrestart").out) is True
    with lab.edit_state() as state:
        state["faults"] = {"authrestart_unsupported": True}
    assert lab.run("fdesetup", "supportsauthrestart").out == "false\n"
    refused = lab.run_process("fdesetup", "authrestart", "-delayminutes", "0", "-inputplist", input="<plist/>")
    assert refused.rc == 1 and "does not support" in refused.err


def test_fdesetup_pending_enablement_reads_as_pending_by_the_collections_parser(lab):
    with lab.edit_state() as state:
        state["filevault"] = "pending"
    status = lab.run("fdesetup", "status")
    assert status.out == "FileVault is Off, but will be enabled after the next restart.\n"
    assert _fdesetup.parse_status(status.out)["state"] == "pending"
    # Not on yet: nothing for isactive to report.
    assert (lab.run("fdesetup", "isactive").rc, lab.run("fdesetup", "isactive").out) == (1, "false\n")


def test_defaults_round_trip_in_a_real_plist(lab):
    domain = "/Library/Preferences/com.example.lab"
    assert lab.run("defaults", "read", domain).rc == 1
    assert lab.run("defaults", "write", domain, "Greeting", "-string", "hello world").rc == 0
    assert lab.run("defaults", "write", domain, "Count", "-int", "3").rc == 0
    assert lab.run("defaults", "write", domain, "On", "-bool", "TRUE").rc == 0
    assert lab.run("defaults", "write", domain, "Hosts", "-array", "mac1", "mac2").rc == 0
    with open(os.path.join(lab.fs, domain.lstrip("/") + ".plist"), "rb") as fh:
        assert plistlib.load(fh) == {"Greeting": "hello world", "Count": 3, "On": True,
                                     "Hosts": ["mac1", "mac2"]}
    assert lab.run("defaults", "read", domain, "Greeting").out == '"hello world"\n'
    assert lab.run("defaults", "read", domain, "On").out == "1\n"
    assert lab.run("defaults", "read-type", domain, "Count").out == "Type is integer\n"
    assert lab.run("defaults", "read-type", domain, "Hosts").out == "Type is array\n"
    assert lab.run("defaults", "read", domain, "Hosts").out == "(\n    mac1,\n    mac2\n)\n"
    assert lab.run("defaults", "read-type", domain, "Missing").rc == 1
    assert lab.run("defaults", "delete", domain, "Count").rc == 0
    assert "Count" not in lab.run("defaults", "read", domain).out


def test_defaults_dict_through_export_and_plutil(lab):
    # community.general.osx_defaults reads dicts with `defaults export` + `plutil -extract json`.
    domain = "/Library/Preferences/com.example.dict"
    assert lab.run("defaults", "write", domain, "Map", "-dict", "a", "-int", "1", "b", "-bool", "false").rc == 0
    assert lab.run("defaults", "export", domain, "/private/tmp/export.plist").rc == 0
    assert os.path.exists(os.path.join(lab.fs, "private/tmp/export.plist"))
    result = lab.run("plutil", "-extract", "Map", "json", "-o", "-", "/private/tmp/export.plist",
                     binary=True)
    assert json.loads(result.out) == {"a": 1, "b": False}


def test_plutil_lint_print_convert_and_edit(lab):
    # Paths on the command line are the host's: the lab roots them at MACLAB_FS_ROOT.
    path = "/Library/LaunchDaemons/x.plist"
    real = os.path.join(lab.fs, path.lstrip("/"))
    os.makedirs(os.path.dirname(real))
    with open(real, "wb") as fh:
        plistlib.dump({"Label": "x", "Args": ["a", "b"]}, fh)
    assert lab.run("plutil", "-lint", path).out == path + ": OK\n"
    assert lab.run("plutil", "-p", path).out == '{\n  "Args" => [\n    0 => "a"\n    1 => "b"\n  ]\n  "Label" => "x"\n}\n'
    assert lab.run("plutil", "-replace", "Label", "-string", "y", path).rc == 0
    assert lab.run("plutil", "-insert", "KeepAlive", "-bool", "YES", path).rc == 0
    assert lab.run("plutil", "-remove", "Args", path).rc == 0
    assert lab.run("plutil", "-convert", "json", "-o", path + ".json", path).rc == 0
    with open(real + ".json") as fh:
        assert json.load(fh) == {"Label": "y", "KeepAlive": True}
    with open(real, "w") as fh:
        fh.write("not a plist")
    assert lab.run("plutil", "-lint", path).rc == 1


def test_dscl_reads_the_hosts_users(lab):
    out = lab.run("dscl", ".", "-read", "/Users/root").out
    assert "RecordName: root\n" in out and "UniqueID: 0\n" in out
    assert lab.run("dscl", ".", "-read", "/Users/root", "UniqueID").out == "UniqueID: 0\n"
    missing = lab.run("dscl", ".", "-read", "/Users/nosuchuser")
    assert missing.rc == 56 and "eDSRecordNotFound" in missing.err
    assert "root" in lab.run("dscl", ".", "-list", "/Users").out.splitlines()


def test_disk_full_fault_shows_in_diskutil_and_df(lab):
    assert "Container Free Space:        1.97 TB" not in lab.run("diskutil", "info", "/").out
    with lab.edit_state() as state:
        state["faults"]["disk_full_bytes"] = 1024 ** 3
    info = lab.run("diskutil", "info", "/").out
    assert "   Container Free Space:        1.1 GB (1073741824 Bytes)" in info
    row = lab.run("df", "-k", "/").out.splitlines()[1].split()
    assert row[3] == str(1024 ** 2) and row[-1] == "/"
    assert int(row[1]) == 2 * 1000 ** 4 // 1024


def test_nvram(lab):
    assert lab.run("nvram", "rdma-enable").out == "rdma-enable\t0\n"
    assert lab.run("nvram", "boot-args=-v").rc == 0
    assert lab.run("nvram", "boot-args").out == "boot-args\t-v\n"
    missing = lab.run("nvram", "nope")
    assert missing.rc == 1 and "data was not found" in missing.err



def test_brew_info_json_tells_community_general_homebrew_what_is_installed(lab):
    """community.general.homebrew decides whether to install from `brew info --json=v2`."""
    homebrew_owned_by_nobody(lab)
    world = lab.lab_json()
    world["pythons"] = {"3.11": "/usr"}
    lab.write_lab_json(world)

    def info():
        result = lab.run_process("brew", "info", "--json=v2", "python@3.11", uid=NOBODY)
        assert result.rc == 0, result
        return json.loads(result.out)["formulae"][0]

    before = info()
    assert (before["name"], before["full_name"], before["installed"]) == ("python@3.11", "python@3.11", [])
    assert lab.run_process("brew", "install", "python@3.11", uid=NOBODY).rc == 0
    after = info()
    assert len(after["installed"]) == 1 and after["linked_keg"] == after["installed"][0]["version"]
    unknown = lab.run_process("brew", "info", "--json=v2", "python@3.99", uid=NOBODY)
    assert unknown.rc == 1 and 'No available formula with the name "python@3.99"' in unknown.err
