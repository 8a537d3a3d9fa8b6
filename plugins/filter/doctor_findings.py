# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: doctor_findings
short_description: What doctor.yml decides about every node from its one sweep
version_added: 0.1.0
description:
  - Takes every node's registered M(macops.cluster.node_facts) sweep and M(macops.cluster.node_python) check, and
    returns each node's C(macops_doctor) and the cables as the report shows them, in one pass over the cluster -
    what the nodes share (their hardware, the applied plan's peers, the cabling check) is computed once per run.
    A node that could not be reached, has no usable Python or did not finish in time gets that one finding
    instead of the checks.
  - The checks site.yml's preflight makes too (macOS version and build across nodes, memory, free disk,
    FileVault, Remote Login) are preflight's own (P(macops.cluster.preflight_checks#filter)); then every cable of the
    applied plan (pinged, routed), the Thunderbolt settings against that plan, the cables as the topology role
    judges them, RDMA readiness (where required, enabled or promised by a jaccl hostfile), the GPU wired limit
    against its LaunchDaemon, exo's health, exo's networksetup daemon, pending macOS updates, automatic macOS
    updates, sleep and auto-restart. docs/doctor.md lists each check with its source.
  - Versions that differ between nodes, the counts and the verdict are the report's
    (M(macops.cluster.cluster_report)), computed once from every node's findings.
positional: _input, python_checks, topology, settings
options:
  _input:
    description: Every node of the play mapped to its registered sweep (skipped or unreachable allowed).
    type: dict
    required: true
  python_checks:
    description: Every node of the play mapped to its registered M(macops.cluster.node_python) result.
    type: dict
    required: true
    version_added: 0.2.0
  topology:
    description:
      - C(macops_topology), the topology role's plan over the swept nodes; its findings about the cables as they are
        are the C(cabling) check, and a cable lit toward a node that was not swept is that node's finding.
    type: dict
    required: true
    version_added: 0.2.0
  settings:
    description:
      - The limits (C(min_macos), C(require_same_build), C(min_memory_gb), C(min_free_disk_gb),
        C(filevault_allowed)), C(rdma_required), C(exo_expected) (exo missing is a problem), C(plan_file),
        C(pins), C(firewall) (C(plist), the firewall role's LaunchDaemon, and C(pf_by_host), every node mapped to
        its own M(macops.cluster.pf_status) result, or null when the check is off), C(mlx_smoke), C(mlx_smoke_host),
        C(timeout) (the sweep's, for the message) and C(swept_at).
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Judge every node's sweep
  ansible.builtin.set_fact:
    __doctor_judged: >-
      {{ _sweeps | macops.cluster.doctor_findings(_python_checks, macops_topology,
           {'rdma_required': true, 'exo_expected': true}) }}
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(nodes), each node's C(macops_doctor) by inventory name - C(host), C(reachable), C(swept), C(swept_at),
      C(checks) (name, ok, detail, code), C(problems) (catalogue problems) and C(summary) (one line); with
      C(rdma), C(gpu), C(software) and C(exo) as the sweep read them, where the report shows a role's result.
    - C(topology), C(macops_topology) with C(problems) narrowed to the findings about the cables as they are, each
      on a swept node.
  type: dict
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError


def doctor_findings(sweeps, python_checks, topology, settings=None):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_checks import cluster_findings
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import plain
    if not all(isinstance(value, Mapping) for value in (sweeps, python_checks, topology)):
        raise AnsibleFilterError("macops.cluster.doctor_findings: the sweeps and the Python checks must map each node "
                                 "to its registered result, and the topology must be macops_topology (run the "
                                 "doctor's node_python and node_facts, and the topology role's plan, first)")
    try:
        return cluster_findings(plain(sweeps), plain(python_checks), plain(topology), plain(settings or {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("macops.cluster.doctor_findings: a sweep lacks %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"doctor_findings": doctor_findings}
