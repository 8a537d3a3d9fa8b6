# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: benchmark_plan
short_description: The benchmark's rounds of cables, from the applied Thunderbolt plan
version_added: 0.1.0
description:
  - Takes the applied Thunderbolt plan (the C(hosts) of C(thunderbolt-plan.json), which the thunderbolt_network
    role writes on every node) and returns its cables once each and the rounds that measure them.
  - No node is in two tests of one round, and there are as few rounds as the search finds (at best the most
    cables at one node), an edge colouring of the cabling; a full mesh of 4 takes 3 rounds, a ring of 8 takes 2.
  - In each test the end whose inventory name sorts first is the iperf3 client.
  - With O(models), it also plans the generate suite's runs, and each model missing on a node (no C(config.json) in the
    node facts' O(model_files)) is a problem found before any suite runs.
positional: _input, hosts, repeats, allsum_min_bytes, allsum_max_bytes
options:
  _input:
    description: The applied plan's C(hosts) (host, then interface, then C(ip), C(link_id), C(peer_host), C(peer_ip)).
    type: dict
    required: true
  hosts:
    description: Only cables whose two ends are among these hosts (the play's); all when omitted.
    type: list
    elements: str
  repeats:
    description: How many times the schedule runs every round (each iperf3 server serves one test).
    type: int
    default: 1
  allsum_min_bytes:
    description: The all_sum sweep's smallest message.
    type: int
    default: 4096
  allsum_max_bytes:
    description: The all_sum sweep's largest message; the sizes go up 4 times from the smallest.
    type: int
    default: 67108864
  models:
    description: The generate suite's model directories (the same path on every node).
    type: list
    elements: str
    default: []
  model_files:
    description:
      - Each node's C(files) from M(macops.cluster.node_facts) (host, then path, then C(exists) and C(json)), which
        holds each model's C(config.json).
    type: dict
    default: {}
  generate_backend:
    description: The MLX backend of the runs across the nodes (null when no hostfile offers one).
    type: str
  generate_single:
    description: Plan each model's run on the first node alone.
    type: bool
    default: true
  generate_pipeline:
    description: Plan each model's run pipelined across every node.
    type: bool
    default: true
  generate_tensor:
    description: Plan each model's run tensor parallel across every node (every node holds every layer's files).
    type: bool
    default: false
    version_added: 0.2.0
  hpl:
    description: Plan the hpl suite's run, from O(macs).
    type: bool
    default: false
  hpl_memory_fraction:
    description: The share of the smallest node's memory HPL's matrix fills on every node.
    type: float
    default: 0.75
  hpl_nb:
    description: HPL's block size.
    type: int
    default: 256
  hpl_n:
    description: HPL's problem size; 0 sizes it from memory.
    type: int
    default: 0
  hpl_ranks_per_node:
    description: MPI ranks per node; 0 is the smallest node's performance cores.
    type: int
    default: 0
  macs:
    description: Each node's C(macops_mac) (memory and cores, for O(hpl)), returned as C(macs) for the report.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Plan the rounds of cables
  ansible.builtin.set_fact:
    _benchmark_links_plan: "{{ _applied_plan['hosts'] | macops.cluster.benchmark_plan(ansible_play_hosts) }}"
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(cables), each cable once (C(link_id), C(a), C(b), C(a_port), C(b_port), C(a_ip), C(b_ip)).
    - C(rounds), lists of tests (C(round), C(link_id), C(client), C(server), C(client_ip), C(server_ip), C(client_port),
      C(server_port)).
    - C(schedule), the rounds O(repeats) times, each test with its C(repeat).
    - C(one_at_a_time), the number of tests one cable at a time would take.
    - C(allsum_sizes), the all_sum sweep's message sizes in bytes.
    - C(generate), the generate suite's runs (C(model), C(name), C(model_type), C(layers), C(nodes), C(hosts),
      C(mode) single, pipeline or tensor, C(backend)), in order.
    - C(macs), O(macs) as given (the report's node facts).
    - C(hpl), the hpl run (C(hosts), C(slots), C(ranks), C(p), C(q), C(n), C(nb), C(matrix_bytes), C(hpl_dat) the input
      file), or null.
    - C(problems), what stops the generate or hpl suite before anything runs (C(bench_model_missing) and
      C(bench_generate_failed) in the problem catalogue's shape).
  type: dict
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError


def _model_configs(models, model_files):
    """{host: {model: its config.json's content, or None}} from each node's files facts."""
    configs = {}
    for host, files in (model_files or {}).items():
        files = files if isinstance(files, Mapping) else {}
        configs[str(host)] = dict(
            (model, (files.get(model.rstrip("/") + "/config.json") or {}).get("json")) for model in models)
    return configs


def benchmark_plan(plan, hosts=None, repeats=1, allsum_min_bytes=4096, allsum_max_bytes=67108864, models=None,
                   model_files=None, generate_backend=None, generate_single=True, generate_pipeline=True,
                   generate_tensor=False, hpl=False,
                   hpl_memory_fraction=0.75, hpl_nb=256, hpl_n=0, hpl_ranks_per_node=0, macs=None):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._bench_generate import generate_plan
    from ansible_collections.macops.cluster.plugins.plugin_utils._bench_hpl import HplError, hpl_dat, hpl_plan
    from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import allsum_sizes, links_plan
    if not isinstance(plan, Mapping):
        raise AnsibleFilterError("macops.cluster.benchmark_plan: the applied plan's hosts must be a dict, got %s"
                                 % type(plan).__name__)
    names = None if hosts is None else [str(h) for h in hosts]
    models = [str(m) for m in models or []]
    try:
        result = dict(links_plan(dict(plan), names, int(repeats)),
                      allsum_sizes=allsum_sizes(int(allsum_min_bytes), int(allsum_max_bytes)))
    except PlanError as exc:
        raise AnsibleFilterError("macops.cluster.benchmark_plan: %s" % exc)
    runs, problems = generate_plan(models, _model_configs(models, model_files), names or sorted(model_files or {}),
                                   generate_backend or None, bool(generate_single), bool(generate_pipeline),
                                   bool(generate_tensor))
    result.update(generate=runs, problems=problems, hpl=None, macs=dict(macs or {}))
    if hpl:
        try:
            result["hpl"] = hpl_plan(names or sorted(macs or {}), dict(macs or {}), float(hpl_memory_fraction),
                                     int(hpl_nb), int(hpl_ranks_per_node), int(hpl_n))
            result["hpl"]["hpl_dat"] = hpl_dat(result["hpl"])
        except HplError as exc:
            problems.append(problem("bench_hpl_failed", "HPL cannot be planned: %s" % exc,
                                    host=(names or [None])[0]))
    return result


class FilterModule(object):
    def filters(self):
        return {"benchmark_plan": benchmark_plan}
