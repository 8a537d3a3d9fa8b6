# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.cluster_report_model: the cluster health report's data, with a verdict."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: cluster_report_model
short_description: Build the cluster health report (data and verdict) from every node's results
version_added: 0.1.0
author: macops.cluster team
description:
  - Joins what the other roles collected into one report, the content of C(report.json) -
    nodes, versions, cables with speeds and addresses, RDMA state, hostfiles and every problem
    with its fix, sorted errors first.
  - The verdict is C(failed) when any problem is an error (or there are no nodes), C(degraded)
    when any is a warning, otherwise C(healthy). Info problems do not change it.
  - Any key of a node may be missing (a node that failed early); its data is then null and shown
    as "not checked". Problems seen twice (the planner and C(rdma_status) both see a slow cable)
    are reported once.
  - Pure function; C(fingerprint) hashes everything except O(run), so equal fingerprints mean an
    unchanged cluster. See C(docs/report.md) for the schema.
positional: topology, problems, title, run
options:
  _input:
    description:
      - "C({inventory_hostname: {mac, rdma, software, gpu, services, checks, reachable}})."
      - "C(mac) is the C(mac) dict of M(macops.cluster.system_profiler); C(rdma) the result of
        M(macops.cluster.rdma_status); C(software) C({python, mlx, mlx_lm, exo}) version strings;
        C(gpu) C({wired_limit_mb, target_mb}); C(services) C({name: {running, pid, detail}});
        C(checks) a list of C({name, ok, detail}) (optional C(code), C(severity), C(fix));
        C(reachable) a bool."
    type: dict
    required: true
  topology:
    description: The result of P(macops.cluster.thunderbolt_topology#filter); may be empty.
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
      - "Information about the run, for example C({playbook, started, finished, ansible_version,
        check_mode}). Stored as given under C(run) and shown in the page header."
      - Anything that changes every run (a timestamp) changes the report files, so a rerun is no
        longer C(changed=0); leave it out when that matters.
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Build the report
  ansible.builtin.set_fact:
    __report_model: >-
      {{ report_nodes | macops.cluster.cluster_report_model(macops_topology, report_problems,
                                                            run={'playbook': 'site.yml'}) }}
  delegate_to: localhost
  run_once: true

- name: Gate CI on the verdict
  ansible.builtin.assert:
    that: __report_model.verdict != 'failed'
    fail_msg: "{{ __report_model.problem_codes }}"
"""

RETURN = r"""
_value:
  description: The report model (C(report.json)).
  type: dict
  contains:
    schema_version:
      description: Version of this layout; bumped on incompatible changes.
      type: int
    verdict:
      description: C(healthy), C(degraded) or C(failed).
      type: str
    summary:
      description: Counts of nodes, reachable nodes, RDMA-ready nodes, cables, the topology class and
        problems per severity.
      type: dict
    problem_codes:
      description: Sorted distinct problem codes, for CI and AWX gates.
      type: list
      elements: str
    problems:
      description:
        - "The one problem shape C({code, severity, host, port, peer, message, fix, details}) (see
          C(docs/problems.md)), errors first, then warnings, then info."
        - "C(details.source) is C(topology), C(rdma), C(node), C(check) or C(report); C(details.link_id)
          names the cable, when there is one."
      type: list
      elements: dict
    nodes:
      description: One entry per node in natural name order; unknown parts are null.
      type: list
      elements: dict
    topology:
      description: C(class), C(ring_order), C(links) (with ports, speed, subnet, problem codes),
        C(missing_pairs) and C(hostfiles) (per backend C(available), C(path), C(hosts), C(hostfile)).
      type: dict
    run:
      description: O(run) as given.
      type: dict
    fingerprint:
      description: sha256 of the model without C(run).
      type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model


@raises_filter_error
def cluster_report_model(report_nodes, topology=None, problems=None, title=None, run=None):
    return build_report_model(report_nodes, topology, problems, title, run)


class FilterModule(object):
    def filters(self):
        return {"cluster_report_model": cluster_report_model}
