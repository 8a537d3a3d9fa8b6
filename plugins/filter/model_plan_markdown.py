# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: model_plan_markdown
short_description: The Markdown page of a model placement
version_added: 0.1.0
description:
  - One table row per rank (node, layers, files, disk, weights, KV cache reserve, need, wired limit and its
    source, headroom), after a line on the runtime, mode and split rule.
positional: _input, model
options:
  _input:
    description: The placement (M(macops.cluster.model_shard)'s C(plan)).
    type: dict
    required: true
  model:
    description: M(macops.cluster.model_shard)'s C(model) summary.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Write the placement for people
  ansible.builtin.copy:
    content: "{{ shard['plan'] | macops.cluster.model_plan_markdown(shard['model']) }}"
    dest: artifacts/deploy/plan.md
    mode: "0644"
  delegate_to: localhost
"""

RETURN = r"""
_value:
  description: The page's Markdown text.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._model_render import plan_markdown


class FilterModule(object):
    def filters(self):
        return {"model_plan_markdown": plan_markdown}
