"""df -k and fdesetup status parsers, and the ssh check's summary: valid and invalid outputs as data."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils import _df, _fdesetup, _ssh_check
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

VALID_DF = [
    ("df/studio_root.txt", {"filesystem": "/dev/disk3s1s1", "size_kib": 971350180, "used_kib": 10908548,
                            "free_kib": 650553916, "mounted_on": "/"}),
    ("df/studio_data_volume.txt", {"filesystem": "/dev/disk3s5", "size_kib": 971350180, "used_kib": 300771684,
                                   "free_kib": 650553916, "mounted_on": "/System/Volumes/Data"}),
    # A full volume, and a mount point with a space.
    ("df/full_volume_with_space.txt", {"filesystem": "/dev/disk5s1", "size_kib": 976797816, "used_kib": 976797816,
                                       "free_kib": 0, "mounted_on": "/Volumes/Macintosh HD"}),
    # A file system name with a space, and `-` for %iused.
    ("df/automount.txt", {"filesystem": "map auto_home", "size_kib": 0, "used_kib": 0, "free_kib": 0,
                          "mounted_on": "/System/Volumes/Data/home"}),
    # GNU df, as on a Linux machine: no inode columns.
    ("df/gnu_linux.txt", {"filesystem": "/dev/nvme0n1p2", "size_kib": 479596204, "used_kib": 8123456,
                          "free_kib": 447030120, "mounted_on": "/"}),
    # BSD df prints a negative Available on a volume past its reserve: nothing is free.
    ("df/negative_available.txt", {"filesystem": "/dev/disk6s2", "size_kib": 1048576, "used_kib": 1015808,
                                   "free_kib": 0, "mounted_on": "/Volumes/Old UFS"}),
]
INVALID_DF = [
    ("", "the output is empty"),
    ("  \n\n", "the output is empty"),
    (read_fixture("df/header_only.txt"), "no volume line after the header"),
    (read_fixture("df/no_such_file.txt"), "is not the header"),
    (read_fixture("df/garbage_numbers.txt"), "is not `Filesystem 1024-blocks"),
    (read_fixture("df/studio_root.txt").replace("2%", "2"), "is not `Filesystem 1024-blocks"),
    # Without -k macOS counts 512-byte blocks.
    (read_fixture("df/studio_root.txt").replace("1024-blocks", " 512-blocks"), "the sizes are not in KiB"),
]


@pytest.mark.parametrize("fixture, expected", VALID_DF)
def test_df(fixture, expected):
    assert _df.parse(read_fixture(fixture)) == expected


def test_df_reads_the_last_line():
    text = read_fixture("df/studio_root.txt") + read_fixture("df/studio_data_volume.txt").splitlines()[1] + "\n"
    assert _df.parse(text)["mounted_on"] == "/System/Volumes/Data"


@pytest.mark.parametrize("text, reason", INVALID_DF)
def test_df_rejects(text, reason):
    with pytest.raises(ParseError, match="`df -k`") as error:
        _df.parse(text)
    assert reason in error.value.reason


def test_df_error_names_the_command_it_was_given():
    with pytest.raises(ParseError, match="`/bin/df -k /Volumes/Models`"):
        _df.parse(read_fixture("df/no_such_file.txt"), "/bin/df -k /Volumes/Models")


@pytest.mark.parametrize("kib, gib", [(650553916, 620.4), (0, 0.0), (1048576, 1.0), (104857, 0.1), (52428, 0.0)])
def test_gib_has_one_decimal(kib, gib):
    assert _df.gib(kib) == gib


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


def test_ssh_argv_is_what_mlx_launch_needs():
    assert _ssh_check.ssh_argv("/usr/bin/ssh", 5, "198.18.64.2") == [
        "/usr/bin/ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=5",
        "198.18.64.2", "/usr/bin/true"]


def test_labels_default_to_the_address():
    assert _ssh_check.targets_with_labels([{"address": "mac2", "label": "mac2 by name"},
                                          {"address": "mac3", "label": None}, {"address": "mac4"}]) == [
        {"address": "mac2", "label": "mac2 by name"}, {"address": "mac3", "label": "mac3"},
        {"address": "mac4", "label": "mac4"}]


@pytest.mark.parametrize("text, expected", [
    (None, ""), ("", ""), ("  Permission denied (publickey).\r\n", "Permission denied (publickey)."),
    ("x" * 300, "x" * 300), ("x" * 301, "x" * 297 + "..."),
])
def test_trim_keeps_at_most_300_characters(text, expected):
    assert _ssh_check.trim(text) == expected
    assert len(_ssh_check.trim(text)) <= 300


def test_result_and_failure_message():
    mac2 = _ssh_check.result({"address": "mac2", "label": "mac2 by name"}, 255,
                             "mac2: Permission denied (publickey).\n")
    tb = _ssh_check.result({"address": "198.18.64.2", "label": "over en2"}, 255,
                           "ssh: connect to host 198.18.64.2 port 22: Operation timed out\r\n")
    ok = _ssh_check.result({"address": "mac3", "label": "mac3"}, 0, "")
    silent = _ssh_check.result({"address": "mac4", "label": "mac4"}, 1, "")
    assert ok == {"address": "mac3", "label": "mac3", "ok": True, "rc": 0, "stderr": ""}
    assert mac2["ok"] is False and mac2["stderr"] == "mac2: Permission denied (publickey)."
    assert _ssh_check.failure_message([ok]) is None
    assert _ssh_check.failure_message([mac2, ok, tb], " Turn on Remote Login there. ") == (
        "cannot SSH to mac2 (mac2 by name: mac2: Permission denied (publickey).); 198.18.64.2 (over en2: ssh: "
        "connect to host 198.18.64.2 port 22: Operation timed out). Turn on Remote Login there.")
    assert _ssh_check.failure_message([silent]) == "cannot SSH to mac4 (mac4: exit status 1)."


def test_failure_message_puts_multi_line_errors_on_one_line():
    changed = _ssh_check.result({"address": "mac2", "label": "mac2"}, 255,
                                "@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
                                "Host key verification failed.\n")
    assert "\n" in changed["stderr"]
    assert _ssh_check.failure_message([changed], "") == (
        "cannot SSH to mac2 (mac2: @@@@@ @ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @ "
        "Host key verification failed.).")


@pytest.mark.parametrize("text, expected", [("true\n", True), ("false\n", False), ("", None),
                                            ("Error: unknown verb\n", None)])
def test_supports_authrestart(text, expected):
    assert _fdesetup.parse_supports_authrestart(text) is expected
