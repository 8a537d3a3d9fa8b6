# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.cluster_report: builds the report model and writes every
report file on the controller in one task (documentation: plugins/modules/cluster_report.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import shutil
import subprocess
from collections.abc import Mapping

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_section import (benchmark_document,
                                                                                    benchmark_section,
                                                                                    write_benchmark_files)
from ansible_collections.macops.cluster.plugins.plugin_utils._cabling_render import cabling_dot
from ansible_collections.macops.cluster.plugins.plugin_utils._deploy_section import deploy_section
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_section import serve_problems, serve_section
from ansible_collections.macops.cluster.plugins.plugin_utils._update_section import update_problems, update_section
from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import keep_run, report_files, write_file
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import (nodes_from_hostvars, plain,
                                                                                    problems_from_hostvars,
                                                                                    sections_from_hostvars)
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model, stats_of
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError

ARGUMENT_SPEC = dict(
    nodes=dict(type="dict", default={}),
    hosts=dict(type="list", elements="str", default=[]),
    topology=dict(type="dict", default={}),
    problems=dict(type="list", elements="dict", default=[]),
    title=dict(type="str", default="Mac cluster health"),
    run=dict(type="dict", default={}),
    dest=dict(type="path", required=True),
    graphviz=dict(type="bool", default=True),
    graphviz_timeout=dict(type="int", default=60),
    fail_on=dict(type="list", elements="str", default=[]),
    benchmark_report=dict(type="path"),
    count_as_change=dict(type="bool", default=True),
    write=dict(type="bool", default=True),
    keep=dict(type="int", default=0),
    deploy=dict(type="dict"),
    serve=dict(type="dict"),
    update=dict(type="dict"),
    benchmark=dict(type="dict"),
)
# Text files small enough that --diff shows them whole; HTML and SVG changes are listed by name.
DIFFABLE = (".json", ".md")


def _read(path):
    try:
        with open(path, "rb") as handle:
            return to_text(handle.read(), errors="surrogate_or_strict")
    except (IOError, OSError):
        return None


def render_graphviz(topology, timeout):
    """(svg or None, warning or None): Graphviz is optional, its absence is no failure."""
    if not topology.get("links"):
        return None, None
    dot = shutil.which("dot")
    if dot is None:
        return None, None
    try:
        proc = subprocess.run([dot, "-Tsvg"], input=cabling_dot(topology).encode("utf-8"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, "Graphviz dot did not render the cabling map (%s); the report has the built-in drawing only" % exc
    if proc.returncode != 0:
        return None, "Graphviz dot failed (rc %d: %s); the report has the built-in drawing only" % (
            proc.returncode, to_text(proc.stderr).strip()[:300])
    return to_text(proc.stdout), None


def report_inputs(args, task_vars):
    """(nodes, topology, problems, sections): with `hosts`, what those hosts' roles published (their
    variables, read here on the controller), then what the caller gave (a node given wins, its
    problems come after the roles'); the plan is the caller's or else macops_topology, with the
    rdma role's macops_mlx_backend as its mlx_backend; a section for each operation whose result
    those hosts hold (doctor, reboot)."""
    hosts = args["hosts"]
    if not hosts:
        return args["nodes"], args["topology"], args["problems"], []
    hostvars = task_vars.get("hostvars") or {}
    nodes = nodes_from_hostvars(hosts, hostvars, task_vars.get("ansible_play_hosts") or [])
    nodes.update(args["nodes"])
    topology = args["topology"] or task_vars.get("macops_topology") or {}
    choice = task_vars.get("macops_mlx_backend")
    if not args["topology"] and isinstance(choice, Mapping) and choice.get("backend") and "mlx_backend" not in topology:
        # The rdma role's one choice of backend (its own published result) shown with the plan.
        topology = dict(topology, mlx_backend=dict((key, choice.get(key)) for key in (
            "backend", "reason", "hostfiles", "passed_over") if key in choice))
    return (nodes, topology, problems_from_hostvars(hosts, hostvars) + args["problems"],
            sections_from_hostvars(hosts, hostvars, args["run"]))


def closing_lines(model, root, check_mode, write=True):
    """What a person reads at the end of the run: where the report is, then every error and
    warning with its host and fix (info problems stay in the report)."""
    counts = model["summary"]["problems"]
    where = "%s/index.html" % root if write else "not written"
    lines = ["Cluster report%s: %s verdict=%s (errors: %d, warnings: %d)" % (
        " (check mode: not written)" if check_mode and write else "", where, model["verdict"], counts["error"],
        counts["warning"])]
    for problem in model["problems"]:
        if problem["severity"] in ("error", "warning"):
            lines.append("%s %s: %s Fix: %s" % (problem["severity"].upper(), problem.get("host") or "cluster",
                                                problem["message"], problem["fix"]))
    return lines


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    @staticmethod
    def _benchmark(args, root, write):
        """benchmark.yml's run: its results document, its files beside the report (written unless ``write`` is
        false) and its section; {document, problems, history_runs, files, section}."""
        try:
            document = benchmark_document(plain(args["benchmark"]), list(args["hosts"]),
                                          datetime.datetime.now(datetime.timezone.utc))
            images, history_runs, names = write_benchmark_files(root, document, write)
        except (KeyError, TypeError, ValueError) as exc:
            raise AnsibleActionFail("cluster_report: benchmark is not the benchmark role's runs (%s)" % exc)
        except RuntimeError as exc:  # matplotlib missing
            raise AnsibleActionFail("cluster_report: %s" % exc)
        return {"document": document, "problems": document["problems"], "history_runs": history_runs,
                "files": names, "section": benchmark_section(document, images)}

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        nodes, topology, problems, sections = report_inputs(args, task_vars or {})
        try:
            if args["deploy"]:
                sections.append(deploy_section(plain(args["deploy"])))
        except (KeyError, TypeError, ValueError) as exc:
            raise AnsibleActionFail("cluster_report: deploy is not deploy-model.yml's placement and transfers (%s)"
                                    % exc)
        if args["serve"]:
            sections.append(serve_section(plain(args["serve"])))
            problems = problems + serve_problems(plain(args["serve"]))
        if args["update"]:
            sections.append(update_section(plain(args["update"])))
            problems = problems + update_problems(plain(args["update"]))
        run = dict(args["run"])
        root = os.path.realpath(args["dest"])
        write = args["write"]
        benchmark = None
        if args["benchmark"]:
            benchmark = self._benchmark(args, root, write and not self._task.check_mode)
            sections.append(benchmark.pop("section"))
            problems = problems + benchmark["problems"]
        if args["benchmark_report"] and os.path.exists(args["benchmark_report"]):
            # The latest benchmark (benchmark.yml), linked relative to this report.
            run["benchmark_report"] = os.path.relpath(os.path.realpath(args["benchmark_report"]), root)
        try:
            model = build_report_model(nodes, topology, problems, args["title"], run, sections)
        except TopologyError as exc:
            raise AnsibleActionFail("cluster_report: %s" % exc)
        svg, warning = render_graphviz(topology, args["graphviz_timeout"]) if args["graphviz"] and write else (None, None)
        files, stale = report_files(model, topology, svg) if write else ({}, [])

        changed, removed, diffs = [], [], []
        for name in sorted(files):
            path = os.path.join(root, name)
            before = _read(path)
            if before == files[name]:
                continue
            changed.append(name)
            if name.endswith(DIFFABLE):
                diffs.append({"before_header": path, "after_header": path, "before": before or "",
                              "after": files[name]})
            else:
                diffs.append({"prepared": "%s: %s" % (path, "changed" if before is not None else "created")})
            if not self._task.check_mode:
                write_file(path, files[name])
        for name in stale:
            path = os.path.join(root, name)
            if os.path.exists(path):
                removed.append(name)
                diffs.append({"prepared": "%s: removed" % path})
                if not self._task.check_mode:
                    os.unlink(path)

        if write and not self._task.check_mode:
            # The run's own copy beside the latest, as history: not managed state, so not a change.
            keep_run(root, files, args["keep"], datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ"))
        # A report that is new at every run (doctor.yml's carries the time of its sweep) is the run's
        # output, not managed state: with count_as_change false the run still reports changed=0.
        result.update(changed=bool(changed or removed) and args["count_as_change"], path=root, verdict=model["verdict"],
                      lines=closing_lines(model, root, self._task.check_mode, write),
                      section_lines=dict((entry["operation"], entry["summary"]) for entry in model["sections"]),
                      section_data=dict((entry["operation"], entry["data"]) for entry in model["sections"]),
                      stats=stats_of(model), summary=model["summary"], problem_codes=model["problem_codes"],
                      report=model, files=sorted(files), changed_files=changed, removed_files=removed)
        if benchmark is not None:
            result["benchmark"] = benchmark
        if warning:
            result["warnings"] = [warning]
        if self._task.diff and diffs:
            result["diff"] = diffs
        if model["verdict"] in args["fail_on"]:
            result.update(failed=True, msg="The cluster report's verdict is %s: %s.%s" % (
                model["verdict"], ", ".join(model["problem_codes"]), (" See %s/index.html." % root) if write else ""))
        return result
