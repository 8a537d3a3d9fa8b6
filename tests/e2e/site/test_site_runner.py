"""Issue 18, acceptance 3: site.yml, doctor.yml and an ad-hoc module call through
`ansible_runner.run`, as AWX runs a job: a private data directory laid out as AWX lays it out
(env/extravars with survey answers as strings, env/passwords answering the become prompt of a
machine credential, env/ssh_key through ssh-agent, env/envvars, env/cmdline, inventory/,
project/), against the session's converged lab. The assertions read what AWX reads: the per-host
stats from the runner's events, the job artifacts (set_stats with per_host false) from the stats
event, and the workflow's branch value (doctor.healthy) from them."""
import os
import shutil

import pytest
import yaml

import ansible_runner

from labtools import HOSTS, INVENTORY, REPO, VENV_BIN, maclab

# The AWX project: the repository's root playbooks (each imports the collection's playbook; AWX
# cannot pick a playbook from inside a collection), as a project sync checks them out.
PROJECT_PLAYBOOKS = ("site.yml", "doctor.yml", "update-macos.yml")
# The prompt a machine credential's become password answers (AWX passes --ask-become-pass).
BECOME_PROMPT = r"^BECOME password.*:\s*?$"
REPORT_TASK = "Write the JSON, HTML and Markdown report and the hostfiles on the controller"


def _awx_inventory(source_dir, target_dir):
    """The lab's inventory as an AWX inventory source gives it: the hosts and group_vars, without
    the connection secrets, which AWX takes from the machine credential (key and become password)."""
    shutil.copytree(os.path.join(source_dir, "group_vars"), os.path.join(target_dir, "group_vars"))
    secrets = {}
    # The volume owner's password comes from a credential too (its injector sets the extra var).
    group_vars = os.path.join(target_dir, "group_vars", "macs", "lab.yml")
    with open(group_vars) as handle:
        lab_vars = yaml.safe_load(handle)
    secrets["macos_update_owner_password"] = lab_vars.pop("macos_update_owner_password")
    with open(group_vars, "w") as handle:
        yaml.safe_dump(lab_vars, handle, default_flow_style=False)
    with open(os.path.join(source_dir, "hosts.yml")) as handle:
        inventory = yaml.safe_load(handle)
    path = os.path.join(target_dir, "hosts.yml")
    for group in inventory.get("all", {}).get("children", {}).values():
        variables = group.get("vars") or {}
        for key in ("ansible_ssh_private_key_file", "ansible_become_password"):
            if key in variables:
                secrets[key] = variables.pop(key)
        # The lab pins its key file (IdentitiesOnly); AWX offers the credential's key through
        # ssh-agent, which IdentitiesOnly would refuse to use.
        if "ansible_ssh_common_args" in variables:
            variables["ansible_ssh_common_args"] = variables["ansible_ssh_common_args"].replace(
                "-o IdentitiesOnly=yes", "").strip()
    with open(path, "w") as handle:
        yaml.safe_dump(inventory, handle, default_flow_style=False)
    return secrets


def _resolved_password(expression):
    """The lab's become password: its inventory reads it from a file (a lookup kept out of the file)."""
    path = expression.split("'")[-2] if "lookup(" in expression else None
    with open(path) as handle:
        return handle.read().strip()


@pytest.fixture(scope="module")
def job_dir(converged, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("awx-job"))
    os.makedirs(os.path.join(root, "project"))
    for name in PROJECT_PLAYBOOKS:
        shutil.copy(os.path.join(REPO, name), os.path.join(root, "project", name))
    secrets = _awx_inventory(os.path.dirname(INVENTORY), os.path.join(root, "inventory"))
    assert set(secrets) == {"ansible_ssh_private_key_file", "ansible_become_password",
                            "macos_update_owner_password"}, secrets
    password = _resolved_password(secrets["ansible_become_password"])
    os.makedirs(os.path.join(root, "env"))
    with open(secrets["ansible_ssh_private_key_file"]) as handle:
        key = handle.read()
    files = {
        "ssh_key": key,
        "passwords": {BECOME_PROMPT: password},
        "cmdline": "--ask-become-pass",
        # The execution environment has the collection installed; here it is this working tree.
        "envvars": {"ANSIBLE_COLLECTIONS_PATH": os.path.join(REPO, "collections"),
                    "ANSIBLE_HOST_KEY_CHECKING": "True", "ANSIBLE_GATHERING": "explicit",
                    "ANSIBLE_CALLBACK_RESULT_FORMAT": "yaml",
                    "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")},
        "settings": {"job_timeout": 900, "pexpect_timeout": 10},
    }
    for name, content in files.items():
        with open(os.path.join(root, "env", name), "w") as handle:
            handle.write(content if isinstance(content, str) else yaml.safe_dump(content))
    return {"dir": root, "password": password}


