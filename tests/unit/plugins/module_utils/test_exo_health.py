"""exo's health (plugins/module_utils/_exo_health.py): its LaunchDaemon's settings, launchd's state of the job,
node_count (exo_health's and node_facts' count) reading exo's /state shape (camelCase, 1.0.x) and never guessing,
the version, and the verdict with what to check."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._exo_health import (failure_message, installed_version,
                                                                                 is_unhealthy, launchd_state,
                                                                                 node_count)

from exo_fixture import IDS, RUNNING, STOPPED

THREE_IDS = ["12D3KooWA", "12D3KooWB", "12D3KooWC"]


@pytest.mark.parametrize("state, count", [
    ({"topology": {"nodes": THREE_IDS, "connections": []}}, 3),
    ({"topology": {"nodes": [{"nodeId": i} for i in THREE_IDS] + [{"nodeId": THREE_IDS[0]}]}}, 3),
    ({"topology": {"nodes": {i: {} for i in THREE_IDS[:2]}}}, 2),
    ({"topology": {"nodes": []}, "nodeIdentities": {i: {"friendlyName": i} for i in THREE_IDS}}, 3),
    ({"nodeIdentities": {THREE_IDS[0]: {}}}, 1),
    ({"instances": {}}, 0),
    ({}, 0),
    (None, 0),
    ("<html>502</html>", 0),
])
def test_counts_distinct_nodes(state, count):
    assert node_count(state) == count


def test_launchd_state_is_the_jobs_own_first_state_line():
    assert launchd_state(RUNNING[1]) == "running"
    assert launchd_state(STOPPED[1]) == "not running"
    assert launchd_state("") == "" and launchd_state(None) == ""


@pytest.mark.parametrize("state, count", [
    ({"topology": {"nodes": IDS, "connections": []}}, 4),
    ({"topology": {"nodes": [{"nodeId": i} for i in IDS[:3]] + [{"nodeId": IDS[0]}]}}, 3),
    ({"topology": {"nodes": {i: {} for i in IDS[:2]}}}, 2),
    ({"topology": {"nodes": []}, "nodeIdentities": {i: {} for i in IDS}}, 4),
    ({}, 0), (None, 0), ("<html>502</html>", 0),
])
def test_node_count_reads_exos_state_shape(state, count):
    assert node_count(state) == count


def test_installed_version_falls_back_to_the_declared_one():
    assert installed_version(0, "1.0.72\n", "1.0.71") == "1.0.72"
    assert installed_version(1, "", "1.0.71") == "1.0.71"
    assert installed_version(0, "  \n", "1.0.71") == "1.0.71"


@pytest.mark.parametrize("running, api_ok, seen, require_all, unhealthy", [
    (True, True, 4, True, False), (True, True, 2, False, False), (True, True, 2, True, True),
    (False, True, 4, True, True), (True, False, 4, False, True)])
def test_is_unhealthy_says_whether_exo_fails_its_check(running, api_ok, seen, require_all, unhealthy):
    health = {"running": running, "api_ok": api_ok, "nodes_seen": seen, "nodes_expected": 4}
    assert is_unhealthy(health, require_all) is unhealthy


def test_failure_message_names_the_host_the_readings_and_what_to_check():
    text = failure_message("mac2", 52415, "/Library/Logs/macops/exo.log",
                           {"running": True, "api_ok": True, "nodes_seen": 2, "nodes_expected": 4})
    assert text.startswith("exo on mac2: service running True, API on port 52415 answering True, "
                           "nodes in /state 2 of 4. Read /Library/Logs/macops/exo.log.")
    assert "exo_namespace" in text and "52413-52415" in text and "exo #952" in text


def test_the_launchdaemon_gives_label_port_and_log_or_a_reason():
    import plistlib

    from ansible_collections.macops.cluster.plugins.module_utils._exo_health import launchdaemon_settings
    from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

    job = {"Label": "org.macops.exo", "ProgramArguments": ["/opt/macops/exo-venv/bin/exo", "--api-port", "52416"],
           "StandardOutPath": "/Library/Logs/macops/exo.log"}
    settings = launchdaemon_settings(plistlib.dumps(job))
    assert (settings["label"], settings["api_port"], settings["log_file"]) == (
        "org.macops.exo", 52416, "/Library/Logs/macops/exo.log")
    assert launchdaemon_settings(plistlib.dumps(dict(job, ProgramArguments=["exo"])))["api_port"] == 52415
    for data, reason in [(b"not a plist", "not a property list"), (plistlib.dumps({"Program": "x"}), "no Label"),
                         (plistlib.dumps(dict(job, ProgramArguments=["exo", "--api-port", "x"])), "not a port")]:
        with pytest.raises(ParseError, match=reason):
            launchdaemon_settings(data, "/Library/LaunchDaemons/org.macops.exo.plist")
