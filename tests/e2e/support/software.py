"""Shared by the e2e tests of python_env, mlx, gpu_memory and exo: converge the software
playbook with some tags, read the facts the roles published, and parse the PLAY RECAP."""
import json
import os

# Re-exported for the software tests: one parser of Ansible's output for every e2e test.
from labtools import changed_task_names as changed_tasks, recap  # noqa: E402,F401

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


def lab_interpreter_vars():
    """python_env settings for an interpreter the lab's hosts already have (its CPython 3.12, the
    version the lab's wheelhouse is built for): the documented `path` source."""
    from labtools import read_json
    prefix = read_json("lab.json")["pythons"]["3.12"]
    return {"python_env_interpreter_source": "path", "python_env_interpreter_path": prefix + "/bin/python3.12"}


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

# The lab's stand-in for exo's API (the lab cannot run exo); tests copy it where they need it.
EXO_STANDIN_SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))), "lab", "macsim", "exo_standin.py")
