# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.port_labels: List every cable end as a Markdown table for port labels."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: port_labels
short_description: List every cable end as a Markdown table for port labels
version_added: 0.1.0
author: macops.cluster team
description:
  - One row per cable end, sorted by Mac and port, saying which port of which Mac goes to which
    port of which Mac, with the link speed and any problem codes; print it and stick the labels on
    the cables.
options:
  _input:
    description: The result of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Write the port labels
  ansible.builtin.copy:
    content: "{{ macops_topology | macops.cluster.port_labels }}"
    dest: "{{ macops_report_dir }}/port-labels.md"
    mode: "0644"
  delegate_to: localhost
"""

RETURN = r"""
_value:
  description: Markdown table with the columns Mac, Port, Goes to Mac, Port there, Speed, Problems.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._cabling_render import port_labels as render
from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error


@raises_filter_error
def port_labels(topology):
    return render(topology)


class FilterModule(object):
    def filters(self):
        return {"port_labels": port_labels}
