"""Issue 18, acceptance 3: site.yml, doctor.yml and an ad-hoc module call through
`ansible_runner.run`, as AWX runs a job: a private data directory laid out as AWX lays it out
(env/extravars with survey answers as strings, env/passwords answering the become prompt of a
machine credential, env/ssh_key through ssh-agent, env/envvars, env/cmdline, inventory/,
project/), against the session's converged lab. The assertions read what AWX reads: the per-host
stats from the runner's events, the job artifacts (set_stats with per_host false) from the stats
event, and the workflow's branch value (doctor.healthy) from them."""
import pytest

from awxjob import artifacts_text, awx_job_dir, run_job
from labtools import HOSTS, maclab

REPORT_TASK = "Write the JSON, HTML and Markdown report and the hostfiles on the controller"


@pytest.fixture(scope="module")
def job_dir(converged, tmp_path_factory):
    return awx_job_dir(str(tmp_path_factory.mktemp("awx-job")), ("site.yml", "doctor.yml", "update-macos.yml"))


def stats_event(runner):
    return [event for event in runner.events if event.get("event") == "playbook_on_stats"][-1]["event_data"]


def per_host(stats, key):
    return dict((host, stats.get(key, {}).get(host, 0)) for host in HOSTS)


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
