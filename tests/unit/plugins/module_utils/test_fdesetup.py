"""fdesetup status and supportsauthrestart (plugins/module_utils/_fdesetup.py): valid and invalid outputs as
data."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _fdesetup
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture


@pytest.mark.parametrize("fixture, state", [
    ("fdesetup/off.txt", "off"),
    ("fdesetup/on.txt", "on"),
    ("fdesetup/encrypting.txt", "on"),
    # Still encrypted, still locked at boot until decryption ends.
    ("fdesetup/decrypting.txt", "on"),
    # Not on yet, but the next restart turns it on and stops at the unlock screen.
    ("fdesetup/enabled_after_restart.txt", "pending"),
    # `fdesetup enable -defer`: turned on at the user's next logout or login, which a restart
    # goes through; with and without the user's name (macOS 13 prints it without).
    ("fdesetup/deferred_login.txt", "pending"),
    ("fdesetup/deferred_macos13.txt", "pending"),
])
def test_fdesetup_status(fixture, state):
    text = read_fixture(fixture)
    # `on` answers "does the next boot stop at the unlock screen": yes unless FileVault is off.
    assert _fdesetup.parse_status(text) == {"on": state != "off", "state": state, "status": text.strip()}


def test_fdesetup_status_reads_lines_indented_by_a_wrapper():
    assert _fdesetup.parse_status("  FileVault is Off.\n  Deferred enablement appears to be active.\n")["state"] \
        == "pending"


def test_fdesetup_status_is_case_sensitive_as_macos_prints_it():
    # Not what macOS prints: unknown, never taken for "off" (a reboot would trust it).
    with pytest.raises(ParseError, match="no `FileVault is On/Off`"):
        _fdesetup.parse_status("FileVault is on.\n")


@pytest.mark.parametrize("text, reason", [
    ("", "the output is empty"),
    ("\n", "the output is empty"),
    (read_fixture("fdesetup/garbage.txt"), "no `FileVault is On/Off` or `Deferred enablement` line"),
])
def test_fdesetup_status_rejects(text, reason):
    with pytest.raises(ParseError, match="`fdesetup status`") as error:
        _fdesetup.parse_status(text)
    assert reason in error.value.reason


@pytest.mark.parametrize("text, expected", [("true\n", True), ("false\n", False), ("", None),
                                            ("Error: unknown verb\n", None)])
def test_supports_authrestart(text, expected):
    assert _fdesetup.parse_supports_authrestart(text) is expected
