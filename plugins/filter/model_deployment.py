# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: model_deployment
short_description: A model deployment's disk check and transfer plan, from the placement and every node's inventory
version_added: 0.1.0
description:
  - Takes the placement of M(macops.cluster.model_shard) (V(plan)) and returns what each node must hold, a
    C(shard_disk_full) problem for each node whose volume lacks the bytes it still needs plus the margin, and
    the transfer plan, all before any byte moves.
  - The smallest few files several nodes need are cut into pieces (one per cable of the best-connected node), so
    the cables balance to within a piece; the others go whole. Each node pulls each file or piece it lacks once,
    from the source, from a node that holds the file, or from a node that receives the piece in the same run and
    relays it as it arrives; parents are chosen so the load spreads over every cable (the
    striped relay of C(docs/deploy-model.md)). Each pull names the parent's address on their cable.
  - The source node's own part comes from the source directory by hard link (or copy), not over a cable.
positional: _input, source, source_dir, dest, inventories, volumes, applied_hosts
options:
  _input:
    description: The placement (M(macops.cluster.model_shard)'s C(plan), with C(sha256)).
    type: dict
    required: true
  source:
    description: The node that holds the model.
    type: str
    required: true
  source_dir:
    description: The model's directory on the source node.
    type: str
    required: true
  dest:
    description: The model's directory on every node.
    type: str
    required: true
  inventories:
    description: Per node, M(macops.cluster.model_shard)'s C(inventory) of O(dest).
    type: dict
    required: true
  volumes:
    description: Per node, M(macops.cluster.node_facts)' volume entry of the directory that holds O(dest).
    type: dict
    required: true
  applied_hosts:
    description: The applied Thunderbolt plan's C(hosts) (C(thunderbolt-plan.json)).
    type: dict
    required: true
  margin_bytes:
    description: Free space each node keeps beyond the model's bytes.
    type: int
    default: 0
  source_mount:
    description: The mount point of O(source_dir) on the source node (its part is hard linked when it is O(dest)'s).
    type: str
"""

EXAMPLES = r"""
- name: Plan the transfers
  ansible.builtin.set_fact:
    deployment: >-
      {{ plan | macops.cluster.model_deployment('mac1', '/Users/admin/staging/m', '/Users/admin/models/m',
                                                 inventories, volumes, applied['hosts']) }}
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(files) (per node, the files it must hold), C(local) (the source's files to link), C(pulls) (per node, in
      order, C(file), C(size), C(sha256), C(offset) and C(length) of the piece, C(parent), C(address), C(link_id),
      C(parent_dir), C(relay)), C(problems),
      C(link_bytes) (per C(parent>child)), C(wire_bytes), C(missing_bytes) (per node) and C(max_link_bytes).
  type: dict
"""

from ansible.errors import AnsibleFilterError
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError


def model_deployment(plan, source, source_dir, dest, inventories, volumes, applied_hosts, margin_bytes=0,
                     source_mount=None):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._model_deployment import deployment
    try:
        return deployment(plan, source, source_dir, dest, inventories, volumes, applied_hosts,
                          int(margin_bytes), source_mount)
    except (PlanError, KeyError) as exc:
        raise AnsibleFilterError("model_deployment: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"model_deployment": model_deployment}
