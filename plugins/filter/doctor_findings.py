# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: doctor_findings
short_description: What doctor.yml decides about a node from its one sweep
version_added: 0.1.0
description:
  - Takes the node's registered M(macops.cluster.node_facts) sweep and its M(macops.cluster.node_python) check
    and returns the node's C(macops_doctor). A node that could not be reached, has no usable Python or did not
    finish in time gets that one finding instead of the checks.
  - The checks site.yml's preflight makes too (macOS version and build across nodes, memory, free disk,
    FileVault, Remote Login) are preflight's own (P(macops.cluster.preflight_checks#filter)); then every cable of the
    applied plan (pinged, routed), the Thunderbolt settings against that plan, the cables as the topology role
    judges them, RDMA readiness (where required, enabled or promised by a jaccl hostfile), the GPU wired limit
    against its LaunchDaemon, exo's health, exo's networksetup daemon, pending macOS updates, automatic macOS
    updates, sleep and auto-restart. docs/doctor.md lists each check with its source.
  - P(macops.cluster.doctor_stats#filter) counts every node's result for AWX and CI.
positional: _input, python_check, host, sweeps, settings
options:
  _input:
    description: The node's registered sweep (M(macops.cluster.node_facts) result; skipped or unreachable allowed).
    type: dict
    required: true
  python_check:
    description: The node's registered M(macops.cluster.node_python) result.
    type: dict
    required: true
  host:
    description: The node's inventory name.
    type: str
    required: true
  sweeps:
    description: Every node of the play mapped to its registered sweep, for the build check.
    type: dict
    required: true
  settings:
    description:
      - The limits (C(min_macos), C(require_same_build), C(min_memory_gb), C(min_free_disk_gb),
        C(filevault_allowed)), C(rdma_required), C(exo_expected) (exo missing is a problem), C(plan_file),
        C(topology_problems) (C(macops_topology)'s problems, for the cabling check), C(timeout) (the sweep's, for
        the message) and C(swept_at).
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Judge the sweep
  ansible.builtin.set_fact:
    macops_doctor: >-
      {{ __doctor_sweep | macops.cluster.doctor_findings(__doctor_python, inventory_hostname, _sweeps,
           {'rdma_required': true, 'exo_expected': true}) }}
"""

RETURN = r"""
_value:
  description:
    - C(host), C(reachable), C(swept), C(swept_at), C(checks) (name, ok, detail, code), C(problems) (catalogue
      problems) and C(summary) (one line).
  type: dict
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_checks import node_result
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import plain


def doctor_findings(sweep, python_check, host, sweeps, settings=None):
    if not isinstance(sweep, Mapping) or not isinstance(python_check, Mapping) or not isinstance(sweeps, Mapping):
        raise AnsibleFilterError("macops.cluster.doctor_findings: the sweep, the Python check and the sweeps must be "
                                 "registered results (run the doctor's node_python and node_facts first)")
    try:
        return node_result(str(host), plain(sweep), plain(python_check), plain(sweeps), plain(settings or {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("macops.cluster.doctor_findings: the sweep lacks %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"doctor_findings": doctor_findings}
