#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: benchmark_report
short_description: Write the benchmark's results, history, plots and report on the controller
version_added: 0.1.0
description:
  - Turns the links suite's iperf3 tests (M(macops.cluster.link_bench)), the allsum suite's runs and the generate
    suite's runs into the results document of C(docs/benchmark.schema.json) (version 1) and writes, into O(dest),
    C(benchmark.json) (the latest run), C(runs/ID.json) (every run), C(history.jsonl) (one line per run, appended),
    the plots C(links.png), C(allsum.png), C(generate.png) and, from the second run on, C(history.png) (drawn with
    matplotlib), C(index.html) and C(README.md).
  - Each all_sum size is the slowest rank's time per call, with the algorithm bandwidth (bytes / time) and the bus
    bandwidth (x 2 (n - 1) / n) in GB/s; a run that did not happen is C(bench_allsum_failed), a wrong sum or a missing
    rank C(bench_allsum_wrong_sum).
  - The hpl run is xhpl's report parsed (N, NB, P, Q, time, Gflops, the scaled residual and its check); no test is
    C(bench_hpl_failed), a failed residual check C(bench_hpl_residual_failed).
  - The exo run is exo_bench's JSON parsed, one result per placement and size (the mean of its repeats); no
    placement measured is C(bench_exo_failed), a request served from exo's prefix cache C(bench_exo_prefix_cache).
  - Each generate run is C(mlx_lm.benchmark)'s text output parsed (its trials and averages of prompt and generation
    tokens per second and peak memory); a run that printed no averages is C(bench_generate_failed).
  - Each cable and direction is the median of its repeats, judged against the baseline of the cables the cluster
    is built for (O(expected_cable)) less O(margin_percent); one below it is a
    C(bench_link_below_baseline) problem naming the probable cause the node facts show, a cable iperf3 could not
    measure is C(bench_link_failed).
  - Runs on the controller only; matplotlib must be installed there (C(requirements/controller.txt)).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
    details: Check mode writes nothing and returns the document it would write.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
requirements:
  - matplotlib (on the controller)
options:
  hosts:
    description: The nodes measured, in order.
    type: list
    elements: str
    required: true
  plan:
    description: What P(macops.cluster.benchmark_plan#filter) returned (C(cables), C(rounds), C(one_at_a_time)).
    type: dict
    required: true
  tests:
    description: Every test M(macops.cluster.link_bench) returned, of every node (its RV(macops.cluster.link_bench#module:tests)).
    type: list
    elements: dict
    default: []
  served:
    description:
      - Every server record M(macops.cluster.link_bench) returned, of every node (its
        RV(macops.cluster.link_bench#module:served)). A test whose client printed no figures takes its server's.
    type: list
    elements: dict
    default: []
  macs:
    description: Each node's C(macops_mac) (from M(macops.cluster.node_facts)), for the cable kinds and the causes.
    type: dict
    default: {}
  baselines:
    description: C(links) maps a cable kind (C(tb5), C(tb4)) to C(gbps) and C(source).
    type: dict
    default: {}
  margin_percent:
    description: How far below its baseline a cable may be before it is flagged, in percent (0 to below 100).
    type: float
    default: 15
  expected_cable:
    description:
      - The cables the cluster is built for, whose baseline every cable is judged against. A cable that negotiates
        less (40 Gb/s between Thunderbolt 5 Macs) is then the slow cable found, with C(tb4_cable) as its cause.
    type: str
    choices: [tb5, tb4]
    default: tb5
  settings:
    description: The suite's settings, recorded in the document (seconds, streams, repeats...).
    type: dict
    default: {}
  versions:
    description: Versions recorded in the document (iperf3 and others), name to version.
    type: dict
    default: {}
  run:
    description: Recorded as the document's C(run) (C(playbook), C(suites), C(started)); C(id) and C(finished) are added.
    type: dict
    default: {}
  allsum_runs:
    description:
      - The allsum suite's runs, the loop results of the task that ran C(allsum_bench.py) under C(mlx.launch) once per
        backend and size (C(item) is C([backend, bytes]), with C(rc), C(stdout) and C(stderr)); none when the suite did
        not run.
    type: list
    elements: dict
    default: []
  allsum_settings:
    description: The allsum suite's settings, recorded in the document.
    type: dict
    default: {}
  generate_runs:
    description:
      - The generate suite's runs, the loop results of the task that ran C(mlx_lm.benchmark) once per planned run
        (C(item) is the run P(macops.cluster.benchmark_plan#filter) planned, with C(rc), C(stdout) and C(stderr));
        none when the suite did not run.
    type: list
    elements: dict
    default: []
  generate_settings:
    description: The generate suite's settings, recorded in the document.
    type: dict
    default: {}
  hpl_run:
    description:
      - The hpl suite's run, the result of the task that ran C(mpirun ... xhpl) (C(rc), C(stdout), C(stderr)); empty when
        it did not run. Its plan (N, NB, grid, ranks) is O(plan)'s C(hpl).
    type: dict
    default: {}
  hpl_skipped:
    description: Why the hpl suite did not run (xhpl or mpirun missing); empty when it ran or was not asked for.
    type: str
    default: ""
  exo_run:
    description:
      - The exo suite's run, the result of the task that ran exo's C(bench/exo_bench.py --stdout) (C(rc), C(stdout) with
        its JSON document, C(stderr)); empty when it did not run.
    type: dict
    default: {}
  exo_skipped:
    description: Why the exo suite did not run (recorded in the document as the suite's C(skipped)); empty when it ran.
    type: str
    default: ""
  exo_settings:
    description: The exo suite's settings, recorded in the document.
    type: dict
    default: {}
  dest:
    description: The report directory on the controller.
    type: path
    required: true
  fail_on:
    description: Problem severities that fail the task, after every file is written.
    type: list
    elements: str
    choices: [error, warning]
    default: [error]
seealso:
  - module: macops.cluster.link_bench
"""

EXAMPLES = r"""
- name: Write the benchmark report
  macops.cluster.benchmark_report:
    hosts: "{{ ansible_play_hosts }}"
    plan: "{{ _benchmark_plan }}"
    tests: "{{ ansible_play_hosts | map('extract', hostvars, '_benchmark_link_tests') | flatten }}"
    served: "{{ ansible_play_hosts | map('extract', hostvars, '_benchmark_link_served') | flatten }}"
    baselines: "{{ benchmark_baselines }}"
    dest: artifacts/benchmark
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
path:
  description: The report directory.
  type: str
  returned: always
files:
  description: The files written, relative to RV(path).
  type: list
  elements: str
  returned: always
document:
  description: The results document (C(docs/benchmark.schema.json)).
  type: dict
  returned: always
problems:
  description: The document's problems, in the catalogue's shape.
  type: list
  elements: dict
  returned: always
lines:
  description: Where the report is, then one line per problem, for a person reading the run.
  type: list
  elements: str
  returned: always
history_runs:
  description: Runs in the history, this one included.
  type: int
  returned: always
"""
