"""Issue 11, acceptance 5: no log the end-to-end suite produced holds a secret: the lab's become
password, the token in the lab's pip index URL (lab/macsim/inventory.py puts one there), or the
tokens the reboot tests give the power hook (a header) and authrestart (a password), and the serving tests'
API key.

Runs after every other end-to-end test and before test_99_down.py (conftest.py orders it), so it
reads everything: Ansible's output of every run (ANSIBLE_LOG_PATH, set by labtools.ansible_env),
and the host logs (shim.log, exec.log, read.log, launchd.log, sshd.log) of every lab of the session,
which labtools.maclab archived before each `down` wiped them, plus those of the lab that is up.
make e2e runs it after its two streams (labs 0 and 1) over both streams' logs (labtools.LOG_ROOT). Run on
its own it first uses every secret once, so it never passes by having nothing to read."""
import glob
import json
import os

import labtools
from labtools import HOSTS, ROOT, log_lines, ssh

# Given by tests/e2e/reboot/test_reboot_cluster.py: a power hook's Authorization header and an
# authrestart password; by tests/e2e/serve/test_serve.py: the serving endpoint's API key.
TEST_SECRETS = {"power_hook_header_token": "s3cret-token", "filevault_password": "fv-unlock-secret",
                "serve_api_key": "sk-serve-e2e-secret", "serve_metrics_token": "scrape-e2e-token"}
STATE = "/Library/Application Support/macops"


def _secrets():
    """{secret: name} of every lab of the session and of the tests."""
    found = dict((value, name) for name, value in TEST_SECRETS.items())
    for path in glob.glob(os.path.join(labtools.LOG_ROOT, "**", "lab-*", "secrets.json"), recursive=True):
        with open(path) as handle:
            found.update((value, name) for name, value in json.load(handle).items() if value)
    found.update((value, name) for name, value in labtools.lab_secrets().items() if value)
    return found


def _logs():
    """Every log file of the session: archived labs, the lab that is up, Ansible's output."""
    paths = [p for p in glob.glob(os.path.join(labtools.LOG_ROOT, "**", "*"), recursive=True)
             if os.path.isfile(p) and os.path.basename(p) != "secrets.json"]
    paths += glob.glob(os.path.join(ROOT, "hosts", "*", "log", "*"))
    return paths


def _use_every_lab_secret(ansible):
    """become (sudo reads the password), and pip's index file (written with the token, no_log)."""
    ansible("macs", "ansible.builtin.command", "/usr/bin/id -u", become=True)
    ansible.playbook("""
- hosts: macs
  gather_facts: false
  tasks:
    - name: Read the facts python_env needs
      macops.cluster.node_facts:
        gather: [user]
    - name: Make the state directory python_env writes into (preflight's, on a fresh lab)
      ansible.builtin.file:
        path: "{{ macops_state_dir }}"
        state: directory
        mode: "0755"
      become: true
    - name: Write pip's index file as python_env does
      ansible.builtin.import_role:
        name: macops.cluster.python_env
        tasks_from: configure.yml
      vars:
        _python_env_interpreter_ok: false
""")


def test_no_log_of_the_suite_holds_a_secret(lab, ansible):
    _use_every_lab_secret(ansible)
    secrets = _secrets()
    names = set(secrets.values())
    assert {"become_password", "pip_index_token"} <= names, names
    # The secrets were in use: sudo asked for the password (no NOPASSWD rule covers `id`), and the
    # index file holds the token (read here, never printed).
    token = labtools.lab_secrets()["pip_index_token"]
    assert (":%s@" % token) in ssh("mac1", "cat '%s/pip.conf'" % STATE).stdout
    logs = _logs()
    assert os.path.join(labtools.LOG_DIR, "ansible.log") in logs
    assert [host for host in HOSTS if log_lines(host, "shim.log")]  # the lab's logs are there to read
    leaks = []
    for path in logs:
        with open(path, errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                leaks.extend("%s:%d has the %s" % (path, number, name) for secret, name in secrets.items()
                             if secret in line)
    assert not leaks, "\n".join(leaks[:20])
