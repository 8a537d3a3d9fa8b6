"""power on the lab: check mode predicts, the run applies pmset -a and keeps macOS from installing a macOS update by
itself (checking stays on), a second run changes nothing."""
import plistlib

from access_helpers import CONVERGE, WITHOUT_FIREWALL, changed_tasks, converge, recap, run_playbook
from labtools import HOSTS, log_lines, on_host, read_json

TASK = "macops.cluster.power : Keep the Mac awake, restarting after power loss and waking for network access"
UPDATES = "macops.cluster.power : Keep checking for macOS updates but never install one or a security response by itself"
SOFTWARE_UPDATE = "/Library/Preferences/com.apple.SoftwareUpdate.plist"
CLUSTER = {"sleep": 0, "disksleep": 0, "displaysleep": 10, "autorestart": 1, "womp": 1}


def pmset_state(host):
    return read_json("hosts", host, "state.json")["pmset"]


def pmset_writes(host):
    return [e["argv"] for e in log_lines(host, "shim.log") if e["argv"][0].endswith("pmset") and "-a" in e["argv"]]


def test_check_mode_predicts_then_run_applies_then_nothing_changes(lab):
    before = dict((host, pmset_state(host)) for host in HOSTS)
    assert any(before[h][k] != v for h in HOSTS for k, v in CLUSTER.items()), "the lab starts converged"

    predicted = converge("--tags", "power", "--check", "--diff")
    assert dict((host, pmset_state(host)) for host in HOSTS) == before
    assert all(changed_tasks(predicted.stdout)[host] == [TASK, UPDATES] for host in HOSTS)
    assert '"sleep": "1"' in predicted.stdout and '"sleep": "0"' in predicted.stdout  # the --diff of pmset

    applied = converge("--tags", "power")
    for host in HOSTS:
        state = pmset_state(host)
        assert dict((k, state[k]) for k in CLUSTER) == CLUSTER, (host, state)
        assert changed_tasks(applied.stdout)[host] == [TASK, UPDATES]
        assert len(pmset_writes(host)) == 1
        with open(on_host(host, SOFTWARE_UPDATE), "rb") as handle:
            settings = plistlib.load(handle)
        assert (settings["AutomaticCheckEnabled"], settings["AutomaticallyInstallMacOSUpdates"]) == (True, False)
        assert (settings["CriticalUpdateInstall"], settings["SplatEnabled"]) == (False, False)

    again = converge("--tags", "power")
    assert all(result["changed"] == 0 for result in recap(again.stdout).values())
    assert all(len(pmset_writes(host)) == 1 for host in HOSTS)


def test_negative_minutes_fail_before_pmset_runs(lab):
    calls = dict((host, len(log_lines(host, "shim.log"))) for host in HOSTS)
    proc = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + ("--tags", "power", "-e", '{"power_sleep_minutes": -5}')))
    assert proc.returncode != 0
    # Only the wrong variable is refused (the result's `checked` lists the others, defaults included).
    message = " ".join(proc.stdout.split())
    assert "power_sleep_minutes = -5 is refused: it must be 0 or more (0 means never)." in message
    assert "power_display_sleep_minutes =" not in message and "power_disk_sleep_minutes =" not in message
    assert message.count(" is refused: ") == message.count("power_sleep_minutes = -5 is refused: "), message
    for host in HOSTS:
        new = log_lines(host, "shim.log")[calls[host]:]
        assert not [e for e in new if e["argv"][0].endswith("pmset")], new
