"""softwareupdate --list and --install (plugins/module_utils/_softwareupdate.py), on their fixtures
(fixtures/softwareupdate: sources in its README.md)."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _softwareupdate
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture as fixture


def test_a_listed_macos_update_carries_its_build_and_size():
    [update] = _softwareupdate.parse_list(fixture("softwareupdate/list_sequoia_15_3.txt"))
    assert update == {"label": "macOS Sequoia 15.3-24D60", "title": "macOS Sequoia 15.3", "version": "15.3",
                      "version_extra": None, "build": "24D60", "size_bytes": 2478898 * 1024, "recommended": True,
                      "restart": True}


def test_a_security_response_carries_its_letter_and_its_long_build():
    """Issue 48: a Background Security Improvement (macOS 26) or Rapid Security Response (13 to 15): the label's build
    is the response's, eight digits long and ending in a letter; its version is the release plus the letter."""
    [bsi] = _softwareupdate.parse_list(fixture("softwareupdate/list_tahoe_bsi_26_3_1_a.txt"))
    assert (bsi["label"], bsi["build"]) == ("macOS Background Security Improvement (a)-25D771280a", "25D771280a")
    assert (bsi["version"], bsi["version_extra"], bsi["size_bytes"]) == ("26.3.1", "(a)", 208896 * 1024)
    assert bsi["title"] == "macOS Background Security Improvement (a)" and bsi["restart"] and bsi["recommended"]


def test_sizes_in_k_are_kib_as_in_kib():
    big_sur, safari = _softwareupdate.parse_list(fixture("softwareupdate/list_sizes_in_k_and_kib.txt"))
    assert (big_sur["build"], big_sur["size_bytes"]) == ("20C5061b", 2746951 * 1024)
    assert (safari["build"], safari["size_bytes"], safari["restart"]) == (None, 152370 * 1024, False)


def test_a_major_upgrade_is_listed_like_a_minor_update():
    major, minor = _softwareupdate.parse_list(fixture("softwareupdate/list_major_and_minor.txt"))
    assert (major["label"], major["version"], major["build"]) == ("macOS 27-26A428", "27", "26A428")
    assert (minor["version"], minor["build"]) == ("26.7", "25H20")


def test_an_item_without_a_build_in_its_label_has_none():
    listing = "* Label: Command Line Tools for Xcode-26.1\n\tTitle: Command Line Tools, Version: 26.1, Size: 1KiB, \n"
    [tools] = _softwareupdate.parse_list(listing)
    assert tools["build"] is None and tools["restart"] is False and tools["size_bytes"] == 1024


def test_an_install_s_progress_and_phases():
    text = fixture("softwareupdate/install_ventura_13_3.txt")
    done = _softwareupdate.parse_install(text)
    assert done == {"percent": 100.0, "phase": "downloaded", "downloaded": True, "error": None,
                    "last": "Downloaded: macOS Ventura 13.3"}
    halfway = _softwareupdate.parse_install(text.split("Downloading: 100")[0])
    assert (halfway["percent"], halfway["phase"], halfway["downloaded"]) == (53.9, "downloading", False)
    preparing = _softwareupdate.parse_install("Downloading: 75.00%\n")
    assert preparing["phase"] == "preparing"
    assert _softwareupdate.parse_install("")["phase"] == "finding"


def test_ticks_written_newline_first_or_run_together_are_each_read_as_they_come():
    """softwareupdate writes each tick newline-first: the last one printed has no newline after it yet, and off a
    terminal ticks can run together or end in a carriage return; each counts as soon as it is printed."""
    head = "Software Update Tool\n\nFinding available software\nDownloading macOS Tahoe 26.3\n"
    newline_first = _softwareupdate.parse_install(head + "\nDownloading: 10.00%\nDownloading: 62.50%")
    assert (newline_first["percent"], newline_first["phase"], newline_first["last"]) == (
        62.5, "preparing", "Downloading: 62.50%")
    together = _softwareupdate.parse_install(head + "Downloading: 10.00%Downloading: 40.00%\rDownloading: 53.90%")
    assert (together["percent"], together["phase"]) == (53.9, "downloading")
    failed = _softwareupdate.parse_install(head + "\nDownloading: 100.00%Downloaded: macOS Tahoe 26.3\n"
                                           "Failed to authenticate\n")
    assert (failed["downloaded"], failed["error"], failed["last"]) == (True, "Failed to authenticate",
                                                                      "Failed to authenticate")


@pytest.mark.parametrize("line", ["Failed to authenticate", "No such update", "Not enough free disk space to x"])
def test_an_install_s_error_line_is_found(line):
    failed = _softwareupdate.parse_install(fixture("softwareupdate/install_ventura_13_3.txt") + line + "\n")
    assert failed["error"] == line and failed["downloaded"]


def test_apple_s_full_installers_carry_their_build_size_and_deferral():
    [tahoe] = _softwareupdate.parse_full_installers(fixture("softwareupdate/list_full_installers_tahoe_26_7.txt"))
    assert tahoe == {"title": "macOS Tahoe", "version": "26.7", "build": "25G229", "size_bytes": 17951133 * 1024,
                     "deferred": False, "beta": False}
    deferred = _softwareupdate.parse_full_installers(
        "* Title: macOS Tahoe Beta, Version: 27.0, Size: 1KiB, Build: 26A5, Deferred: YES\n")
    assert deferred[0]["deferred"] and deferred[0]["beta"] and deferred[0]["build"] == "26A5"
    assert _softwareupdate.parse_full_installers("Finding available software\n") == []
    with pytest.raises(ParseError):
        _softwareupdate.parse_full_installers("Software Update found the following full installers:\n")


def test_a_full_installer_s_fetch_downloads_and_its_startosinstall_prepares_until_the_restart():
    fetching = _softwareupdate.parse_install("Finding available software\nInstalling: 12.5%\n")
    assert (fetching["phase"], fetching["percent"], fetching["downloaded"]) == ("downloading", 12.5, False)
    fetched = _softwareupdate.parse_install("Installing: 100.0%\nInstall finished successfully\n")
    assert (fetched["phase"], fetched["downloaded"]) == ("downloaded", True)
    preparing = _softwareupdate.parse_install("Preparing to run macOS Installer...\nPreparing: 40.0%\nPreparing: 75")
    assert (preparing["phase"], preparing["percent"], preparing["downloaded"]) == ("preparing", 75.0, False)
    ready = _softwareupdate.parse_install("Preparing: 99.0%\nPreparing: 100.0%\n")
    assert (ready["phase"], ready["downloaded"]) == ("downloaded", True)
