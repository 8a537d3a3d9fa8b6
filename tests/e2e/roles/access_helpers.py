"""What the access-role tests (preflight, sudoers, power, ssh_mesh, firewall) share: run
`playbooks/converge_access.yml` against the lab with the collection on the path, and read the
PLAY RECAP and the changed tasks out of Ansible's default output."""
import json
import os
import re
import subprocess
import tempfile

from labtools import INVENTORY, REPO, VENV_BIN, ansible_env

CONVERGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playbooks", "converge_access.yml")
# The lab has no pfctl (yet): the firewall role is exercised by test_firewall.py only where it exists.
WITHOUT_FIREWALL = ("--skip-tags", "firewall")

_RECAP = re.compile(r"^(?P<host>\S+)\s+:\s+ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+unreachable=(?P<unreachable>\d+)"
                    r"\s+failed=(?P<failed>\d+)\s+skipped=(?P<skipped>\d+)", re.M)
_TASK = re.compile(r"^TASK \[(?P<name>.*)\] \*+$")
_CHANGED = re.compile(r"^changed: \[(?P<host>[^\]]+)\]")


def run_playbook(playbook=CONVERGE, *extra, **kwargs):
    """ansible-playbook against the lab inventory; returns the CompletedProcess (never raises on rc)."""
    argv = [os.path.join(VENV_BIN, "ansible-playbook"), "-i", INVENTORY, playbook] + list(extra)
    with tempfile.TemporaryDirectory(prefix="access-") as tmp_dir:
        env = ansible_env(tmp_dir)
        env.update(kwargs.pop("env", {}))
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              env=env, timeout=kwargs.pop("timeout", 900), cwd=REPO)


def converge(*extra):
    """A converge that must succeed."""
    proc = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + extra))
    assert proc.returncode == 0, "converge failed (rc %d):\n%s\n%s" % (proc.returncode, proc.stdout[-8000:],
                                                                      proc.stderr[-2000:])
    return proc


def recap(stdout):
    """{host: {ok, changed, unreachable, failed, skipped}} from the PLAY RECAP."""
    return dict((m.group("host"), dict((k, int(m.group(k))) for k in ("ok", "changed", "unreachable", "failed",
                                                                     "skipped")))
                for m in _RECAP.finditer(stdout))


def changed_tasks(stdout):
    """{host: [task names that reported changed, in order]}; loop items count once per task."""
    found = {}
    task = None
    for line in stdout.splitlines():
        header = _TASK.match(line)
        if header:
            task = header.group("name")
            continue
        changed = _CHANGED.match(line)
        if changed and task is not None:
            names = found.setdefault(changed.group("host"), [])
            if not names or names[-1] != task:
                names.append(task)
    return found


def fact_dump_playbook(path, fact):
    """A playbook that runs preflight and writes `fact` of every host as JSON to `path` on the controller."""
    text = """---
- name: Check every node
  hosts: macs
  gather_facts: false
  roles:
    - role: macops.cluster.preflight
  post_tasks:
    - name: Save the fact
      ansible.builtin.copy:
        content: "{{ %s | to_json }}"
        dest: "%s.{{ inventory_hostname }}.json"
        mode: "0600"
      delegate_to: localhost
""" % (fact, path)
    playbook = path + ".yml"
    with open(playbook, "w") as handle:
        handle.write(text)
    return playbook


def read_host_json(path, host):
    with open("%s.%s.json" % (path, host)) as handle:
        return json.load(handle)
