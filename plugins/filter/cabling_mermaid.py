# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.cabling_mermaid: Draw the Thunderbolt cabling as a Mermaid flowchart."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: cabling_mermaid
short_description: Draw the Thunderbolt cabling as a Mermaid flowchart
version_added: 0.1.0
author: macops.cluster team
description:
  - The same drawing as P(macops.cluster.cabling_dot#filter) as a Mermaid C(graph LR), for Markdown
    reports (GitHub, GitLab and AWX render it).
  - Cables with a warning or error problem are dotted and red.
options:
  _input:
    description: The result of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Add the cabling to the Markdown report
  ansible.builtin.copy:
    content: |
      # Cabling
      ```mermaid
      {{ macops_topology | macops.cluster.cabling_mermaid }}
      ```
    dest: "{{ macops_report_dir }}/cabling.md"
    mode: "0644"
  delegate_to: localhost
"""

RETURN = r"""
_value:
  description: Mermaid flowchart source.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._cabling_render import cabling_mermaid as render
from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error


@raises_filter_error
def cabling_mermaid(topology):
    return render(topology)


class FilterModule(object):
    def filters(self):
        return {"cabling_mermaid": cabling_mermaid}
