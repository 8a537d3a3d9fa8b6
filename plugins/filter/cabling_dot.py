# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.cabling_dot: Draw the Thunderbolt cabling as a Graphviz DOT graph."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: cabling_dot
short_description: Draw the Thunderbolt cabling as a Graphviz DOT graph
version_added: 0.1.0
author: macops.cluster team
description:
  - 'One box per Mac (name, model) and one edge per cable, labelled like
    C(en3 \(port 2\) <-> en4 \(port 3\), 80 Gb/s).'
  - Cables with a warning or error problem are drawn red and dashed and name their problem codes.
  - Render it with C(dot -Tsvg) (package graphviz).
options:
  _input:
    description: The result of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Draw the cabling
  ansible.builtin.copy:
    content: "{{ macops_topology | macops.cluster.cabling_dot }}"
    dest: "{{ macops_report_dir }}/cabling.dot"
    mode: "0644"
  delegate_to: localhost

- name: Render it as SVG
  ansible.builtin.command: dot -Tsvg -o {{ macops_report_dir }}/cabling.svg {{ macops_report_dir }}/cabling.dot
  delegate_to: localhost
  changed_when: true
"""

RETURN = r"""
_value:
  description: Graphviz DOT source of an undirected graph.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._cabling_render import cabling_dot as render
from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error


@raises_filter_error
def cabling_dot(topology):
    return render(topology)


class FilterModule(object):
    def filters(self):
        return {"cabling_dot": cabling_dot}
