"""xcode-select, `brew install uv` without a uv in the lab, `fdesetup authrestart`."""
import os

from shimlab import NOBODY, power_request, wait_exit
from test_shim_admin import homebrew_owned_by_nobody


def test_xcode_select_reports_the_command_line_tools(lab):
    assert lab.run_process("xcode-select", "-p", uid=NOBODY).out == "/Library/Developer/CommandLineTools\n"
    install = lab.run_process("xcode-select", "--install", uid=NOBODY)
    assert install.rc == 1
    assert install.err.startswith("xcode-select: note: Command line tools are already installed.")


def test_brew_install_uv_without_a_uv_on_the_machine(lab):
    homebrew_owned_by_nobody(lab)
    result = lab.run_process("brew", "install", "uv", uid=NOBODY)
    assert result.rc == 1
    assert "uv is not available in the lab's package source" in result.err
    assert not os.path.lexists(os.path.join(lab.fs, "opt", "homebrew", "bin", "uv"))


def test_brew_install_uv_links_the_labs_uv(lab):
    prefix = homebrew_owned_by_nobody(lab)
    fake_uv = os.path.join(lab.root, "tools", "uv")
    os.makedirs(os.path.dirname(fake_uv))
    with open(fake_uv, "w") as fh:
        fh.write("#!/bin/sh\necho 'uv 0.9.5 (lab)'\n")
    os.chmod(fake_uv, 0o755)
    world = lab.lab_json()
    world["tools"] = {"uv": fake_uv}
    lab.write_lab_json(world)
    result = lab.run_process("brew", "install", "uv", uid=NOBODY)
    assert result.rc == 0, result
    assert os.path.realpath(os.path.join(prefix, "bin", "uv")) == fake_uv
    assert "/opt/homebrew/Cellar/uv/0.9.5" in result.out


def test_authrestart_needs_root_and_filevault(lab, fake_launchd):
    env = {"MACLAB_INIT_PID": str(fake_launchd.pid)}
    not_root = lab.run_process("fdesetup", "authrestart", uid=NOBODY, env=env)
    assert not_root.rc == 1 and "root" in not_root.err
    off = lab.run_process("fdesetup", "authrestart", env=env)
    assert (off.rc, off.err) == (1, "Error: FileVault is Off.\n")
    assert not os.path.exists(os.path.join(lab.host_dir(), "run", "power_request"))
    assert wait_exit(fake_launchd, 1.5) is None


def test_authrestart_has_nothing_to_unlock_while_filevault_is_pending(lab, fake_launchd):
    with lab.edit_state() as state:
        state["filevault"] = "pending"
    result = lab.run_process("fdesetup", "authrestart", env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert (result.rc, result.err) == (1, "Error: FileVault is Off.\n")
    assert not os.path.exists(os.path.join(lab.host_dir(), "run", "power_request"))


def test_authrestart_with_filevault_on_restarts_past_the_unlock_screen(lab, fake_launchd):
    with lab.edit_state() as state:
        state["filevault"] = True
    result = lab.run_process("fdesetup", "authrestart", env={"MACLAB_INIT_PID": str(fake_launchd.pid)})
    assert result.rc == 0, result
    assert power_request(lab) == "authrestart"
    assert wait_exit(fake_launchd, 5) == -15


def test_stat_speaks_bsd_formats_as_testinfra_uses_them(lab, tmp_path):
    target = tmp_path / "rules"
    target.write_text("x" * 12)
    os.chmod(str(target), 0o440)
    result = lab.run("stat", "-f", "%Lp %z %HT", str(target))
    assert result.rc == 0 and result.out == "440 12 Regular File\n"
    assert lab.run("stat", "-L", "-f%N", str(target)).out == "%s\n" % target
    assert lab.run("stat", "-c", "%a", str(target)).rc == 1  # GNU's -c is no macOS option
    missing = lab.run("stat", "-f", "%Lp", str(tmp_path / "nothing"))
    assert missing.rc == 1 and "No such file or directory" in missing.err
