"""macops.cluster.macos_update_install against a stand-in softwareupdate (a script that reads the password from
stdin and prints the real lines): the module returns at once with the detached process that follows the install (a
session of its own, so the restart's end of SSH does not end it); the password goes on stdin, never in argv; the
progress file names this install and follows the lines; softwareupdate's error line ends up in it; a user at the
screen makes it run through launchctl asuser; check mode runs nothing."""
import json
import os
import stat
import time

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.macops.cluster.plugins.modules import macos_update_install

STANDIN = """#!/bin/sh
read -r password
echo "$@" > "$(dirname "$0")/argv"
sleep 1
[ "$password" = "s3cret" ] || { printf 'Software Update Tool\\n\\nDownloading: 100.00%%\\nDownloaded: x\\n'; \
echo 'Failed to authenticate'; exit 1; }
printf 'Software Update Tool\\n\\nFinding available software\\nDownloading macOS Tahoe 26.3\\n\\n'
printf 'Downloading: 0.10%%\\nDownloading: 75.00%%\\nDownloading: 100.00%%\\nDownloaded: macOS Tahoe 26.3\\n'
"""
LABEL = "macOS Tahoe 26.3-25D60"


@pytest.fixture()
def tools(tmp_path, monkeypatch):
    path = tmp_path / "softwareupdate"
    path.write_text(STANDIN)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    sysctl = tmp_path / "sysctl"
    sysctl.write_text("#!/bin/sh\necho 6C3A1F0E-BOOT-ONE\n")
    sysctl.chmod(0o755)
    found = {"softwareupdate": str(path), "sysctl": str(sysctl), "launchctl": "/bin/launchctl"}
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, **kw: found[name])
    monkeypatch.setattr(macos_update_install, "console_uid", lambda: None)  # the login window
    return tmp_path


def install(capsys, tmp_path, password="s3cret", check=False, mode="install"):
    args = {"label": LABEL, "owner": "admin", "password": password, "mode": mode,
            "progress_file": str(tmp_path / "update" / "progress.json"), "_ansible_check_mode": check}
    with pytest.raises(SystemExit):
        with patch_module_args(args):
            macos_update_install.main()
    return json.loads(capsys.readouterr().out)


def finished_progress(tmp_path, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            progress = json.loads((tmp_path / "update" / "progress.json").read_text())
        except (OSError, ValueError):
            progress = {}
        if progress.get("finished"):
            return progress
        time.sleep(0.1)
    raise AssertionError("the detached process never finished its progress file")


def test_it_returns_at_once_the_install_following_in_a_session_of_its_own(capsys, tools):
    result = install(capsys, tools)
    # Returned while softwareupdate still runs (the stand-in sleeps first), its follower a session leader.
    assert result["changed"] and os.getsid(result["pid"]) == result["pid"]
    assert result["boot_session"] == "6C3A1F0E-BOOT-ONE" and result["console_uid"] is None
    progress = finished_progress(tools)
    assert (progress["label"], progress["started_at"], progress["pid"]) == (LABEL, result["started_at"],
                                                                             result["pid"])
    assert (progress["rc"], progress["percent"], progress["downloaded"]) == (0, 100.0, True)
    argv = (tools / "argv").read_text()
    assert argv.split() == ["--install", "macOS", "Tahoe", "26.3-25D60", "--restart", "--agree-to-license", "--user",
                            "admin", "--stdinpass"] and "s3cret" not in argv
    assert oct(os.stat(str(tools / "update" / "progress.json")).st_mode & 0o777) == "0o644"
    assert "s3cret" not in json.dumps(progress) and "s3cret" not in json.dumps(result)


def test_a_download_runs_softwareupdate_download_with_the_password_on_stdin_and_no_restart(capsys, tools):
    """Issue 48: the download and preparation first, while the node keeps serving: --download, no --restart."""
    result = install(capsys, tools, mode="download")
    assert result["changed"] and "started softwareupdate --download" in result["msg"]
    progress = finished_progress(tools)
    assert (progress["rc"], progress["downloaded"], progress["error"]) == (0, True, None)
    argv = (tools / "argv").read_text()
    assert argv.split() == ["--download", "macOS", "Tahoe", "26.3-25D60", "--agree-to-license", "--user", "admin",
                            "--stdinpass"] and "s3cret" not in argv


def test_softwareupdate_s_error_line_ends_in_the_progress_file(capsys, tools):
    result = install(capsys, tools, password="wrong")
    assert not result.get("failed")  # the wait reads the error from the progress file
    progress = finished_progress(tools)
    assert (progress["error"], progress["rc"]) == ("Failed to authenticate", 1)


def test_check_mode_runs_nothing(capsys, tools):
    result = install(capsys, tools, check=True)
    assert result["changed"] and result["pid"] is None and not (tools / "argv").exists()


def test_a_user_at_the_screen_makes_it_run_in_that_user_s_context():
    assert macos_update_install.install_argv("/usr/sbin/softwareupdate", "/bin/launchctl", LABEL, "admin", 501)[:4] == [
        "/bin/launchctl", "asuser", "501", "/usr/sbin/softwareupdate"]
    assert macos_update_install.install_argv("/usr/sbin/softwareupdate", None, LABEL, "admin", None)[0] == (
        "/usr/sbin/softwareupdate")


def test_the_console_user_is_the_owner_of_the_console_and_none_at_the_login_window(tmp_path, monkeypatch):
    class Stat(object):
        def __init__(self, uid):
            self.st_uid = uid
    monkeypatch.setattr(macos_update_install.os, "stat", lambda path: Stat(501))
    assert macos_update_install.console_uid() == 501
    monkeypatch.setattr(macos_update_install.os, "stat", lambda path: Stat(0))
    assert macos_update_install.console_uid() is None

    def missing(path):
        raise OSError(2, "no such file")
    monkeypatch.setattr(macos_update_install.os, "stat", missing)
    assert macos_update_install.console_uid() is None
