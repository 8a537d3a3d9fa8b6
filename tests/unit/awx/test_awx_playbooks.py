"""Each playbook run as an AWX job with one wrong survey answer fails in its first task, naming the variable,
with no host contacted: `ansible-playbook` for real, no lab and no network.

The inventory is the AWX example's (docs/awx/inventory/hosts.yml) with its addresses moved into
198.18.0.0/15 (no host answers there), over the ssh connection with a one-second timeout, and its
ssh program is a stand-in that only writes down that it was called and fails: so even a run that did
try to connect would reach no address, and the stand-in's log tells whether one tried. A run with
valid answers is the control that the stand-in notices a connection. One run per playbook (about two
seconds each).
"""
import json
import os
import re
import stat
import subprocess
import sys

import pytest
import yaml

import awx_rules

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
BIN = os.path.join(ROOT, ".venv", "bin") if os.path.isdir(os.path.join(ROOT, ".venv", "bin")) else os.path.dirname(
    sys.executable)
SURVEY_DIR = os.path.join(ROOT, "docs", "awx", "surveys")
RECAP = re.compile(r"^(?P<host>\S+)\s+: ok=(?P<ok>\d+)\s+changed=(?P<changed>\d+)\s+unreachable=(?P<unreachable>\d+)"
                   r"\s+failed=(?P<failed>\d+)", re.M)
# What the operator types where a survey has no default (deploy-model's source), and one wrong answer
# per playbook: a word where a number belongs, or a value outside the choices.
OPERATOR = {"deploy-model": {"deploy_model_source_host": "studio-1",
                             "deploy_model_source": "/Users/admin/staging/DeepSeek-V3.1-4bit"}}
WRONG = [
    ("site.yml", "macops_rdma_required", "sometimes"),
    ("reboot-cluster.yml", "reboot_cluster_batch_size", "abc"),
    ("benchmark.yml", "benchmark_links_repeats", "abc"),
    ("deploy-model.yml", "deploy_model_runtime", "vllm"),
    ("doctor.yml", "doctor_fail_on", "sometimes"),
]


def first_task(playbook):
    """The name of the playbook's first task: that of the input check its first play imports."""
    with open(os.path.join(ROOT, playbook)) as handle:
        target = yaml.safe_load(handle)[0]["ansible.builtin.import_playbook"]
    with open(os.path.join(ROOT, "playbooks", target.rsplit(".", 1)[-1] + ".yml")) as handle:
        first = yaml.safe_load(handle)[0]
    with open(os.path.join(ROOT, "playbooks", first["ansible.builtin.import_playbook"])) as handle:
        return yaml.safe_load(handle)[0]["tasks"][0]["name"]


def survey_answers(playbook):
    name = playbook[:-len(".yml")]
    with open(os.path.join(SURVEY_DIR, name + ".json")) as handle:
        values = awx_rules.ui_answers(json.load(handle))
    values.update(OPERATOR.get(name, {}))
    return values


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    base = tmp_path_factory.mktemp("awx-job")
    ssh_log = base / "ssh-called"
    fake_ssh = base / "ssh"
    fake_ssh.write_text("#!/bin/sh\necho \"$@\" >> '%s'\nexit 255\n" % ssh_log)
    fake_ssh.chmod(fake_ssh.stat().st_mode | stat.S_IXUSR)
    with open(os.path.join(ROOT, "docs", "awx", "inventory", "hosts.yml")) as handle:
        inventory = yaml.safe_load(handle)
    hosts = inventory["macs"]["hosts"]
    for index, host in enumerate(sorted(hosts), 1):
        hosts[host]["ansible_host"] = "198.18.255.%d" % index
    inventory["macs"]["vars"] = {"ansible_connection": "ssh", "ansible_ssh_timeout": 1,
                                 "ansible_ssh_executable": str(fake_ssh)}
    (base / "hosts.yml").write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCAL_TEMP=str(base / "tmp"), ANSIBLE_SSH_CONTROL_PATH_DIR=str(base / "cp"),
               PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
    env.pop("ANSIBLE_INVENTORY", None)

    def run(playbook, extra_vars):
        if ssh_log.exists():
            ssh_log.unlink()
        # As AWX runs a job: the credential's account as -u, the answers as extra vars (JSON).
        argv = [os.path.join(BIN, "ansible-playbook"), "-i", str(base / "hosts.yml"), "-u", "admin",
                os.path.join(ROOT, playbook), "-e", json.dumps(extra_vars)]
        proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                              env=env, cwd=str(base), timeout=120)
        return proc, ssh_log.exists(), sorted(hosts)
    return run


@pytest.mark.parametrize("playbook, variable, wrong", WRONG, ids=[case[0] for case in WRONG])
def test_a_wrong_survey_answer_fails_the_first_task_naming_it_with_no_host_contacted(job, playbook, variable, wrong):
    answers = survey_answers(playbook)
    assert variable in answers, "%s is not a question of %s's survey" % (variable, playbook)
    answers[variable] = wrong
    proc, ssh_called, hosts = job(playbook, answers)
    out = proc.stdout
    assert proc.returncode != 0, out[-3000:]
    # the first task is the only task that ran, and it failed on every host, naming the variable
    tasks = [line for line in out.splitlines() if line.startswith("TASK [")]
    assert len(tasks) == 1 and tasks[0].startswith("TASK [%s]" % first_task(playbook)), tasks
    assert sorted(re.findall(r"^fatal: \[(\S+)\]: FAILED!", out, re.M)) == hosts, out[-3000:]
    assert "%s = %s is refused" % (variable, json.dumps(wrong).replace('"', "'")) in out, out[-3000:]
    # ... and only it: every other answer, and the account AWX passes as -u, is valid
    assert "1 input problem (no node was contacted, nothing changed)" in out, out[-3000:]
    # nothing before it, nothing connected
    recap = dict((m.group("host"), m.groupdict()) for m in RECAP.finditer(out))
    assert sorted(recap) == hosts
    assert all((r["ok"], r["changed"], r["unreachable"], r["failed"]) == ("0", "0", "0", "1") for r in recap.values())
    assert "UNREACHABLE" not in out and not ssh_called


def test_the_control_valid_answers_pass_the_first_task_and_the_stand_in_sees_the_connection(job):
    proc, ssh_called, hosts = job("reboot-cluster.yml", survey_answers("reboot-cluster.yml"))
    out = proc.stdout
    tasks = [line for line in out.splitlines() if line.startswith("TASK [")]
    assert tasks[0].startswith("TASK [%s]" % first_task("reboot-cluster.yml")) and len(tasks) > 1, tasks
    assert proc.returncode != 0 and "UNREACHABLE" in out and ssh_called, out[-3000:]


def test_ansible_reads_the_awx_inventory_with_the_group_macs(job):
    proc = subprocess.run([os.path.join(BIN, "ansible-inventory"), "-i",
                           os.path.join(ROOT, "docs", "awx", "inventory", "hosts.yml"), "--list"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")), timeout=60)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert sorted(listed["macs"]["hosts"]) == ["studio-1", "studio-2", "studio-3", "studio-4"]
