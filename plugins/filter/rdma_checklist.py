# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.rdma_checklist: what a person does to make RDMA ready, line by line."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: rdma_checklist
short_description: The steps that make RDMA ready on every node, one line each
version_added: 0.1.0
author: macops.cluster team
description:
  - "From every node's M(macops.cluster.rdma_status) result, the lines the rdma role shows when RDMA
    is not ready everywhere - the Recovery steps once for all hosts with RDMA disabled (they need a
    person at each Mac), each other error as C(<host> [<port>]: [<code>] <message> FIX: <fix>), and
    last C(Not ready for RDMA: <hosts>) (C(none) when every node is ready)."
options:
  _input:
    description: "C({inventory_hostname: rdma_status result}), in the play's host order."
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Show what RDMA still needs
  ansible.builtin.debug:
    msg: "{{ dict(ansible_play_hosts | zip(ansible_play_hosts | map('extract', hostvars, 'macops_rdma')))
             | macops.cluster.rdma_checklist }}"
  run_once: true
"""

RETURN = r"""
_value:
  description: The lines, for people.
  type: list
  elements: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error


@raises_filter_error
def rdma_checklist(status_by_host):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._rdma_checklist import rdma_checklist as checklist
    return checklist(status_by_host)


class FilterModule(object):
    def filters(self):
        return {"rdma_checklist": rdma_checklist}
