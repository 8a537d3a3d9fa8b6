# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.benchmark_report: the benchmark's results document, its
history, plots and pages, written on the controller (documentation: plugins/modules/benchmark_report.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
import os

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_render import write_report
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import (
    build_document,
    history_entry,
    with_server_figures,
)
from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import write_file

ARGUMENT_SPEC = dict(
    hosts=dict(type="list", elements="str", required=True),
    plan=dict(type="dict", required=True),
    tests=dict(type="list", elements="dict", default=[]),
    served=dict(type="list", elements="dict", default=[]),
    macs=dict(type="dict", default={}),
    baselines=dict(type="dict", default={}),
    margin_percent=dict(type="float", default=15.0),
    expected_cable=dict(type="str", default="tb5", choices=["tb5", "tb4"]),
    settings=dict(type="dict", default={}),
    versions=dict(type="dict", default={}),
    run=dict(type="dict", default={}),
    allsum_runs=dict(type="list", elements="dict", default=[]),
    allsum_settings=dict(type="dict", default={}),
    generate_runs=dict(type="list", elements="dict", default=[]),
    generate_settings=dict(type="dict", default={}),
    hpl_run=dict(type="dict", default={}),
    hpl_skipped=dict(type="str", default=""),
    exo_run=dict(type="dict", default={}),
    exo_skipped=dict(type="str", default=""),
    exo_settings=dict(type="dict", default={}),
    dest=dict(type="path", required=True),
    fail_on=dict(type="list", elements="str", default=["error"], choices=["error", "warning"]),
)


def read_history(path):
    """The history's entries, oldest first; a line that is not JSON is skipped (a torn write)."""
    entries = []
    if os.path.exists(path):
        with open(path) as handle:
            for line in handle:
                try:
                    entries.append(json.loads(line))
                except ValueError:
                    continue
    return entries


def command_output(run):
    """{rc, stdout, stderr} of one command task result (a task that never started has only msg)."""
    return {"rc": run.get("rc", 1), "stdout": run.get("stdout", ""), "stderr": run.get("stderr") or run.get("msg", "")}


def allsum_by_backend(runs):
    """{backend: [{size, rc, stdout, stderr}]} from the sweep task's loop results (item: [backend, size])."""
    grouped = {}
    for run in runs:
        if run.get("skipped"):
            continue
        item = run.get("item") or [None, None]
        grouped.setdefault(str(item[0]), []).append(dict(command_output(run), size=item[1]))
    return grouped


def generate_outputs(runs):
    """[(run, {rc, stdout, stderr})] from the generate task's loop results (item: the planned run)."""
    return [(run["item"], command_output(run)) for run in runs
            if not run.get("skipped") and isinstance(run.get("item"), dict)]


def suite_input(run, skipped, settings):
    """A run-once suite's input to the document (exo, hpl): skipped with its reason, run, or not asked for."""
    if skipped:
        return {"skipped": skipped, "settings": settings}
    if run and not run.get("skipped"):
        return {"output": command_output(run), "settings": settings}
    return None


def hpl_plan(plan):
    """The hpl suite's plan as the document records it (its input file is HPL.dat's text)."""
    return dict(plan.get("hpl") or {})


def run_record(given, now):
    record = dict(given)
    record.setdefault("finished", now.strftime("%Y-%m-%dT%H:%M:%SZ"))
    record.setdefault("id", now.strftime("%Y%m%dT%H%M%SZ"))
    return record


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        if not 0 <= args["margin_percent"] < 100:
            raise AnsibleActionFail("benchmark_report: margin_percent = %s is refused: it must be at least 0 and "
                                    "below 100" % args["margin_percent"])
        now = datetime.datetime.now(datetime.timezone.utc)
        tests = with_server_figures(args["tests"], args["served"])
        document = build_document(run_record(args["run"], now), args["hosts"], args["plan"], tests,
                                  args["macs"], args["baselines"], args["margin_percent"], args["settings"],
                                  args["versions"], args["expected_cable"], allsum_by_backend(args["allsum_runs"]),
                                  args["allsum_settings"], generate_outputs(args["generate_runs"]),
                                  args["generate_settings"],
                                  suite_input(args["exo_run"], args["exo_skipped"], args["exo_settings"]),
                                  suite_input(args["hpl_run"], args["hpl_skipped"], hpl_plan(args["plan"])))
        root = os.path.realpath(args["dest"])
        history_path = os.path.join(root, "history.jsonl")
        history = read_history(history_path) + [history_entry(document)]
        files = ["benchmark.json", "runs/%s.json" % document["run"]["id"], "history.jsonl", "index.html", "README.md"]
        if not self._task.check_mode:
            os.makedirs(os.path.join(root, "runs"), exist_ok=True)
            try:
                images, page, markdown = write_report(root, document, history)
            except RuntimeError as exc:
                raise AnsibleActionFail("benchmark_report: %s" % exc)
            text = json.dumps(document, indent=2, sort_keys=True) + "\n"
            write_file(os.path.join(root, "benchmark.json"), text)
            write_file(os.path.join(root, "runs", "%s.json" % document["run"]["id"]), text)
            with open(history_path, "a") as handle:
                handle.write(json.dumps(history[-1], sort_keys=True) + "\n")
            write_file(os.path.join(root, "index.html"), page)
            write_file(os.path.join(root, "README.md"), markdown)
            files += [name for name, _caption in images]
        problems = document["problems"]
        failing = [p for p in problems if p["severity"] in args["fail_on"]]
        lines = ["Benchmark report%s: %s/index.html (%d cables, %d rounds; %d problems)" % (
            " (check mode: not written)" if self._task.check_mode else "", root, len(document["cluster"]["cables"]),
            document["suites"]["links"]["rounds"], len(problems))]
        lines += ["%s %s: %s" % (p["severity"].upper(), p["code"], p["message"]) for p in problems]
        result.update(changed=not self._task.check_mode, path=root, files=sorted(files), lines=lines,
                      problems=problems, document=document, history_runs=len(history))
        if failing:
            result.update(failed=True, msg="The benchmark found %d problem(s) of severity %s: %s. See %s/index.html." % (
                len(failing), "/".join(args["fail_on"]), ", ".join(sorted(set(p["code"] for p in failing))), root))
        return result
