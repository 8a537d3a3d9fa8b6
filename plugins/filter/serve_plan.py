# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: serve_plan
short_description: Which node runs which rank of which deployed model, and each node's serving supervisor configuration
version_added: 0.2.0
author: macops.cluster team
description:
  - From every node's M(macops.cluster.node_facts) read (C(models), the MLX hostfiles in C(files)), chooses the model
    (C(settings.model_name), else the newest deployment record), the backend (C(settings.backend); V(auto) takes jaccl,
    then jaccl-ring, then ring, the first whose hostfile every node holds the same copy of) and each rank's node, from
    the deployment records deploy-model.yml wrote beside the files, checked against the hostfile's rank order.
  - Returns each node's configuration of the serving supervisor (the role's C(serve.json)), and C(problems) in the one
    shape (C(serve_model_unknown), C(serve_model_incomplete), C(serve_split_mismatch), C(serve_backend_unavailable),
    C(serve_runtime_mismatch), C(serve_port_in_use), C(serve_memory_short)) instead of a plan when the model cannot
    be served as deployed.
  - Runtime V(mlx-lm) gives every rank's node a configuration; runtime V(exo) only rank 0's, whose supervisor places
    the instance through exo's API (C(exo) holds C(model_id), C(sharding), C(instance_meta) and C(min_nodes)).
  - C(actions) says per node whether the run stops its job and whether it starts it.
positional: settings
options:
  _input:
    description: Per inventory name, that node's M(macops.cluster.node_facts) result.
    type: dict
    required: true
  settings:
    description: The serve role's inputs (roles/serve/vars/main.yml C(_serve_settings)).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Plan the serving
  ansible.builtin.set_fact:
    serve_plan: >-
      {{ ansible_play_hosts | macops.cluster.per_host(hostvars, '__serve_facts')
         | macops.cluster.serve_plan(settings) }}
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(model) (C(name), C(model_id), C(mode), C(runtime), C(runtime_version)), C(backend), C(split) (per-rank layer
      counts when not mlx-lm's even split, else null), C(leader), C(endpoint) (C(host), C(port), C(url)), C(ranks)
      (C(rank), C(host), C(layers), C(path), C(bytes)), C(configs) (per node), C(actions) (per node C(stop),
      C(start), C(running) and C(says)) and C(problems).
  type: dict
"""

from ansible.errors import AnsibleFilterError


def serve_plan(facts_by_host, settings):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._serve_plan import serve_plan as plan_serving
    try:
        return plan_serving(facts_by_host, settings)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("serve_plan: not every node's read is node_facts' (models, files): %s: %s"
                                 % (type(exc).__name__, exc))


class FilterModule(object):
    def filters(self):
        return {"serve_plan": serve_plan}
