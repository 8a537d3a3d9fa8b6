"""What the access-role tests (preflight, sudoers, power, ssh_mesh, firewall) share: run
`playbooks/converge_access.yml` against the lab with the collection on the path, and read the
PLAY RECAP and the changed tasks out of Ansible's default output."""
import json
import os
import tempfile

import labtools
from labtools import REPO, changed_tasks, recap  # noqa: F401 (re-exported)

CONVERGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playbooks", "converge_access.yml")
# The lab has no pfctl (yet): the firewall role is exercised by test_firewall.py only where it exists.
WITHOUT_FIREWALL = ("--skip-tags", "firewall")

def run_playbook(playbook=CONVERGE, *extra, **kwargs):
    """ansible-playbook against the lab inventory from the repository root; returns the CompletedProcess
    (never raises on rc)."""
    with tempfile.TemporaryDirectory(prefix="access-") as tmp_dir:
        return labtools.run_playbook(playbook, *extra, workdir=tmp_dir, cwd=REPO, env=kwargs.pop("env", None),
                                     timeout=kwargs.pop("timeout", 900), check=False)


def converge(*extra):
    """A converge that must succeed."""
    proc = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + extra))
    assert proc.returncode == 0, "converge failed (rc %d):\n%s\n%s" % (proc.returncode, proc.stdout[-8000:],
                                                                      proc.stderr[-2000:])
    return proc


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
