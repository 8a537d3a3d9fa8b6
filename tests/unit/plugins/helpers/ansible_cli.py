"""Run ansible, ansible-playbook and ansible-doc as a person would, on this working tree's collection: in the
repository (run_ansible) or in a project directory of the test's (run_in_project), the JSON callback on."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.dirname(sys.executable)


def run_ansible(args, tmp_path):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(tmp_path),
               ANSIBLE_HOME=str(tmp_path), ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_NOCOLOR="1")
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)


def run_in_project(args, cwd, extra_env=None):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(cwd / ".tmp"),
               ANSIBLE_HOME=str(cwd / ".ansible"), ANSIBLE_STDOUT_CALLBACK="json",
               ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_NOCOLOR="1", **(extra_env or {}))
    return subprocess.run(args, cwd=str(cwd), env=env, capture_output=True, text=True, timeout=300)
