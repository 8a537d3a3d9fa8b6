# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: model_deploy_markdown
short_description: The Markdown page of a model deployment
version_added: 0.1.0
description:
  - The bytes that crossed the cables against the bytes the nodes lacked, one row per node (files held, linked,
    pulled, removed, bytes received, seconds, rate) and the bytes per cable and direction.
positional: _input
options:
  _input:
    description: The deployment report (C(model), C(wire_bytes), C(needed_bytes), C(max_link_bytes), C(link_bytes),
      C(nodes)), as C(docs/deploy-model.md) describes it.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Write the deployment report for people
  ansible.builtin.copy:
    content: "{{ report | macops.cluster.model_deploy_markdown }}"
    dest: artifacts/deploy/deploy.md
    mode: "0644"
  delegate_to: localhost
"""

RETURN = r"""
_value:
  description: The page's Markdown text.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._model_render import deploy_markdown


class FilterModule(object):
    def filters(self):
        return {"model_deploy_markdown": deploy_markdown}
