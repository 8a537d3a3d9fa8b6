# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.job_progress: wait for a task started with async (poll 0), showing the
progress file the job writes on the host, then return the job's own result (documentation:
plugins/modules/job_progress.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time
from shlex import quote

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.macops.cluster.plugins.plugin_utils._deploy_section import progress_line

display = Display()

ARGUMENT_SPEC = dict(
    job=dict(type="dict", required=True),
    progress_file=dict(type="str"),
    interval=dict(type="float", default=5.0),
    timeout=dict(type="int", default=14400),
)
# What async_status adds to the job's own result.
ASYNC_KEYS = ("ansible_job_id", "started", "finished", "results_file", "stdout", "stderr", "erased")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def _status(self, jid, task_vars, mode="status"):
        """The async_status module's answer (what ansible.builtin.async_status's action plugin asks, the job
        directory included, without its per-call setup)."""
        if self._async_dir is None:
            self._async_dir = self._remote_expand_user(self.get_shell_option("async_dir", default="~/.ansible_async"))
        return self._execute_module(module_name="ansible.legacy.async_status", task_vars=task_vars,
                                    module_args={"jid": jid, "mode": mode, "_async_dir": self._async_dir})

    def _progress(self, path):
        """The progress file's line, None when it is not there or not JSON yet (a raw read: no module run)."""
        found = self._low_level_execute_command("cat %s" % quote(path))
        if found.get("rc") != 0:
            return None
        try:
            return progress_line(json.loads(found.get("stdout") or ""))
        except ValueError:
            return None

    _async_dir = None

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        job = args["job"]
        jid = job.get("ansible_job_id")
        if not jid:  # the task ran to its end (check mode, or no async): its result is the result, and its
            result.update(job)  # change was counted by that task
            result["changed"] = False
            return result
        host = task_vars.get("inventory_hostname", "?")
        deadline, shown = time.time() + args["timeout"], None
        while True:
            status = self._status(jid, task_vars)
            if status.get("finished") or (status.get("failed") and not status.get("started")):
                break
            if time.time() > deadline:
                raise AnsibleActionFail("%s: the job %s is still running after %d s (job_progress timeout)" % (
                    host, jid, args["timeout"]))
            line = self._progress(args["progress_file"]) if args["progress_file"] else None
            if line and line != shown:
                display.display("%s: %s" % (host, line))
                shown = line
            time.sleep(args["interval"])
        self._status(jid, task_vars, mode="cleanup")
        result.update((key, value) for key, value in status.items() if key not in ASYNC_KEYS)
        return result
