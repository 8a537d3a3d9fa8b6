"""macops.cluster.node_python: the verdict on the interpreter's answer, and the action run by
ansible-playbook against fake interpreters (a real one, the Command Line Tools stub, an old one)."""
import json
import os
import subprocess
import sys

from ansible_collections.macops.cluster.plugins.action.node_python import interpreter, verdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.dirname(sys.executable)
STUB = ("xcode-select: note: No developer tools were found, requesting install.\n"
        "If developer tools are located at a non-default location on disk, use `sudo xcode-select --switch path`\n")


def test_interpreter_discovery_asks_the_system_python():
    assert interpreter(None, "auto_silent") == "/usr/bin/python3"
    assert interpreter(None, "/opt/homebrew/bin/python3.12") == "/opt/homebrew/bin/python3.12"
    assert interpreter("/usr/local/bin/python3", "/opt/x") == "/usr/local/bin/python3"


def test_verdicts():
    assert verdict("mac1", "/usr/bin/python3", 0, "3.9.6\n", "", "3.9") == ("3.9.6", None)
    version, failure = verdict("mac2", "/usr/bin/python3", 1, "", STUB, "3.9")
    assert version is None and failure.startswith("mac2: /usr/bin/python3 is only the Command Line Tools stub")
    assert "softwareupdate --list" in failure
    version, failure = verdict("mac3", "/usr/bin/python3", 0, "3.8.10\n", "", "3.9")
    assert version is None and "no Python 3.9 or later" in failure and "3.8.10" in failure
    assert verdict("mac4", "/x", 127, "", "sh: /x: not found", "3.9")[1].startswith("mac4: no Python 3.9")


PLAYBOOK = """
- name: node_python
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Ask
      macops.cluster.node_python:
        python: "{{ python }}"
      register: asked
      ignore_errors: true
    - name: Keep it
      ansible.builtin.copy:
        content: "{{ asked | to_json }}"
        dest: "{{ out }}"
        mode: "0644"
"""


def ask(tmp_path, python):
    (tmp_path / "play.yml").write_text(PLAYBOOK)
    out = tmp_path / "asked.json"
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(tmp_path / ".tmp"),
               ANSIBLE_HOME=str(tmp_path / ".ansible"), ANSIBLE_NOCOLOR="1")
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "play.yml",
                           "-e", json.dumps({"python": python, "out": str(out)}), "-e",
                           "ansible_python_interpreter=%s" % sys.executable],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    return json.loads(out.read_text())


def test_a_real_interpreter_passes(tmp_path):
    asked = ask(tmp_path, sys.executable)
    assert asked.get("failed") is not True and asked["version"] == "%d.%d.%d" % sys.version_info[:3]
    assert asked["problems"] == []


def test_the_command_line_tools_stub_is_named_with_the_fix(tmp_path):
    stub = tmp_path / "python3"
    stub.write_text("#!/bin/sh\nprintf '%s' >&2\nexit 1\n" % STUB.replace("`", "\\`").replace("'", ""))
    stub.chmod(0o755)
    asked = ask(tmp_path, str(stub))
    assert asked["failed"] is True and "Command Line Tools stub" in asked["msg"] and asked["version"] is None
    # The one problem shape, which the report reads from preflight's registered result.
    [found] = asked["problems"]
    assert (found["code"], found["severity"], found["message"]) == ("node_python_unusable", "error", asked["msg"])
