# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.mlx_backend: the MLX backend the cluster can use, and why."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: mlx_backend
short_description: Choose the MLX backend from the topology plan and every node's RDMA readiness
version_added: 0.1.0
author: macops.cluster team
description:
  - C(jaccl) when the plan has a jaccl hostfile (a full mesh in which every pair's cable is free of
    errors) and RDMA is ready on every device it names; else C(jaccl-ring) on the same terms for
    the jaccl-ring hostfile (a ring of such cables); else C(ring) (TCP) when the plan has a ring
    hostfile; else none.
  - RDMA is ready on a device when the node's M(macops.cluster.rdma_status) result says RDMA is
    enabled, has no error that is not about one port, and the device's port is present,
    C(PORT_ACTIVE), has an IPv4 GID and no error about it (a TB4 link, the Mac Studio port next
    to Ethernet).
  - The planner never puts a cable that an error is about into a jaccl or jaccl-ring hostfile
    (P(macops.cluster.thunderbolt_topology#filter)), so neither does this choice.
positional: rdma
options:
  _input:
    description: The result of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
  rdma:
    description:
      - Every planned node's M(macops.cluster.rdma_status) result, by inventory name. A node
        missing here counts as not ready.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Choose the backend once every node's readiness is known
  ansible.builtin.set_fact:
    mlx_choice: "{{ macops_topology | macops.cluster.mlx_backend(rdma_by_host) }}"
  vars:
    rdma_by_host: "{{ dict(groups['macs'] | zip(groups['macs'] | map('extract', hostvars, 'macops_rdma'))) }}"
"""

RETURN = r"""
_value:
  description: The choice.
  type: dict
  contains:
    backend:
      description: C(jaccl), C(jaccl-ring), C(ring), or null when the cabling allows none.
      type: str
    reason:
      description: One sentence for people, naming the backend and why each better one was passed over.
      type: str
      sample: >-
        jaccl-ring over mac1 - mac3 - mac2 - mac4 - mac1: its cables are free of errors and RDMA is
        ready on every port it uses. No jaccl: No jaccl hostfile: jaccl needs every pair's cable free
        of errors, and one has an error: mac1 en3 (port 2) <-> mac2 en3 (port 2) (tb_link_tb4_speed).
    hostfiles:
      description: The backends whose hostfiles the nodes get (C(ring) whenever there is one, and the chosen one).
      type: list
      elements: str
    passed_over:
      description: C({backend, why}) for each backend tried before the chosen one.
      type: list
      elements: dict
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error


@raises_filter_error
def mlx_backend(topology, rdma):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_backend import choose_backend
    return choose_backend(topology, rdma)


class FilterModule(object):
    def filters(self):
        return {"mlx_backend": mlx_backend}
