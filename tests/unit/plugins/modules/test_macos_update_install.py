"""macops.cluster.macos_update_install against a stand-in softwareupdate (a script that reads the password from
stdin and prints the real lines): the module returns at once with the detached process that follows the install (a
session of its own, so the restart's end of SSH does not end it); the password goes on stdin, never in argv; the
progress file names this install and follows the lines; softwareupdate's error line ends up in it; a user at the
screen makes it run through launchctl asuser; check mode runs nothing. The full installer's path: the fetch (no
password), then its startosinstall (the password on stdin, as the user at the screen), refused with nobody there."""
import json
import os
import stat
import time

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.macops.cluster.plugins.modules import macos_update_install

STANDIN = """#!/bin/sh
if [ "$1" = "--fetch-full-installer" ]; then
  echo "$@" > "$(dirname "$0")/fetch_argv"
  mkdir -p "$(dirname "$0")/Install macOS Tahoe.app/Contents/Resources"
  cp "$(dirname "$0")/startosinstall" "$(dirname "$0")/Install macOS Tahoe.app/Contents/Resources/startosinstall"
  printf 'Finding available software\nInstalling: 50.0%%\nInstalling: 100.0%%\nInstall finished successfully\n'
  exit 0
fi
read -r password
echo "$@" > "$(dirname "$0")/argv"
sleep 1
[ "$password" = "s3cret" ] || { printf 'Software Update Tool\\n\\nDownloading: 100.00%%\\nDownloaded: x\\n'; \
echo 'Failed to authenticate'; exit 1; }
printf 'Software Update Tool\\n\\nFinding available software\\nDownloading macOS Tahoe 26.3\\n\\n'
printf 'Downloading: 0.10%%\\nDownloading: 75.00%%\\nDownloading: 100.00%%\\nDownloaded: macOS Tahoe 26.3\\n'
"""
LABEL = "macOS Tahoe 26.3-25D60"
# The installer's tool: the password on stdin, its argv beside the stand-ins (TOOLS is replaced by their directory).
STARTOSINSTALL = """#!/bin/sh
read -r password
echo "$@" > TOOLS/installer_argv
[ "$password" = "s3cret" ] || { echo 'startosinstall: could not authenticate'; exit 1; }
printf 'Preparing to run macOS Installer...\nPreparing: 40.0%%\nPreparing: 100.0%%\n'
"""


def standin(path, text):
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture()
def tools(tmp_path, monkeypatch):
    path = tmp_path / "softwareupdate"
    path.write_text(STANDIN)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    standin(tmp_path / "sysctl", "#!/bin/sh\necho 6C3A1F0E-BOOT-ONE\n")
    # BSD stat of /dev/console: the uid in the file `console` (0, root: the login window).
    (tmp_path / "console").write_text("0")
    standin(tmp_path / "stat", "#!/bin/sh\n[ \"$*\" = '-f %%u /dev/console' ] && cat %s\n" % (tmp_path / "console"))
    standin(tmp_path / "launchctl", "#!/bin/sh\necho \"$@\" > %s/asuser_argv\nshift 2\nexec \"$@\"\n" % tmp_path)
    standin(tmp_path / "startosinstall", STARTOSINSTALL.replace("TOOLS", str(tmp_path)))
    found = {"softwareupdate": str(path), "sysctl": str(tmp_path / "sysctl"), "launchctl": str(tmp_path / "launchctl"),
             "stat": str(tmp_path / "stat")}
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, **kw: found[name])
    return tmp_path


def install(capsys, tmp_path, password="s3cret", check=False, mode="install", **extra):
    args = dict({"label": LABEL, "owner": "admin", "password": password, "mode": mode,
                 "progress_file": str(tmp_path / "update" / "progress.json"), "_ansible_check_mode": check}, **extra)
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


def test_a_user_at_the_screen_owns_the_console_and_the_install_runs_as_that_user(capsys, tools):
    (tools / "console").write_text("501")
    result = install(capsys, tools)
    assert result["console_uid"] == 501 and "as uid 501 (launchctl asuser)" in result["msg"]
    assert finished_progress(tools)["rc"] == 0
    assert (tools / "asuser_argv").read_text().split()[:2] == ["asuser", "501"]


def test_the_full_installer_is_fetched_then_its_startosinstall_runs_as_the_user_at_the_screen(capsys, tools):
    """Issue 48: a Mac softwareupdate no longer offers the cluster's build. The fetch takes no password; the
    installer's startosinstall takes it on stdin, in the context of the user at the screen; its Preparing lines end
    prepared (the Mac restarts into the build on its own)."""
    (tools / "console").write_text("501")
    app = tools / "Install macOS Tahoe.app"
    result = install(capsys, tools, mode="installer", installer_version="26.3", installer_app=str(app),
                     label="Install macOS Tahoe 26.3-25D60")
    assert "started softwareupdate --fetch-full-installer then startosinstall --agreetolicense" in result["msg"]
    progress = finished_progress(tools)
    assert (progress["rc"], progress["downloaded"], progress["percent"], progress["error"]) == (0, True, 100.0, None)
    assert (tools / "fetch_argv").read_text().split() == ["--fetch-full-installer", "--full-installer-version", "26.3"]
    argv = (tools / "installer_argv").read_text()
    assert argv.split() == ["--agreetolicense", "--forcequitapps", "--nointeraction", "--user", "admin",
                            "--stdinpass"] and "s3cret" not in argv
    assert (tools / "asuser_argv").read_text().startswith("asuser 501 %s --agreetolicense" % (
        app / "Contents" / "Resources" / "startosinstall"))
    # Fetched already (the download phase): only startosinstall runs, and a wrong password ends its progress.
    (tools / "fetch_argv").unlink()
    install(capsys, tools, mode="installer", installer_version="26.3", installer_app=str(app), password="wrong")
    progress = finished_progress(tools)
    assert progress["rc"] == 1 and not progress["downloaded"] and not (tools / "fetch_argv").exists()


def test_the_full_installer_alone_is_fetched_while_the_node_serves_and_needs_nobody_at_the_screen(capsys, tools):
    result = install(capsys, tools, mode="fetch_installer", installer_version="26.3")
    progress = finished_progress(tools)
    assert (progress["rc"], progress["downloaded"], progress["phase"]) == (0, True, "downloaded"), progress
    assert result["console_uid"] is None and not (tools / "installer_argv").exists()


def test_startosinstall_is_refused_before_anything_runs_with_nobody_at_the_screen(capsys, tools):
    result = install(capsys, tools, mode="installer", installer_version="26.3",
                     installer_app=str(tools / "Install macOS Tahoe.app"))
    assert result["failed"] and "nobody is logged in at the Mac's screen" in result["msg"]
    assert not (tools / "fetch_argv").exists() and not (tools / "update" / "progress.json").exists()
