# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.mlx_hostfile_files: the hostfiles a node holds, as node_files entries."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: mlx_hostfile_files
short_description: The MLX hostfiles a node holds, as macops.cluster.node_files entries
version_added: 0.1.0
author: macops.cluster team
description:
  - For each backend of O(backends), C(<directory>/hostfile-<backend>.json) with the plan's hostfile of that
    backend as JSON text, written as C(mlx.distributed_config) writes it (C(json.dumps(..., indent=4)); the
    bytes of the health report's C(hostfiles/<backend>.json)) and a final newline, and O(attributes); then the
    hostfile of every other backend (C(ring), C(jaccl), C(jaccl-ring)) with C(state=absent).
  - The list goes to the C(files) option of M(macops.cluster.node_files) as it is.
  - Fails with the planner's reason when the cabling does not allow one of O(backends).
positional: backends, directory, attributes
options:
  _input:
    description: The result of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
  backends:
    description: The backends whose hostfile the node gets.
    type: list
    elements: str
    required: true
  directory:
    description: The directory on the node.
    type: str
    required: true
  attributes:
    description: Added to every written entry, such as C({owner, group, mode}).
    type: dict
    default: {}
"""

EXAMPLES = r"""
- name: Write the chosen hostfiles and remove the others
  macops.cluster.node_files:
    files: >-
      {{ macops_topology | macops.cluster.mlx_hostfile_files(['ring'], macops_state_dir,
                                                              {'owner': 'root', 'group': 'wheel', 'mode': '0644'}) }}
  become: true
"""

RETURN = r"""
_value:
  description: C({path, content, ...attributes}) per backend written, then C({path, state=absent}) per other backend.
  type: list
  elements: dict
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error


@raises_filter_error
def mlx_hostfile_files(topology, backends, directory, attributes=None):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_files
    return hostfile_files(topology, list(backends), directory, attributes)


class FilterModule(object):
    def filters(self):
        return {"mlx_hostfile_files": mlx_hostfile_files}
