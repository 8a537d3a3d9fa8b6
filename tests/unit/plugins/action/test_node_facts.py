"""macops.cluster.node_facts' action: with min_python the node's Python is asked over the bare connection first
(a Command Line Tools stub fails the task with node_python_unusable, and the module never runs); without it, or
with a usable Python, the module runs as it is. Run by ansible-playbook against localhost."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
STUB = "xcode-select: note: No developer tools were found, requesting install."

PLAYBOOK = """
- name: node_facts
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Read
      macops.cluster.node_facts:
        gather: [user]
        min_python: "{{ min_python | default(omit) }}"
      register: read
      ignore_errors: true
    - name: Keep it
      ansible.builtin.copy:
        content: "{{ read | to_json }}"
        dest: "{{ out }}"
        mode: "0644"
      delegate_to: localhost
      vars:
        ansible_python_interpreter: "{{ controller_python }}"
"""


def read(tmp_path, python, **extra):
    (tmp_path / "play.yml").write_text(PLAYBOOK)
    out = tmp_path / "read.json"
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(tmp_path / ".tmp"),
               ANSIBLE_HOME=str(tmp_path / ".ansible"), ANSIBLE_NOCOLOR="1")
    # The node's interpreter in the inventory, so that the task keeping the result can run the controller's.
    (tmp_path / "hosts").write_text("localhost ansible_connection=local ansible_python_interpreter=%s\n" % python)
    variables = dict(extra, out=str(out), controller_python=sys.executable)
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "hosts", "play.yml", "-e", json.dumps(variables)],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return json.loads(out.read_text())


def stub(tmp_path):
    path = tmp_path / "python3"
    path.write_text("#!/bin/sh\necho '%s' >&2\nexit 1\n" % STUB)
    path.chmod(0o755)
    return str(path)


def test_a_usable_python_is_asked_then_the_module_runs(tmp_path):
    found = read(tmp_path, sys.executable, min_python="3.9")
    assert found.get("failed") is not True, found
    assert found["ansible_facts"]["user_id"] and found["ansible_facts"]["user_dir"] and "problems" not in found


def test_the_command_line_tools_stub_fails_with_the_problem_before_any_module(tmp_path):
    found = read(tmp_path, stub(tmp_path), min_python="3.9")
    assert found["failed"] is True and "Command Line Tools stub" in found["msg"] and "ansible_facts" not in found
    [problem] = found["problems"]
    assert (problem["code"], problem["severity"], problem["message"]) == ("node_python_unusable", "error", found["msg"])


def test_a_python_older_than_min_python_fails(tmp_path):
    found = read(tmp_path, sys.executable, min_python="99.0")
    assert found["failed"] is True and "no Python 99.0 or later" in found["msg"]


def test_without_min_python_nothing_is_asked_first(tmp_path):
    # The stub is not asked: the module itself runs with it and fails as any module would.
    found = read(tmp_path, stub(tmp_path))
    assert found["failed"] is True and "problems" not in found
