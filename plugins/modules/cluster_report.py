#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: cluster_report
short_description: Write the cluster health report (JSON, HTML, Markdown, cabling map, hostfiles) on the controller
version_added: 0.1.0
description:
  - Builds the report model (the content of C(report.json), docs/report.md, validated by docs/report.schema.json)
    from every node's results - the cluster's state (nodes, cables, software, problems) with its one verdict, and
    a section for each operation of the run (doctor, reboot, deploy, serve, benchmark) - and writes, in one task on the controller, the
    files a person or a CI job opens -
    C(report.json), C(index.html) (self-contained, with the cabling map inline), C(report.md),
    C(cabling.svg), C(cabling-graphviz.svg) when Graphviz C(dot) is installed, and
    C(hostfiles/<backend>.json) for each MLX backend the cabling allows.
  - A file is written only when its content differs, so an unchanged cluster reports C(changed=false).
    Files that no longer apply (a hostfile the cabling does not allow any more, a Graphviz drawing
    this run could not render) are removed, so nothing stale is left to mislead.
  - Runs on the controller only (an action plugin); it never contacts the host it runs for, so use
    it with C(run_once).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
  diff_mode:
    support: partial
    details: JSON and Markdown files are diffed whole; HTML and SVG files are named as created, changed or removed.
  platform:
    support: full
    platforms: posix
