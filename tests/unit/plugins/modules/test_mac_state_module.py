"""macops.cluster.mac_state against a mocked df, fdesetup and launchctl: one run reads the boot
volume, FileVault and Remote Login; df and fdesetup failures fail it with the command named."""
import pytest
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import mac_state

SW_VERS = ["/usr/bin/sw_vers"]
DF = ["/bin/df", "-k", "/"]
FDESETUP = ["/usr/bin/fdesetup", "status"]
LAUNCHCTL = ["/bin/launchctl", "print", "system/com.openssh.sshd"]
SSHD_LOADED = (0, "system/com.openssh.sshd = {\n\tactive count = 0\n\tpath = /System/Library/LaunchDaemons/ssh.plist\n"
                  "\tstate = waiting\n\tprogram = /usr/libexec/sshd-keygen-wrapper\n}\n", "")
SSHD_MISSING = (113, "", 'Could not find service "com.openssh.sshd" in domain for system\n')


def mac(df=None, fdesetup=None, launchctl=SSHD_LOADED, df_argv=DF):
    return FakeMac([
        (SW_VERS, (0, read_fixture("sw_vers/tahoe_26_2.txt"), "")),
        (df_argv, df or (0, read_fixture("df/studio_root.txt"), "")),
        (FDESETUP, fdesetup or (0, read_fixture("fdesetup/off.txt"), "")),
        (LAUNCHCTL, launchctl),
    ])


def test_reads_disk_filevault_and_remote_login_in_one_run(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, mac_state.main, {}, mac())
    assert calls == [SW_VERS, DF, FDESETUP, LAUNCHCTL]
    assert not result.get("failed") and result["changed"] is False
    assert result["macos"] == {"version": "26.2", "build": "25C56"}
    import os
    import pwd
    assert result["ansible_facts"] == {"user_id": pwd.getpwuid(os.getuid()).pw_name,
                                       "user_dir": pwd.getpwuid(os.getuid()).pw_dir}
    assert result["boot_volume"] == {"path": "/", "size_kib": 971350180, "free_kib": 650553916, "free_gb": 620.4}
    assert result["filevault"] == {"on": False, "state": "off", "status": "FileVault is Off."}
    assert result["remote_login"] is True
    assert result["remote_login_detail"] == "launchd job com.openssh.sshd loaded"


@pytest.mark.parametrize("fixture, state", [("fdesetup/on.txt", "on"), ("fdesetup/enabled_after_restart.txt", "pending"),
                                            ("fdesetup/encrypting.txt", "on"), ("fdesetup/deferred_login.txt", "pending"),
                                            ("fdesetup/deferred_macos13.txt", "pending")])
def test_filevault_on_or_about_to_be(monkeypatch, capsys, fixture, state):
    result, _ = run_module(monkeypatch, capsys, mac_state.main, {},
                           mac(fdesetup=(0, read_fixture(fixture), "")))
    assert result["filevault"] == {"on": True, "state": state, "status": read_fixture(fixture).strip()}


def test_remote_login_off_is_reported_not_failed(monkeypatch, capsys):
    result, _ = run_module(monkeypatch, capsys, mac_state.main, {}, mac(launchctl=SSHD_MISSING))
    assert not result.get("failed")
    assert result["remote_login"] is False
    assert result["remote_login_detail"] == "launchd job com.openssh.sshd not loaded"


def test_path_chooses_the_volume_and_check_mode_reads_the_same(monkeypatch, capsys):
    argv = ["/bin/df", "-k", "/Volumes/Macintosh HD"]
    result, calls = run_module(monkeypatch, capsys, mac_state.main,
                               {"path": "/Volumes/Macintosh HD", "_ansible_check_mode": True},
                               mac(df=(0, read_fixture("df/full_volume_with_space.txt"), ""), df_argv=argv))
    assert calls[1] == argv and not result.get("failed") and result["changed"] is False
    assert result["boot_volume"] == {"path": "/Volumes/Macintosh HD", "size_kib": 976797816, "free_kib": 0,
                                     "free_gb": 0.0}


def test_failing_df_fails_with_its_error(monkeypatch, capsys):
    argv = ["/bin/df", "-k", "/Volumes/Models"]
    result, calls = run_module(monkeypatch, capsys, mac_state.main, {"path": "/Volumes/Models"},
                               mac(df=(1, "", read_fixture("df/no_such_file.txt")), df_argv=argv))
    assert calls == [SW_VERS, argv]
    assert result["failed"] and result["rc"] == 1
    assert result["msg"] == "`/bin/df -k /Volumes/Models` failed with exit status 1: " \
                            "df: /Volumes/Models: No such file or directory"


@pytest.mark.parametrize("stdout", ["", read_fixture("df/header_only.txt"), read_fixture("df/garbage_numbers.txt")])
def test_unparsable_df_fails_naming_the_command(monkeypatch, capsys, stdout):
    result, calls = run_module(monkeypatch, capsys, mac_state.main, {}, mac(df=(0, stdout, "")))
    assert calls == [SW_VERS, DF]
    assert result["failed"] and result["msg"].startswith("cannot parse the output of `/bin/df -k /`: ")


def test_failing_fdesetup_fails_with_its_stderr(monkeypatch, capsys):
    result, calls = run_module(monkeypatch, capsys, mac_state.main, {},
                               mac(fdesetup=(1, "", "Error: cannot read the FileVault state.\n")))
    assert calls == [SW_VERS, DF, FDESETUP]
    assert result["failed"] and result["msg"] == \
        "`/usr/bin/fdesetup status` failed with exit status 1: Error: cannot read the FileVault state."


def test_unparsable_fdesetup_fails_naming_the_command(monkeypatch, capsys):
    result, _ = run_module(monkeypatch, capsys, mac_state.main, {},
                           mac(fdesetup=(0, read_fixture("fdesetup/garbage.txt"), "")))
    assert result["failed"] and result["msg"].startswith("cannot parse the output of `fdesetup status`: ")


def test_a_missing_tool_fails_as_not_macos(monkeypatch, capsys):
    class LinuxBox(FakeMac):
        def run_command(self, args, **kwargs):
            if args[0] == "/usr/bin/fdesetup":
                raise OSError(2, "No such file or directory")
            return super(LinuxBox, self).run_command(args, **kwargs)

    result, _ = run_module(monkeypatch, capsys, mac_state.main, {}, LinuxBox(mac().outputs.items()))
    assert result["failed"]
    assert result["msg"].startswith("cannot run `/usr/bin/fdesetup status`: ")
    assert "No such file or directory" in result["msg"] and "macOS only" in result["msg"]


def test_unreadable_sw_vers_fails_before_anything_else(monkeypatch, capsys):
    fake = mac()
    fake.outputs[tuple(SW_VERS)] = (0, read_fixture("sw_vers/garbage.txt"), "")
    result, calls = run_module(monkeypatch, capsys, mac_state.main, {}, fake)
    assert result["failed"] and "sw_vers" in result["msg"] and calls == [SW_VERS]
