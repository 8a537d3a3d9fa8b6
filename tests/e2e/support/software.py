"""Shared by the e2e tests of python_env, mlx, gpu_memory and exo: converge the software
playbook with some tags, read the facts the roles published, and parse the PLAY RECAP."""
import json
import os
import re

PLAYBOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "roles", "playbooks",
                        "converge_software.yml")
SUPPORT = os.path.dirname(os.path.abspath(__file__))
# The lab mounts /Users, /Library and /opt/homebrew per host but not /opt, so the default
# /opt/macops/venv would be one directory shared by every simulated Mac.
LAB_VARS = {"macops_venv_path": "/Users/Shared/macops/venv"}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(SUPPORT)))
# The shared `ansible` fixture copies os.environ when it is created and its ansible.cfg names no
# collections path: point Ansible at this working tree (as the repo's ansible.cfg does) first.
os.environ.setdefault("ANSIBLE_COLLECTIONS_PATH", os.path.join(REPO, "collections"))
os.environ.setdefault("ANSIBLE_INJECT_FACT_VARS", "false")
RECAP = re.compile(r"^(\S+)\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def converge(ansible, tmp_path, tags, extra_vars=None, check=True, flags=()):
    """Run converge_software.yml; return (proc, {host: published facts}, {host: recap counts})."""
    report = str(tmp_path / ("report-%s.json" % "-".join(tags)))
    if os.path.exists(report):
        os.unlink(report)
    variables = dict(LAB_VARS, converge_report=report, **(extra_vars or {}))
    proc = ansible.playbook(open(PLAYBOOK).read(), check=check,
                            extra=["--tags", ",".join(tags), "-e", json.dumps(variables)] + list(flags))
    facts = json.load(open(report)) if os.path.exists(report) else {}
    return proc, facts, recap(proc.stdout)


def recap(stdout):
    return {m.group(1): {"ok": int(m.group(2)), "changed": int(m.group(3)), "unreachable": int(m.group(4)),
                         "failed": int(m.group(5))} for m in RECAP.finditer(stdout)}


def changed_tasks(stdout):
    """Names of the tasks that reported `changed` on any host, in order."""
    names, current = [], None
    for line in stdout.splitlines():
        if line.startswith("TASK ["):
            current = line[6:line.rindex("]")]
        elif line.startswith("changed:") and current and current not in names:
            names.append(current)
    return names
