"""macops.cluster.problem: roles build the one problem shape, and an unregistered code fails the task."""
import json
import os
import subprocess
import sys

import jinja2
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.problem import FilterModule, problem_filter
from ansible_collections.macops.cluster.plugins.module_utils._problems import PROBLEM_KEYS, REGISTRY, is_problem


def test_a_code_with_message_and_where_gives_the_one_shape():
    found = problem_filter("tb_bridge_returned", "mac1: the bridge was back", host="mac1", port="bridge0")
    assert is_problem(found) and list(found) == list(PROBLEM_KEYS)
    assert (found["host"], found["port"], found["peer"]) == ("mac1", "bridge0", None)
    assert found["severity"] == "warning" and found["fix"] == REGISTRY["tb_bridge_returned"]["fix"]


def test_a_check_result_maps_to_its_problem_and_the_filter_s_options_win():
    check = {"name": "memory", "ok": False, "detail": "8 GiB", "code": "memory_too_small", "severity": "warning",
             "message": "mac2 has 8 GiB", "fix": "Add memory.", "port": ""}
    found = problem_filter(check, host="mac2", severity="error")
    assert is_problem(found)
    assert (found["code"], found["severity"], found["message"], found["fix"], found["host"], found["port"]) == \
        ("memory_too_small", "error", "mac2 has 8 GiB", "Add memory.", "mac2", None)


@pytest.mark.parametrize("value, kwargs, match", [
    ("tb_bridge_came_back", {"message": "m"}, "'tb_bridge_came_back' is not in the registry"),
    ("tb_bridge_returned", {"message": "m", "severity": "bad"}, "severity 'bad'"),
    ("tb_bridge_returned", {}, "needs a message"),
    ("", {"message": "m"}, "non-empty string"),
    ({"message": "no code"}, {}, "non-empty string"),
    ("tb_bridge_returned", {"message": "m", "details": "x"}, "must be a dict"),
])
def test_anything_but_a_registered_problem_fails(value, kwargs, match):
    with pytest.raises(AnsibleFilterError, match=match):
        problem_filter(value, **kwargs)


def test_map_over_failed_checks_in_a_template_as_the_roles_do():
    env = jinja2.Environment()
    env.filters.update(("macops.cluster." + name, f) for name, f in FilterModule().filters().items())
    results = [{"name": "disk", "ok": True, "code": "disk_space_low", "message": "fine"},
               {"name": "ssh", "ok": False, "code": "remote_login_off", "severity": "error",
                "message": "Remote Login is off", "fix": "Turn it on."}]
    expression = env.compile_expression("results | rejectattr('ok') | map('macops.cluster.problem', host=host) | list")
    (found,) = expression(results=results, host="mac3")
    assert found["code"] == "remote_login_off" and found["host"] == "mac3" and is_problem(found)
    assert found["message"] == "Remote Login is off" and found["fix"] == "Turn it on."


PLAYBOOK = """
- name: Problems the way the roles build them
  hosts: localhost
  gather_facts: false
  vars:
    checks:
      - {name: disk, ok: true, code: disk_space_low, severity: error, message: fine, fix: none}
      - name: ssh
        ok: "{{ 1 == 2 }}"
        code: remote_login_off
        severity: error
        message: "Remote Login is off on {{ inventory_hostname }}"
        fix: Turn it on.
  tasks:
    - name: Failed checks become problems (roles/preflight/tasks/checks.yml)
      ansible.builtin.set_fact:
        found: "{{ checks | rejectattr('ok') | map('macops.cluster.problem', host=inventory_hostname) | list }}"
    - name: Show them
      ansible.builtin.debug:
        var: found
    - name: An unregistered code fails the task
      ansible.builtin.set_fact:
        typo: "{{ 'tb_bridge_came_back' | macops.cluster.problem('m', host=inventory_hostname) }}"
"""


def test_roles_build_problems_with_the_filter_and_a_typo_fails_the_task(tmp_path):
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
    (tmp_path / "play.yml").write_text(PLAYBOOK)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(root, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(root, "collections"), ANSIBLE_LOCAL_TEMP=str(tmp_path / ".tmp"),
               ANSIBLE_HOME=str(tmp_path / ".ansible"), ANSIBLE_STDOUT_CALLBACK="json",
               ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_NOCOLOR="1")
    result = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,",
                             "-c", "local", "play.yml"], cwd=str(tmp_path), env=env, capture_output=True, text=True,
                            timeout=120)
    tasks = dict((t["task"]["name"], t["hosts"]["localhost"]) for t in json.loads(result.stdout)["plays"][0]["tasks"])
    (found,) = tasks["Show them"]["found"]
    assert is_problem(found) and (found["code"], found["host"], found["message"]) == \
        ("remote_login_off", "localhost", "Remote Login is off on localhost")
    assert result.returncode != 0 and tasks["An unregistered code fails the task"].get("failed") is True
    assert "'tb_bridge_came_back' is not in the registry" in tasks["An unregistered code fails the task"]["msg"]
