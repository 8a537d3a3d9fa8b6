"""macops.cluster.job_progress: waits for an async job, shows each new line of its progress file once, returns
the job's own result without async_status' keys, cleans the job up; a result without a job id is returned at
once; a job past the timeout fails naming it."""
import json
from unittest import mock

import pytest

from ansible.errors import AnsibleActionFail

from ansible_collections.macops.cluster.plugins.action import job_progress
from ansible_collections.macops.cluster.plugins.action.job_progress import ActionModule


def action(**args):
    task = mock.MagicMock()
    task.args = args
    task.action = "macops.cluster.job_progress"
    task.check_mode = False
    task.async_val = 0
    return ActionModule(task, mock.MagicMock(), mock.MagicMock(), loader=None, templar=None, shared_loader_obj=None)


def snapshot(done):
    return json.dumps({"bytes_done": done, "bytes_total": 100000000, "bytes_per_second": 10000000, "file": "a"})


def run(module, statuses, progress, clock=None):
    """statuses: async_status results in order; progress: what each `cat` of the progress file prints."""
    asked, shown = [], []
    statuses, progress = list(statuses), list(progress)

    def execute_module(module_name, module_args, task_vars):
        assert module_args["_async_dir"] == "/Users/admin/.ansible_async"
        asked.append((module_name, module_args["mode"]))
        return statuses.pop(0) if module_args["mode"] == "status" else {"erased": "x"}

    def low_level(command):
        text = progress.pop(0) if progress else ""
        return {"rc": 0 if text else 1, "stdout": text}

    with mock.patch.object(module, "_execute_module", side_effect=execute_module), \
            mock.patch.object(module, "get_shell_option", return_value="~/.ansible_async"), \
            mock.patch.object(module, "_remote_expand_user", return_value="/Users/admin/.ansible_async"), \
            mock.patch.object(module, "_low_level_execute_command", side_effect=low_level), \
            mock.patch.object(job_progress.display, "display", side_effect=shown.append), \
            mock.patch.object(job_progress.time, "sleep"), \
            mock.patch.object(job_progress.time, "time", side_effect=clock or (lambda: 0.0)):
        result = module.run(task_vars={"inventory_hostname": "mac2"})
    return result, asked, shown


RUNNING = {"started": 1, "finished": 0, "ansible_job_id": "j1"}


def test_it_shows_each_new_progress_line_once_and_returns_the_job_s_result():
    done = {"started": 1, "finished": 1, "ansible_job_id": "j1", "results_file": "/x", "changed": True,
            "bytes_received": 100000000, "stdout": "", "stderr": ""}
    module = action(job={"ansible_job_id": "j1", "started": 1, "finished": 0}, progress_file="/m/.p.json")
    result, asked, shown = run(module, [RUNNING, RUNNING, RUNNING, done],
                               [snapshot(10000000), snapshot(10000000), snapshot(60000000)])
    assert shown == ["mac2: 10.0 MB of 100.0 MB (10%), 10.0 MB/s, about 9 s left; now a",
                     "mac2: 60.0 MB of 100.0 MB (60%), 10.0 MB/s, about 4 s left; now a"]
    assert result["changed"] is True and result["bytes_received"] == 100000000
    assert not set(result) & {"ansible_job_id", "finished", "results_file", "started"}
    assert asked[-1] == ("ansible.legacy.async_status", "cleanup")


def test_a_failed_job_is_a_failed_result():
    failed = {"started": 1, "finished": 1, "ansible_job_id": "j1", "failed": True, "msg": "2 file(s) could not be pulled"}
    result, _asked, shown = run(action(job=dict(RUNNING)), [failed], [])
    assert result["failed"] is True and "could not be pulled" in result["msg"] and shown == []


def test_a_result_without_a_job_is_returned_at_once_and_not_counted_again():
    result, asked, _shown = run(action(job={"changed": True, "would_pull": ["a"]}), [], [])
    assert asked == [] and result["would_pull"] == ["a"] and result["changed"] is False


def test_a_job_past_the_timeout_fails_naming_the_host_and_the_job():
    ticks = iter([0.0, 0.0, 30.0, 61.0, 62.0])
    with pytest.raises(AnsibleActionFail, match="mac2: the job j1 is still running after 60 s"):
        run(action(job=dict(RUNNING), timeout=60), [RUNNING] * 5, [], clock=lambda: next(ticks))
