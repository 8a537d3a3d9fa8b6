# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: model_deploy_report
short_description: The report document of a model deployment, from the plan and every node's result
version_added: 0.1.0
description:
  - Per node the files it holds, linked, pulled and removed, the bytes it received and the seconds it took; for the
    run the bytes that crossed the cables (C(wire_bytes), as received), the bytes the nodes lacked
    (C(needed_bytes)) and the planned bytes per cable and direction.
positional: _input, results, model, run_id
options:
  _input:
    description: The deployment (P(macops.cluster.model_deployment#filter)'s result).
    type: dict
    required: true
  results:
    description: Per node, M(macops.cluster.model_shard)'s V(present) result.
    type: dict
    required: true
  model:
    description: The model's name.
    type: str
    required: true
  run_id:
    description: The deployment's run id.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: The deployment report
  ansible.builtin.set_fact:
    report: "{{ deployment | macops.cluster.model_deploy_report(results, 'tiny-qwen2', run_id) }}"
  run_once: true
"""

RETURN = r"""
_value:
  description: The report (C(model), C(run_id), C(wire_bytes), C(planned_wire_bytes), C(needed_bytes),
    C(max_link_bytes), C(link_bytes), C(nodes)).
  type: dict
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._model_deployment import deploy_report


class FilterModule(object):
    def filters(self):
        return {"model_deploy_report": deploy_report}
