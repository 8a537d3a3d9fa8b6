# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.thunderbolt_topology: the whole Thunderbolt plan from every node's facts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: thunderbolt_topology
short_description: Plan the Thunderbolt cluster from every Mac's facts
version_added: 0.1.0
author: macops.cluster team
description:
  - Finds the cables between the Macs, the shape they form, what is wrong with them and how to fix
    it, a stable /30 address plan per cable and the MLX hostfiles for the C(ring), C(jaccl) and
    C(jaccl-ring) backends.
  - Two ports are joined by a cable when each port's C(peer.domain_uuid) is the other port's own
    C(domain_uuid), the rule MLX and exo use. A port whose peer does not point back is reported as
    C(tb_link_asymmetric) and not used.
  - Pure function of its arguments, runs on the controller, and gives the same plan for the same
    facts. See C(docs/topology.md) in the collection for every rule and problem code.
positional: pool, declared, previous, min_link_gbps
options:
  _input:
    description:
      - "C({inventory_hostname: {mac: ..., ssh: ..., control_ip: ...}}) for every node."
      - C(mac) is the C(mac) dict returned by M(macops.cluster.system_profiler)
        (C(thunderbolt_ports), C(model_name), C(macos_build) and so on).
      - C(ssh) is the name C(mlx.launch) uses to reach the node (defaults to the inventory name);
        C(control_ip) is its management IPv4 address (C(ansible_host)), the JACCL coordinator.
    type: dict
    required: true
  pool:
    description:
      - IPv4 network the cable subnets are taken from, one /30 per cable.
      - An invalid network or one with too few /30 subnets for the cables fails with an error
        naming the pool.
    type: str
    default: 198.19.0.0/16
  declared:
    description:
      - The cabling the owner intends, a list of C({a, a_port, b, b_port}).
      - A port is a receptacle number (C(3), C("port 3"), C("Thunderbolt 3")) or an interface
        (C(en4)).
      - When given, every difference is a C(tb_cabling_differs) problem with the exact fix, and
        pairs left out of it are not reported as missing mesh pairs (severity C(info)).
    type: list
    elements: dict
  previous:
    description:
      - "The plan a former run returned (whole topology, its C(addresses) or C(addresses.links)),
        or the addresses seen on the Macs as C({link_id or host:interface: subnet or ip/prefix})."
      - Cables found there keep their subnet; new cables take the lowest free /30 of O(pool).
        Without it, subnets are handed out in canonical cable order.
    type: dict
  min_link_gbps:
    description:
      - Slowest acceptable link; slower cables are C(tb_link_tb4_speed) errors. TB5 Mac-to-Mac
        links run at 80 Gb/s, TB4/TB3 at 40 Gb/s.
    type: int
    default: 80
"""

EXAMPLES = r"""
# Each Mac registered the result of macops.cluster.system_profiler as `__profile`.
- name: Collect every Mac's facts for the planner
  ansible.builtin.set_fact:
    __nodes: >-
      {{ __nodes | default({}) | combine({item: {'mac': hostvars[item].__profile.mac, 'ssh': item,
                                                 'control_ip': hostvars[item].ansible_host}}) }}
  loop: "{{ groups['macs'] }}"
  run_once: true

- name: Plan the cluster, keeping the subnets of the last plan
  ansible.builtin.set_fact:
    macops_topology: >-
      {{ __nodes | macops.cluster.thunderbolt_topology(pool=macops_tb_address_pool,
                                                       declared=macops_tb_cabling | default(none),
                                                       previous=__previous_plan | default({})) }}
  run_once: true

- name: Stop when the cabling has errors
  ansible.builtin.assert:
    that: macops_topology.problems | selectattr('severity', 'equalto', 'error') | list | length == 0
    fail_msg: "{{ macops_topology.problems | selectattr('severity', 'equalto', 'error')
                  | map(attribute='message') | list }}"

- name: The address of this Mac's cable ports
  ansible.builtin.debug:
    var: macops_topology.addresses.hosts[inventory_hostname]
"""

RETURN = r"""
_value:
  description: The plan.
  type: dict
  contains:
    hosts:
      description: One summary per node in canonical (natural) name order.
      type: list
      elements: dict
    links:
      description:
        - Cables in canonical order; C(id) is C(host:interface--host:interface), end C(a) sorting first.
        - Each end is C({host, receptacle, interface, bus}); also C(speed_gbps) (slower end) and
          C(tb5) (speed of at least 80 Gb/s).
      type: list
      elements: dict
    class:
      description: C(full_mesh), C(ring), C(line), C(partial), C(single) or C(none).
      type: str
    ring_order:
      description:
        - The ring the hostfiles use, a cycle through every node starting at the first node, of
          preferred cables that no error is about (RDMA-capable ones first); for the C(ring)
          hostfile alone, failing that, of cables whose only errors say they cannot carry RDMA
          (C(tb_link_tb4_speed), C(tb_port_next_to_ethernet)). C(null) when there is none. Two
          cabled nodes form a ring, as in MLX.
      type: list
      elements: str
    neighbours:
      description: "C({host: [hosts it has a cable to]})."
      type: dict
    ring_neighbours:
      description: "C({host: {left, right}}) along RV(_value.ring_order); empty without a ring."
      type: dict
    problems:
      description:
        - "The one problem shape C({code, severity, host, port, peer, message, fix, details}); severity is
          C(error), C(warning) or C(info); C(details.link_id) names the cable, when there is one."
        - Codes include tb_link_tb4_speed, tb_port_next_to_ethernet, tb_duplicate_cable,
          tb_mesh_missing_pair, tb_cabling_differs, tb_peer_unknown, tb_link_asymmetric,
          mlx_ring_unavailable, mlx_jaccl_unavailable (see docs/topology.md). The macOS build is judged by
          preflight (macops.cluster.preflight_checks), before the plan.
      type: list
      elements: dict
    addresses:
      description:
        - "C(pool); C(links) as C({link_id: {subnet, a_ip, b_ip}}); C(hosts) as
          C({host: {interface: {ip, prefix, netmask, peer_ip, peer_host, link_id}}})."
      type: dict
    hostfiles:
      description:
        - "C({ring, jaccl, jaccl-ring}), each an MLX hostfile dict C({backend, envs, hosts}) or
          C(null) when the cabling does not allow that backend (a problem says why)."
        - No hostfile uses a cable that an error-severity problem is about; the C(ring) hostfile
          alone may use one whose only errors say it cannot carry RDMA (TCP runs over it).
      type: dict
    min_link_gbps:
      description: The O(min_link_gbps) the plan was checked against.
      type: int
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error
from ansible_collections.macops.cluster.plugins.plugin_utils._tb_addressing import DEFAULT_POOL


@raises_filter_error
def thunderbolt_topology(nodes, pool=DEFAULT_POOL, declared=None, previous=None, min_link_gbps=80):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology
    return build_topology(nodes, pool=pool, declared=declared, previous=previous, min_link_gbps=min_link_gbps)


class FilterModule(object):
    def filters(self):
        return {"thunderbolt_topology": thunderbolt_topology}
