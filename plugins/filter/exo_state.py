# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.exo_node_count: how many nodes an exo /state answer lists."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: exo_node_count
short_description: Count the nodes in exo's GET /state answer
version_added: 0.1.0
author: macops.cluster team
description:
  - exo (1.0.x) answers C(GET /state) with camelCase keys. The nodes it knows are the entries of
    C(topology.nodes) (a list, or a mapping keyed by node id); when that is missing, the keys of
    C(nodeIdentities) are counted instead.
  - Returns 0 for anything else (no answer, an error page), so a health check can compare counts.
options:
  _input:
    description: The parsed JSON of C(GET /state).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Check that exo sees every node
  ansible.builtin.assert:
    that: __state.json | macops.cluster.exo_node_count == groups['macs'] | length
"""

RETURN = r"""
_value:
  description: Number of distinct nodes.
  type: int
"""


from ansible_collections.macops.cluster.plugins.module_utils._exo_health import node_count


def exo_node_count(state):
    """The same count the macops.cluster.exo_health module uses."""
    return node_count(state)


class FilterModule(object):
    def filters(self):
        return {"exo_node_count": exo_node_count}