options:
  nodes:
    description:
      - "C({inventory_hostname: {mac, rdma, software, gpu, services, checks, reachable}}): C(mac) the C(mac)
        dict of M(macops.cluster.system_profiler), C(rdma) the result of M(macops.cluster.rdma_status), C(software)
        C({python, mlx, mlx_lm, exo}) version strings, C(gpu) C({wired_limit_mb, target_mb}), C(services)
        C({name: {running, pid, detail}}), C(checks) a list of C({name, ok, detail}) (optional C(code),
        C(severity), C(fix)), C(reachable) a bool. Any key may be missing (a node that failed early)."
      - With O(hosts), an entry given here replaces the one read for that host.
    type: dict
    default: {}
  hosts:
    description:
      - Inventory hosts whose published results the report reads itself, on the controller, from
        their variables (C(hostvars)), one node entry per host in this order - C(ansible_facts.macops_mac)
        (mac), C(macops_rdma) (rdma), C(macops_python_env.version), C(macops_mlx.mlx), C(macops_mlx.mlx_lm)
        and C(macops_exo.version) (software), C(macops_gpu) (gpu), C(macops_exo.running) and C(.detail)
        (services.exo), C(macops_preflight.checks) and the C(macops_mlx.smoke) test (checks); a host is
        reachable when it is still in the play or its facts were gathered.
      - doctor.yml's C(macops_doctor) (its checks, and RDMA, the wired limit, exo and the versions the sweep read where
        no role's result is) and reboot-cluster.yml's C(macops_reboot) (its checks, RDMA and the wired limit it read;
        a node that did not come back is not reachable) each add the operation's section.
      - The problems of C(macops_preflight), C(macops_tb_network), C(macops_sudoers), C(macops_mlx), C(macops_doctor)
        and C(macops_reboot) come first, each with its host, then O(problems). A problem the report would derive
        from a node's data (a failed check, a service down, the wired limit off) is not derived where a role
        reported it itself.
      - When O(topology) is empty, the plan is the C(macops_topology) of the host the task runs for.
      - Empty (the default), the report reads only O(nodes), O(topology) and O(problems).
    type: list
    elements: str
    default: []
  topology:
    description: The result of the macops.cluster.thunderbolt_topology filter; may be empty.
    type: dict
    default: {}
  problems:
    description:
      - Extra problems from other roles, each in the collection's one problem shape
        C({code, severity, host, port, peer, message, fix, details}) (C(macops.cluster.problem) builds it).
      - Anything else is reported as C(problem_unregistered).
    type: list
    elements: dict
    default: []
  title:
    description: Title of the report.
    type: str
    default: Mac cluster health
  run:
    description:
      - Information about the run shown in the page header, for example C({playbook, mode}).
      - Anything that changes every run (a timestamp) rewrites the files every run.
    type: dict
    default: {}
  dest:
    description: Directory on the controller for the report; made when missing. Relative to the current directory.
    type: path
    required: true
  graphviz:
    description: Render a second cabling drawing with Graphviz C(dot) when it is on the controller's PATH.
    type: bool
    default: true
  graphviz_timeout:
    description: Seconds C(dot) may take before the drawing is skipped with a warning.
    type: int
    default: 60
  benchmark_report:
    description: The latest benchmark report's page (benchmark.yml's C(index.html)); linked from the report when it exists.
    type: path
  count_as_change:
    description:
      - Whether writing the files counts as a change. False for a report that is new at every run (doctor.yml's carries
        the time of its sweep), so a read-only playbook still ends with C(changed=0); RV(changed_files) still lists them.
    type: bool
    default: true
  deploy:
    description:
      - deploy-model.yml's run, for its section - C(name), C(run_id), C(plan) and C(model) (the placement
        M(macops.cluster.model_shard) returned with C(state=plan)) and, once the files moved, C(deployment) (the
        P(macops.cluster.model_deployment#filter) transfer plan) and C(transfers) (each node's M(macops.cluster.model_shard)
        result by host, as M(macops.cluster.job_progress) published it).
      - The section shows the placement (one row per rank), then what each node received over which cable and how
        fast; its C(data) holds the placement and the deployment's record. Empty, no deploy section.
    type: dict
    version_added: 0.2.0
  serve:
    description:
      - serve-model.yml's run, for its section - C(state) (what the run asked), C(plan) (the
        P(macops.cluster.serve_plan#filter) plan), C(ready) and C(measured) (the endpoint's answers to the readiness
        and the timed completion, as M(ansible.builtin.uri) returned them) and C(status) (the leader supervisor's).
      - The section shows the endpoint, the model, its runtime and backend, each rank's layers, the time to ready and
        the first generation rate; a run that asked for the model and got no completion adds C(serve_not_ready). Empty, no
        serve section.
    type: dict
    version_added: 0.2.0
  update:
    description:
      - update-macos.yml's run, for its section - C(check_mode), C(plan) (the P(macops.cluster.macos_update_plan#filter)
        plan), C(results) (per node, M(macops.cluster.macos_update_wait)'s result or the recorded failure), C(times)
        (epoch seconds C(started), C(downloading), C(installing), C(installed), C(stops) and C(backs) (serving
        stopped for a wave, answering again between waves), C(done)), C(settings) (per node, the error of setting
        again what an update resets, or null), C(serving) (the served model's rank 0 configuration, or null),
        C(serve_answer) (the endpoint's answer after the update) and C(canary) (what the canary proved, from
        P(macops.cluster.macos_update_canary#filter), or null).
      - The section shows each node's old and new build, its outcome and wait, the times per phase, serving's
        downtime, the canary's verdict and where the cluster stands after a failure (C(macos_update_failed),
        C(macos_update_stalled), C(macos_update_settings_failed), C(macos_update_regression) and the canary's own
        check findings); a node restarted by the deadline adds C(macos_update_restarted_by_deadline). Empty, no
        update section.
    type: dict
    version_added: 0.2.0
  benchmark:
    description:
      - benchmark.yml's runs, for its section - C(plan) (the P(macops.cluster.benchmark_plan#filter) plan), C(tests)
        and C(served) (every M(macops.cluster.link_bench) client and server result), C(macs), C(baselines),
        C(margin_percent) (0 to below 100), C(expected_cable) (C(tb5) or C(tb4)), C(settings), C(versions), C(run)
        (C(id), C(finished), C(suites)), C(allsum_runs), C(allsum_settings), C(generate_runs), C(generate_settings),
        C(hpl_run), C(hpl_skipped), C(exo_run), C(exo_skipped), C(exo_settings), C(serve_run), C(serve_skipped) and
        C(serve_settings) (each suite's registered command results and settings).
      - The action judges them into the results document (docs/report.schema.json, C($defs/benchmark_results)) - every
        measurement with its unit, each cable against its baseline less the margin, the probable cause of a slow
        one. Its problems join the report's. Beside the report it writes C(benchmark.json), C(runs/<id>.json), one
        more line of C(history.jsonl) and the plots (matplotlib - C(links.png), C(allsum.png), C(generate.png),
        C(serve.png), C(history.png)), and the report gets the benchmark's section (one table per suite, the plots). Empty, no
        benchmark.
    type: dict
    version_added: 0.2.0
  write:
    description:
      - Whether to write the files. False builds the model all the same and returns the verdict, RV(stats) and
        RV(section_lines), so a run with its report turned off still has its one verdict.
    type: bool
    default: true
    version_added: 0.2.0
  keep:
    description:
      - Also copy this run's C(report.json), C(report.md) and C(index.html) to C(history/TIME/) in O(dest) and keep the
        newest this many runs there (an AWX job's or a nightly sweep's report is otherwise overwritten by the next).
        The copies are history, not a change. V(0) keeps none.
    type: int
    default: 0
    version_added: 0.2.0
  fail_on:
    description: Verdicts (C(degraded), C(failed)) that fail the task once the report is written.
    type: list
    elements: str
    default: []
seealso:
  - plugin: macops.cluster.thunderbolt_topology
    plugin_type: filter
"""

EXAMPLES = r"""
- name: Write the cluster report
  macops.cluster.cluster_report:
    nodes: "{{ report_nodes }}"
    topology: "{{ macops_topology }}"
    dest: artifacts/report
    fail_on: [failed]
  run_once: true

- name: Judge what the roles published on the macs, without writing a file
  macops.cluster.cluster_report:
    hosts: "{{ groups['macs'] }}"
    dest: artifacts/report
    write: false
  register: judged
  run_once: true

- name: Hand the one verdict's counts to AWX
  ansible.builtin.set_stats:
    data:
      cluster: "{{ judged['stats'] }}"
    per_host: false
  run_once: true
"""

RETURN = r"""
path:
  description: Absolute path of the report directory.
  returned: always
  type: str
verdict:
  description: C(healthy), C(degraded) or C(failed).
  returned: always
  type: str
summary:
  description: Counts of nodes, reachable nodes, RDMA-ready nodes, cables, the topology class and problems per severity.
  returned: always
  type: dict
problem_codes:
  description: Sorted distinct problem codes, for CI and AWX gates.
  returned: always
  type: list
  elements: str
report:
  description: The whole report model, the content of C(report.json).
  returned: always
  type: dict
stats:
  description:
    - What a run hands AWX and CI with C(set_stats), from the one verdict - C(verdict), C(healthy) (no error and no
      warning), C(errors), C(warnings) and C(info) (counts), C(codes) (sorted), C(unreachable) (hosts), C(started)
      (the run's start, O(run)'s C(started)) and C(hosts) (per host C(reachable), C(errors), C(warnings), C(codes)).
  returned: always
  type: dict
  sample: {"verdict": "failed", "healthy": false, "errors": 1, "warnings": 0, "info": 0, "codes": ["rdma_disabled"],
           "unreachable": [], "started": "2026-12-03T10:00:00Z",
           "hosts": {"mac1": {"reachable": true, "errors": 1, "warnings": 0, "codes": ["rdma_disabled"]}}}
section_lines:
  description: Each operation's section's summary lines (one per node), by operation, for the run's output.
  returned: always
  type: dict
  sample: {"reboot": ["mac1: OK, back after 41 s", "mac2: OK, back after 43 s"]}
benchmark:
  description: With O(benchmark), the results document (C(document)), its C(problems), C(history_runs) and C(files).
  returned: when O(benchmark) is given
  type: dict
section_data:
  description:
    - Each operation's section's C(data) by operation (docs/report.md), for the playbook's own use - reboot-cluster.yml
      hands C(reboot)'s C(nodes) to AWX with C(set_stats).
  returned: always
  type: dict
lines:
  description:
    - What a person reads at the end of a run - the report's path and verdict, then one line per
      error and warning with its host and fix.
  returned: always
  type: list
  elements: str
files:
  description: Every file the report consists of, relative to O(dest).
  returned: always
  type: list
  elements: str
changed_files:
  description: The files written (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
removed_files:
  description: Stale files removed (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
"""
