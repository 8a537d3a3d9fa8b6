# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: doctor_topology
short_description: The Thunderbolt plan as doctor.yml's report shows it
version_added: 0.1.0
description:
  - Takes C(macops_topology) (the topology role's plan over the nodes doctor.yml swept) and keeps its cables,
    class and addresses with only the findings about the cables as they are (a Thunderbolt 4 cable, a dock, a
    peer that is no cluster node, the declared cabling), each on a swept node. The findings about a new plan
    (addresses, hostfiles, a pair without a cable in a ring) are not the doctor's.
  - A finding that names no peer, on a port the applied plan cables to a node that was not swept, is that
    node's (it has power but does not answer, C(node_not_answering)), not the swept node's. Give O(sweeps) and
    O(plan_file) to drop it.
  - The same findings are the doctor's C(cabling) check (P(macops.cluster.doctor_findings#filter)).
positional: _input, swept, sweeps, plan_file
options:
  _input:
    description: C(macops_topology).
    type: dict
    required: true
  swept:
    description: The inventory names of the nodes the sweep read.
    type: list
    elements: str
    required: true
  sweeps:
    description:
      - Every node's registered M(macops.cluster.node_facts) result, by inventory name; the applied plan is read from
        their C(files) reads of O(plan_file).
    type: dict
  plan_file:
    description: The applied Thunderbolt plan's path on the nodes (C(doctor_plan_file)).
    type: str
"""

EXAMPLES = r"""
- name: Write the doctor report with the cables the sweep found
  ansible.builtin.include_role:
    name: macops.cluster.report
  vars:
    report_topology: >-
      {{ macops_topology | macops.cluster.doctor_topology(['mac1', 'mac2'], _doctor_sweeps, doctor_plan_file) }}
"""

RETURN = r"""
_value:
  description: C(macops_topology) with C(problems) narrowed to the cable findings on swept nodes.
  type: dict
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_cabling import doctor_topology as narrow
from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_cabling import planned_peers
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import plain


def doctor_topology(topology, swept, sweeps=None, plan_file=None):
    if not isinstance(topology, Mapping):
        raise AnsibleFilterError("macops.cluster.doctor_topology: expects macops_topology (the topology role's plan)")
    if sweeps is not None and not isinstance(sweeps, Mapping):
        raise AnsibleFilterError("macops.cluster.doctor_topology: sweeps must map each node to its node_facts result")
    planned = planned_peers(plain(sweeps), str(plan_file)) if sweeps is not None and plan_file else None
    return narrow(plain(topology), [str(host) for host in swept], planned)


class FilterModule(object):
    def filters(self):
        return {"doctor_topology": doctor_topology}
