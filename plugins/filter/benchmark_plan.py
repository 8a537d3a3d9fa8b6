# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: benchmark_plan
short_description: The benchmark's rounds of cables, from the applied Thunderbolt plan
version_added: 0.4.0
description:
  - Takes the applied Thunderbolt plan (the C(hosts) of C(thunderbolt-plan.json), which the thunderbolt_network
    role writes on every node) and returns its cables once each and the rounds that measure them.
  - No node is in two tests of one round, and there are as few rounds as the search finds (at best the most
    cables at one node), an edge colouring of the cabling; a full mesh of 4 takes 3 rounds, a ring of 8 takes 2.
  - In each test the end whose inventory name sorts first is the iperf3 client.
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
  type: dict
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import PlanError, allsum_sizes, links_plan


def benchmark_plan(plan, hosts=None, repeats=1, allsum_min_bytes=4096, allsum_max_bytes=67108864):
    if not isinstance(plan, Mapping):
        raise AnsibleFilterError("macops.cluster.benchmark_plan: the applied plan's hosts must be a dict, got %s"
                                 % type(plan).__name__)
    try:
        return dict(links_plan(dict(plan), None if hosts is None else [str(h) for h in hosts], int(repeats)),
                    allsum_sizes=allsum_sizes(int(allsum_min_bytes), int(allsum_max_bytes)))
    except PlanError as exc:
        raise AnsibleFilterError("macops.cluster.benchmark_plan: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"benchmark_plan": benchmark_plan}
