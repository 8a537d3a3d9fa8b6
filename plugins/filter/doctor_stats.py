# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: doctor_stats
short_description: The counts doctor.yml hands to AWX and CI, from every node's findings
version_added: 0.1.0
description:
  - Takes every node's C(macops_doctor) (P(macops.cluster.doctor_findings#filter)) and returns the cluster's
    counts per severity and per node, the problem codes found and whether the cluster is healthy, which
    doctor.yml hands to AWX with C(set_stats) (C(doctor), per_host false) and judges C(doctor_fail_on) by.
  - An unreachable node counts as one error, C(node_unreachable), as the health report derives it.
options:
  _input:
    description: Every node's C(macops_doctor).
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Count the findings for AWX
  ansible.builtin.set_stats:
    data:
      doctor: "{{ ansible_play_hosts | map('extract', hostvars, 'macops_doctor') | macops.cluster.doctor_stats }}"
    per_host: false
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(errors), C(warnings) and C(info) (counts), C(healthy) (no error and no warning), C(codes) (sorted),
      C(unreachable) (hosts), C(swept_at) (of the first node swept) and C(hosts) (per host C(reachable), C(errors),
      C(warnings) and C(codes)).
  type: dict
  sample: {"errors": 1, "warnings": 0, "info": 0, "healthy": false, "codes": ["rdma_disabled"], "unreachable": [],
           "swept_at": "2026-12-03T10:00:00Z", "hosts": {"mac1": {"reachable": true, "errors": 1, "warnings": 0,
                                                                  "codes": ["rdma_disabled"]}}}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_checks import cluster_stats
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import plain


def doctor_stats(results):
    """Counts per severity and per node, the codes found and the verdict, from every node's macops_doctor."""
    try:
        return cluster_stats([plain(result) for result in results])
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError("macops.cluster.doctor_stats: expects every node's macops_doctor (%s)" % exc)


class FilterModule(object):
    def filters(self):
        return {"doctor_stats": doctor_stats}
