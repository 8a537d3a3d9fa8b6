"""What the reboot tests and benchmarks/reboot share: converge what reboot-cluster.yml checks, run
it against the lab, and read boot sessions, boot counts and boot/shutdown times of the hosts."""
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.dirname(HERE)
sys.path.insert(0, E2E)
sys.path.insert(0, os.path.join(E2E, "support"))
from labtools import REPO, ROOT, read_json, run_playbook  # noqa: E402
from software import EXO_STANDIN_SOURCE, SUPPORT, recap  # noqa: E402

REBOOT_PLAYBOOK = os.path.join(REPO, "reboot-cluster.yml")
CONVERGE_PLAYBOOK = os.path.join(HERE, "playbooks", "converge_reboot.yml")
STANDIN = "/Users/Shared/exo_standin.py"
_LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d) ")


def lab_hosts():
    return [host["name"] for host in read_json("lab.json")["hosts"]]


def exo_vars(hosts):
    return {"exo_install": False, "exo_program": ["/usr/bin/python3", STANDIN, "--nodes", ",".join(hosts)]}


def playbook(path, tmp_dir, extra_vars=None, flags=(), timeout=900):
    """ansible-playbook against the lab from the repository root; returns (proc, seconds)."""
    args = (["-e", json.dumps(extra_vars)] if extra_vars else []) + list(flags)
    started = time.time()
    proc = run_playbook(path, *args, workdir=tmp_dir, cwd=REPO, env={"ANSIBLE_INJECT_FACT_VARS": "false"},
                        timeout=timeout, check=False)
    return proc, time.time() - started


def converge(tmp_dir):
    """Install the exo stand-in and converge the roles whose results the reboot re-verifies."""
    hosts = lab_hosts()
    for host in hosts:
        dest = os.path.join(ROOT, "hosts", host, "fs", "Users", "Shared")
        os.makedirs(dest, exist_ok=True)
        with open(EXO_STANDIN_SOURCE) as src, open(os.path.join(dest, "exo_standin.py"), "w") as out:
            out.write(src.read())
        os.chmod(os.path.join(dest, "exo_standin.py"), 0o755)
    proc, _ = playbook(CONVERGE_PLAYBOOK, tmp_dir, exo_vars(hosts))
    assert proc.returncode == 0, "converge failed:\n%s\n%s" % (proc.stdout[-6000:], proc.stderr[-2000:])
    return proc


def reboot(tmp_dir, extra_vars=None, flags=(), timeout=900):
    """reboot-cluster.yml with its report in tmp_dir; returns (proc, seconds, report or None)."""
    report_dir = os.path.join(tmp_dir, "reboot-report")
    report = os.path.join(report_dir, "report.json")
    if os.path.exists(report):
        os.unlink(report)
    variables = dict({"reboot_cluster_report_dir": report_dir}, **(extra_vars or {}))
    proc, seconds = playbook(REBOOT_PLAYBOOK, tmp_dir, variables, flags, timeout)
    data = json.load(open(report)) if os.path.exists(report) else None
    return proc, seconds, data


def boot_sessions():
    return {h: read_json("hosts", h, "volatile.json")["boot_session_uuid"] for h in lab_hosts()}


def boot_counts():
    return {h: read_json("hosts", h, "state.json")["boot"]["count"] for h in lab_hosts()}


def power_events(host, since):
    """[(epoch seconds, 'down'|'up')] from the host's launchd.log after `since` (second resolution)."""
    events = []
    with open(os.path.join(ROOT, "hosts", host, "log", "launchd.log")) as handle:
        for line in handle:
            match = _LOG_TIME.match(line)
            if not match:
                continue
            when = time.mktime(time.strptime(match.group(1), "%Y-%m-%dT%H:%M:%S"))
            if when < int(since):
                continue
            if "launchd exited" in line and "request=reboot" in line:
                events.append((when, "down"))
            elif "boot complete" in line:
                events.append((when, "up"))
    return events


__all__ = ["recap", "boot_sessions", "boot_counts", "power_events", "converge", "reboot", "lab_hosts", "exo_vars"]
