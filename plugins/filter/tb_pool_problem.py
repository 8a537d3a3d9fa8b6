# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.tb_pool_problem: why a Thunderbolt address pool cannot serve a cluster."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: tb_pool_problem
short_description: Say why a Thunderbolt address pool cannot hold a full mesh of the cluster, or nothing
version_added: 0.1.0
author: macops.cluster team
description:
  - Checks, before any Mac is contacted, that the pool is an IPv4 network, that it holds one /30
    per cable of a full mesh of O(nodes) Macs (the most cables that cluster can have), and that no
    management address lies inside it (the Thunderbolt routes would capture management traffic).
  - Returns an empty string when the pool is usable, else one sentence with the reason.
positional: nodes, management_addresses
options:
  _input:
    description: The pool, such as C(192.168.200.0/22).
    type: str
    required: true
  nodes:
    description: How many Macs the cluster has.
    type: int
    required: true
  management_addresses:
    description: The management addresses (C(ansible_host)) of the Macs; names that are not IPv4 addresses are skipped.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Check the Thunderbolt address pool
  ansible.builtin.assert:
    that: _problem | length == 0
    fail_msg: "macops_tb_address_pool: {{ _problem }}"
  vars:
    _problem: "{{ macops_tb_address_pool | macops.cluster.tb_pool_problem(groups['macs'] | length) }}"
"""

RETURN = r"""
_value:
  description: Empty when the pool is usable, else the reason it is not.
  type: str
  sample: "198.19.0.0/29 holds 2 /30 subnets, a full mesh of 4 Macs has 6 cables"
"""

import ipaddress

from ansible_collections.macops.cluster.plugins.plugin_utils._tb_addressing import LINK_PREFIX, parse_pool
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError


def full_mesh_cables(nodes):
    return nodes * (nodes - 1) // 2


def tb_pool_problem(pool, nodes, management_addresses=()):
    try:
        network = parse_pool(pool)
    except TopologyError as exc:
        return str(exc)
    capacity = 2 ** (LINK_PREFIX - network.prefixlen)
    needed = full_mesh_cables(int(nodes))
    if capacity < needed:
        return "%s holds %d /%d subnets, a full mesh of %d Macs has %d cables" % (
            network, capacity, LINK_PREFIX, int(nodes), needed)
    inside = []
    for address in management_addresses or ():
        try:
            if ipaddress.IPv4Address(str(address)) in network:
                inside.append(str(address))
        except ValueError:
            continue
    if inside:
        return "%s contains the management address(es) %s" % (network, ", ".join(sorted(inside)))
    return ""


class FilterModule(object):
    def filters(self):
        return {"tb_pool_problem": tb_pool_problem}
