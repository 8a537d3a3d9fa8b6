"""macops.cluster.check_result run by ansible-playbook: the result is registered also when the
task fails; warnings shown; only catalogue problems accepted."""
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
BIN = os.path.dirname(sys.executable)

PLAYBOOK = """
- name: check_result
  hosts: localhost
  gather_facts: false
  tasks:
    - name: A warning and an error, failing on errors
      macops.cluster.check_result:
        result:
          checks: [1, 2]
          problems:
            - "{{ 'disk_space_low' | macops.cluster.problem('mac2 is full.', host='mac2') }}"
            - "{{ 'filevault_on' | macops.cluster.problem('FileVault is on.', host='mac2', severity='warning') }}"
        fail_on: "{{ fail_on }}"
        what: mac2 cannot join the cluster
        warn: ["{{ note }}"]
      register: published
      ignore_errors: true

    - name: Keep what was registered
      ansible.builtin.copy:
        content: "{{ published | to_json }}"
        dest: "{{ out }}"
        mode: "0644"
"""

BAD = """
- name: check_result refuses a problem outside the catalogue
  hosts: localhost
  gather_facts: false
  tasks:
    - name: A stray problem
      macops.cluster.check_result:
        result:
          problems: [{code: not_a_code, message: x}]
"""


def run(tmp_path, playbook, *args):
    (tmp_path / "play.yml").write_text(playbook)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_LOCAL_TEMP=str(tmp_path / ".tmp"),
               ANSIBLE_HOME=str(tmp_path / ".ansible"), ANSIBLE_NOCOLOR="1")
    return subprocess.run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "play.yml"]
                          + list(args), cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120)


def test_failure_keeps_the_published_result_and_names_each_error(tmp_path):
    out = tmp_path / "published.json"
    proc = run(tmp_path, PLAYBOOK, "-e", json.dumps({"fail_on": "error", "note": "backend ring", "out": str(out)}))
    assert proc.returncode == 0, proc.stdout[-2000:]
    published = json.loads(out.read_text())
    assert published["failed"] is True and published["checks"] == [1, 2]
    assert [p["code"] for p in published["problems"]] == ["disk_space_low", "filevault_on"]
    assert published["msg"].startswith("mac2 cannot join the cluster: [disk_space_low] mac2 is full. Fix: ")
    assert "filevault_on" not in published["msg"]
    assert "[WARNING]: backend ring" in proc.stdout + proc.stderr
    assert "[filevault_on] mac2: FileVault is on." in proc.stdout + proc.stderr


def test_fail_on_never_only_publishes_and_warning_fails_on_warnings(tmp_path):
    out = tmp_path / "published.json"
    run(tmp_path, PLAYBOOK, "-e", json.dumps({"fail_on": "never", "note": "n", "out": str(out)}))
    assert "failed" not in json.loads(out.read_text()) or json.loads(out.read_text())["failed"] is False
    run(tmp_path, PLAYBOOK, "-e", json.dumps({"fail_on": "warning", "note": "n", "out": str(out)}))
    published = json.loads(out.read_text())
    assert published["failed"] is True and "[filevault_on]" in published["msg"]


def test_a_problem_outside_the_catalogue_is_refused(tmp_path):
    proc = run(tmp_path, BAD)
    assert proc.returncode != 0 and "not catalogue problems" in proc.stdout
