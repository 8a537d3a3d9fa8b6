"""macops.cluster.macos_update_install against a stand-in softwareupdate (a script that reads the password from
stdin and prints the real lines): the password goes on stdin, never in argv; the progress file follows the lines;
softwareupdate's error line fails the module; check mode runs nothing. And macos_update_wait's progress line."""
import json
import os
import stat

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.macops.cluster.plugins.action.macos_update_wait import progress_text
from ansible_collections.macops.cluster.plugins.modules import macos_update_install

STANDIN = """#!/bin/sh
read -r password
echo "$@" > "$(dirname "$0")/argv"
[ "$password" = "s3cret" ] || { printf 'Software Update Tool\\n\\nDownloading: 100.00%%\\nDownloaded: x\\n'; \
echo 'Failed to authenticate'; exit 1; }
printf 'Software Update Tool\\n\\nFinding available software\\nDownloading macOS Tahoe 26.3\\n\\n'
printf 'Downloading: 0.10%%\\nDownloading: 75.00%%\\nDownloading: 100.00%%\\nDownloaded: macOS Tahoe 26.3\\n'
"""


@pytest.fixture()
def softwareupdate(tmp_path, monkeypatch):
    path = tmp_path / "softwareupdate"
    path.write_text(STANDIN)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", lambda self, name, **kw: str(path))
    return tmp_path


def install(monkeypatch, capsys, tmp_path, password="s3cret", check=False):
    args = {"label": "macOS Tahoe 26.3-25D60", "owner": "admin", "password": password,
            "progress_file": str(tmp_path / "update" / "progress.json"), "_ansible_check_mode": check}
    with pytest.raises(SystemExit):
        with patch_module_args(args):
            macos_update_install.main()
    return json.loads(capsys.readouterr().out)


def test_the_password_goes_on_stdin_and_the_progress_file_follows_the_lines(monkeypatch, capsys, softwareupdate):
    result = install(monkeypatch, capsys, softwareupdate)
    assert result["changed"] and result["downloaded"] and result["phase"] == "downloaded"
    argv = (softwareupdate / "argv").read_text()
    assert argv.split() == ["--install", "macOS", "Tahoe", "26.3-25D60", "--restart", "--agree-to-license", "--user",
                            "admin", "--stdinpass"] and "s3cret" not in argv
    progress = json.loads((softwareupdate / "update" / "progress.json").read_text())
    assert (progress["finished"], progress["rc"], progress["percent"], progress["downloaded"]) == (True, 0, 100.0, True)
    assert oct(os.stat(str(softwareupdate / "update" / "progress.json")).st_mode & 0o777) == "0o644"
    assert "s3cret" not in json.dumps(progress) and "s3cret" not in json.dumps(result)


def test_softwareupdate_s_error_line_fails_the_module(monkeypatch, capsys, softwareupdate):
    result = install(monkeypatch, capsys, softwareupdate, password="wrong")
    assert result["failed"] and "Failed to authenticate" in result["msg"]
    assert json.loads((softwareupdate / "update" / "progress.json").read_text())["error"] == "Failed to authenticate"


def test_check_mode_runs_nothing(monkeypatch, capsys, softwareupdate):
    result = install(monkeypatch, capsys, softwareupdate, check=True)
    assert result["changed"] and not (softwareupdate / "argv").exists()


@pytest.mark.parametrize("progress, line", [
    ({"percent": 53.9, "phase": "downloading"}, "downloading 54 %"),
    ({"percent": 75.0, "phase": "preparing"}, "preparing 75 %"),
    ({"downloaded": True}, "downloaded and prepared; restarting into the new build"),
    ({"error": "No such update", "downloaded": False}, "install failed: No such update"),
    ({"percent": None}, "finding the update"),
    (None, None),
])
def test_the_wait_shows_one_line_per_progress(progress, line):
    assert progress_text(progress) == line
