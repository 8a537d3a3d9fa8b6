"""node_facts' run (plugins/module_utils/_node_collect.py): the groups it parses itself (updates, installers), the
slow checks (links, ssh) beside the other reads, and a read that breaks in its thread failing the module; through
node_facts against mocked commands."""
from ansible_collections.macops.cluster.plugins.modules import node_facts

from fake_node import (BOOT, PING_PEER, PORTS, ROUTE_DEFAULT, ROUTE_PEER, UPDATES, exo_plist, link_outputs, ok,
                       plan_file, studio)
from fixture_files import read_fixture
from module_harness import run_module


def test_updates(monkeypatch, capsys):
    listing = ("Software Update Tool\n\nFinding available software\n"
               "Software Update found the following new or updated software:\n"
               "* Label: macOS Tahoe 26.2.1-25C101\n"
               "\tTitle: macOS Tahoe 26.2.1, Version: 26.2.1, Size: 1500000KiB, Recommended: YES, Action: restart, \n")
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["updates"]},
                                studio({tuple(UPDATES): (0, listing, "")}))
    assert result["updates"] == [{"label": "macOS Tahoe 26.2.1-25C101", "title": "macOS Tahoe 26.2.1",
                                  "version": "26.2.1", "version_extra": None, "build": "25C101",
                                  "size_bytes": 1500000 * 1024,
                                  "recommended": True, "restart": True}]
    none, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["updates"]}, studio())
    assert none["updates"] == []


def test_installers_lists_apple_s_full_installers_and_who_is_at_the_screen(monkeypatch, capsys):
    """Issue 48: read when a version is asked; a listing that fails (no network to Apple) is said, not fatal."""
    listed = ok("softwareupdate/list_full_installers_tahoe_26_7.txt")
    listing, console = ("/usr/sbin/softwareupdate", "--list-full-installers"), ("/usr/bin/stat", "-f", "%Su",
                                                                                "/dev/console")
    result, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["installers"]},
                                studio({listing: listed, console: (0, "admin\n", "")}))
    assert result["installers"] == {"offered": [{"title": "macOS Tahoe", "version": "26.7", "build": "25G229",
                                                 "size_bytes": 17951133 * 1024, "deferred": False, "beta": False}],
                                    "error": None, "console_user": "admin"}
    failed, _calls = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["installers"]},
                                studio({listing: (1, "", "Can't connect to the server\n"), console: (0, "root\n", "")}))
    assert failed.get("failed") is None and failed["installers"]["offered"] == [] and failed["installers"][
        "console_user"] is None and "Can't connect" in failed["installers"]["error"]


def test_links_pings_every_cable_of_the_plan_beside_the_other_reads(monkeypatch, capsys, tmp_path):
    args = {"gather": ["boot", "links"], "links": {"plan_file": plan_file(tmp_path), "host": "mac1", "interval": 0.2}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio(link_outputs()))
    assert result.get("failed") is None, result.get("msg")
    links = result["links"]
    assert links["plan_found"] is True and links["planned_links"] == 1 and links["problems"] == []
    assert [(link["interface"], link["peer_host"], link["received"], link["ok"]) for link in links["links"]] == [
        ("en3", "mac2", 2, True)]
    # The default route is on en0, so the hardware ports are read to judge it: once, after the probe.
    assert sorted(map(tuple, calls)) == sorted(map(tuple, [BOOT, ROUTE_PEER, PING_PEER, ROUTE_DEFAULT, PORTS]))


def test_a_silent_cable_is_a_problem_not_a_failure(monkeypatch, capsys, tmp_path):
    args = {"gather": ["links"], "links": {"plan_file": plan_file(tmp_path), "host": "mac1", "interval": 0.2}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args,
                           studio(link_outputs(ping=(2, read_fixture("ping/macos_no_reply.txt"), ""))))
    assert result.get("failed") is None, result.get("msg")
    assert [(p["code"], p["port"]) for p in result["links"]["problems"]] == [("tb_link_no_reply", "en3")]


def test_a_read_that_breaks_in_its_thread_fails_the_module_naming_it(monkeypatch, capsys, tmp_path, exo_api):
    args = {"gather": ["exo"], "exo": {"plist": exo_plist(tmp_path)}}
    result, _ = run_module(monkeypatch, capsys, node_facts.main, args, studio())  # launchctl print not canned
    assert result["failed"] and result["msg"].startswith("exo: the read failed: unexpected command")


def test_ssh_checks_every_peer_by_name_and_over_its_cable_beside_the_other_reads(monkeypatch, capsys, tmp_path):
    from ansible_collections.macops.cluster.plugins.module_utils import _ssh_check

    asked = []

    def fake(argv, timeout):
        asked.append(argv[-2])
        return (255, "Permission denied (publickey).\n") if argv[-2] == "198.19.0.2" else (0, "")

    monkeypatch.setattr(_ssh_check, "run_ssh", fake)
    ssh = tmp_path / "ssh"
    args = {"gather": ["boot", "ssh"], "ssh": {"peers": ["mac1", "mac2"], "host": "mac1", "plan_file": plan_file(tmp_path),
                                              "ssh": str(ssh)}}
    result, calls = run_module(monkeypatch, capsys, node_facts.main, args, studio())
    assert result.get("failed") is None, result.get("msg")
    assert sorted(asked) == ["198.19.0.2", "mac2"] and calls == [BOOT]
    assert [(p["code"], p["peer"], p["port"]) for p in result["ssh"]["problems"]] == [("ssh_peer_unreachable", "mac2", "en3")]
    result, _ = run_module(monkeypatch, capsys, node_facts.main, {"gather": ["ssh"]}, studio())
    assert result["failed"] and "ssh.host" in result["msg"]
