"""exo on the lab. The lab cannot run exo (no Metal, no macmon), so exo_program is the stand-in
tests/e2e/support/exo_standin.py, which serves exo's documented /state shape: the LaunchDaemon,
its UserName and environment, KeepAlive, the health check and the networksetup-daemon handling
are real; only cluster discovery is given to the stand-in."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
from labtools import HOSTS, maclab, read_json, ssh, wait_until  # noqa: E402
from software import EXO_STANDIN_SOURCE, converge  # noqa: E402

STANDIN = "/Users/Shared/exo_standin.py"
EXO_VARS = {"exo_install": False,
            "exo_program": ["/usr/bin/python3", STANDIN, "--nodes", ",".join(HOSTS)]}


def service_pid(host):
    text = ssh(host, "/bin/launchctl print system/org.macops.exo", check=False).stdout
    for line in text.splitlines():
        if line.strip().startswith("pid ="):
            return int(line.split("=")[1])
    return None


@pytest.fixture(scope="module")
def first_run(ansible, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("exo")
    ansible("macs", "ansible.builtin.copy", "src=%s dest=%s mode=0755" % (EXO_STANDIN_SOURCE,
                                                                         STANDIN), become=True)
    maclab("fault", "ip-reset", "mac2")  # installs and starts an io.exo.networksetup daemon
    return converge(ansible, tmp, ["exo"], EXO_VARS), tmp


def test_service_runs_as_admin_with_the_configured_environment(first_run):
    for host in HOSTS:
        seen = json.loads(ssh(host, "cat /Users/admin/.exo/standin.json").stdout)
        assert seen["uid"] != 0
        assert seen["env"]["EXO_HOME"] == "/Users/admin/.exo"
        assert seen["env"]["EXO_FAST_SYNCH"] == "false"
        # deploy-model.yml's copies, read-only: exo looks there before it would download anything.
        assert seen["env"]["EXO_MODELS_READ_ONLY_DIRS"] == "/Users/admin/models"
        assert seen["argv"][-2:] == ["--api-port", "52415"]


def test_health_sees_every_node(first_run):
    (_, facts, _), _ = first_run
    for host in HOSTS:
        exo = facts[host]["macops_exo"]
        assert exo["running"] and exo["api_ok"], host
        assert (exo["nodes_seen"], exo["nodes_expected"]) == (4, 4)
        assert exo["version"] == "1.0.71"


def test_exo_networksetup_daemon_disabled_and_stopped(first_run):
    assert ssh("mac2", "/bin/launchctl print system/io.exo.networksetup", check=False).returncode == 113
    assert "io.exo.networksetup" in read_json("hosts", "mac2", "state.json").get("launchd_disabled", [])


def test_keepalive_restarts_exo(first_run):
    pid = service_pid("mac1")
    ssh("mac1", "kill %d" % pid, check=False)  # runs as admin, the service's own user
    wait_until(lambda: service_pid("mac1") not in (None, pid), 20, 0.5, "launchd to restart exo")


def test_second_run_changes_nothing(ansible, first_run):
    _, tmp = first_run
    _, facts, counts = converge(ansible, tmp, ["exo"], EXO_VARS)
    assert {h: c["changed"] for h, c in counts.items()} == {h: 0 for h in HOSTS}
    assert all(facts[h]["macops_exo"]["nodes_seen"] == 4 for h in HOSTS)


def test_missing_node_fails_the_health_check(ansible, first_run):
    _, tmp = first_run
    short = dict(EXO_VARS, exo_program=["/usr/bin/python3", STANDIN, "--nodes", "mac1,mac2"], exo_health_timeout=4)
    proc, _, _ = converge(ansible, tmp, ["exo"], short, check=False)
    assert proc.returncode != 0 and "nodes in /state 2 of 4" in proc.stdout
    converge(ansible, tmp, ["exo"], EXO_VARS)  # put the full stand-in back for later tests


def test_exo_install_false_without_program_is_refused(ansible, first_run):
    _, tmp = first_run
    # The lab inventory names a program (the stand-in): take it away explicitly.
    proc, _, _ = converge(ansible, tmp, ["exo"], {"exo_install": False, "exo_program": []}, check=False)
    assert proc.returncode != 0 and "exo_program" in proc.stdout
