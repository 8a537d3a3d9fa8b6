# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.cabling_svg: the Thunderbolt cabling as a self-contained SVG drawing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: cabling_svg
short_description: Draw the Thunderbolt cabling as SVG, without Graphviz
version_added: 0.1.0
author: macops.cluster team
description:
  - One box per Mac (name, model, memory) outlined in the colour of its worst problem; on a circle,
    or on a line for up to three Macs.
  - 'One path per cable, labelled with the port at each end (C(en3 \(port 2\))) and the speed.
    Cables with a warning or error are red and dashed and name their problem codes; pairs without
    a cable (no full mesh) are dotted grey.'
  - Pure Python and deterministic (same input, same bytes); no Graphviz needed. For Graphviz use
    P(macops.cluster.cabling_dot#filter).
positional: nodes
options:
  _input:
    description:
      - The result of P(macops.cluster.cluster_report_model#filter) (the drawing in the report), or
        of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
  nodes:
    description:
      - With a topology plan only, the planner's input nodes (or the report's nodes), so the boxes
        can show memory and problems found outside the planner.
    type: dict
"""

EXAMPLES = r"""
- name: Draw the cabling of a plan
  ansible.builtin.copy:
    content: "{{ macops_topology | macops.cluster.cabling_svg(__nodes) }}"
    dest: /tmp/cabling.svg
    mode: "0644"
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
_value:
  description: SVG document text (UTF-8), with inline CSS and no external references.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error
from ansible_collections.macops.cluster.plugins.plugin_utils._svg_cabling import cabling_svg as draw


@raises_filter_error
def cabling_svg(source, nodes=None):
    return draw(source, nodes)


class FilterModule(object):
    def filters(self):
        return {"cabling_svg": cabling_svg}