def run_job(job_dir, extravars, **kwargs):
    """One job, as AWX launches it: survey answers arrive as extra vars (strings for text answers)."""
    with open(os.path.join(job_dir["dir"], "env", "extravars"), "w") as handle:
        yaml.safe_dump(extravars, handle)
    return ansible_runner.run(private_data_dir=job_dir["dir"], quiet=True, **kwargs)


def stats_event(runner):
    return [event for event in runner.events if event.get("event") == "playbook_on_stats"][-1]["event_data"]


def per_host(stats, key):
    return dict((host, stats.get(key, {}).get(host, 0)) for host in HOSTS)


def artifacts_text(runner):
    """Everything the job left in its artifact directory (stdout, events, status), as AWX keeps it."""
    texts = []
    for base, _, names in os.walk(runner.config.artifact_dir):
        for name in names:
            with open(os.path.join(base, name), errors="replace") as handle:
                texts.append(handle.read())
    return "\n".join(texts)


def test_site_as_an_awx_job_changes_nothing_on_the_converged_lab_and_keeps_the_secrets_out(job_dir):
    runner = run_job(job_dir, {"preflight_min_free_disk_gb": "20"}, playbook="site.yml")
    stats = stats_event(runner)
    assert runner.status == "successful" and runner.rc == 0, runner.stdout.read()[-6000:]
    assert all(count > 0 for count in per_host(stats, "ok").values()), stats
    # Nothing changes on a node; the one change is the report, new in every job's fresh project
    # directory (AWX checks the project out per job), written on the controller.
    changed = set((event["event_data"]["host"], event["event_data"]["task"]) for event in runner.events
                  if event.get("event") == "runner_on_ok" and event["event_data"]["res"].get("changed"))
    assert changed == {("mac1", REPORT_TASK)}, changed
    assert per_host(stats, "failures") == dict((host, 0) for host in HOSTS), stats
    assert per_host(stats, "dark") == dict((host, 0) for host in HOSTS), stats
    # Runner's own summary agrees with the event AWX stores.
    assert runner.stats["ok"] == stats["ok"]
    # The machine credential's secrets are in no artifact of the job.
    assert job_dir["password"] not in artifacts_text(runner)


def test_doctor_as_an_awx_job_hands_the_workflow_its_branch_value(job_dir):
    healthy = run_job(job_dir, {"doctor_check_updates": "true", "doctor_fail_on": "error"}, playbook="doctor.yml")
    assert healthy.status == "successful", healthy.stdout.read()[-6000:]
    artifacts = stats_event(healthy)["artifact_data"]
    assert artifacts["doctor"]["healthy"] is True and artifacts["doctor"]["errors"] == 0, artifacts
    assert sorted(artifacts["doctor"]["hosts"]) == HOSTS
    maclab("fault", "disk-full", "mac3", "2G")
    try:
        sick = run_job(job_dir, {"doctor_fail_on": "error"}, playbook="doctor.yml")
    finally:
        maclab("fault", "clear")
    # The job fails (the workflow's failure branch: reboot-cluster.yml) and its artifacts say why.
    assert sick.status == "failed" and sick.rc != 0
    artifacts = stats_event(sick)["artifact_data"]["doctor"]
    assert artifacts["healthy"] is False and "disk_space_low" in artifacts["codes"], artifacts
    assert artifacts["hosts"]["mac3"]["errors"] >= 1 and artifacts["hosts"]["mac1"]["errors"] == 0, artifacts
    # What the workflow hands the next job as extra vars (AWX merges the artifacts into them): which
    # nodes need attention, none of them unreachable.
    assert artifacts["unreachable"] == [] and [h for h, c in artifacts["hosts"].items() if c["errors"]] == ["mac3"]


def test_an_ad_hoc_module_call_from_ci_reports_every_node(job_dir):
    runner = run_job(job_dir, {}, host_pattern="macs", module="macops.cluster.rdma_status", module_args="")
    assert runner.status == "successful", runner.stdout.read()[-4000:]
    results = dict((event["event_data"]["host"], event["event_data"]["res"]) for event in runner.events
                   if event.get("event") == "runner_on_ok")
    assert sorted(results) == HOSTS
    assert all(result["enabled"] is True and result["changed"] is False for result in results.values()), results


def test_update_macos_as_an_awx_job_keeps_the_owner_s_password_out_of_every_event(job_dir):
    """The password as a credential's injector hands it (an extra var): the plan checks it on every node (on
    diskutil's stdin), and no job event, stdout line or artifact of the job holds it."""
    runner = run_job(job_dir, {"macos_update_owner_password": job_dir["password"], "macos_update_strategy": "rolling"},
                     playbook="update-macos.yml", cmdline="--ask-become-pass --check")
    assert runner.status == "successful", runner.stdout.read()[-6000:]
    owner = [event for event in runner.events if event.get("event") == "runner_on_ok"
             and "authorize an update" in event["event_data"].get("task", "")]
    assert len(owner) == len(HOSTS)  # the task ran on every node, its password checked there
    assert job_dir["password"] not in artifacts_text(runner)
