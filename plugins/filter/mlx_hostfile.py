# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.mlx_hostfile: one planned MLX hostfile as the text mlx.launch reads."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: mlx_hostfile
short_description: Render one MLX hostfile of a Thunderbolt topology plan as JSON text
version_added: 0.1.0
author: macops.cluster team
description:
  - Returns the hostfile for O(backend) from the result of P(macops.cluster.thunderbolt_topology#filter)
    as JSON text, written the way C(mlx.distributed_config --output-hostfile) writes it
    (C(json.dump) with an indent of 4, no trailing newline), ready for C(mlx.launch --hostfile).
  - Fails with the planner's reason when the cabling does not allow that backend.
positional: backend
options:
  _input:
    description: The result of P(macops.cluster.thunderbolt_topology#filter).
    type: dict
    required: true
  backend:
    description:
      - C(ring) (TCP over the Thunderbolt addresses), C(jaccl) (RDMA, full mesh) or C(jaccl-ring)
        (RDMA between ring neighbours).
    type: str
    required: true
    choices: [ring, jaccl, jaccl-ring]
"""

EXAMPLES = r"""
- name: Write the JACCL hostfile for mlx.launch
  ansible.builtin.copy:
    content: "{{ macops_topology | macops.cluster.mlx_hostfile('jaccl') }}"
    dest: "{{ ansible_env.HOME }}/.macops/hostfile-jaccl.json"
    mode: "0644"
"""

RETURN = r"""
_value:
  description:
    - 'JSON text of C({"backend": ..., "envs": [], "hosts": [{"ssh", "ips", "rdma"}]}).'
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json


@raises_filter_error
def mlx_hostfile(topology, backend):
    return hostfile_json(topology, backend)


class FilterModule(object):
    def filters(self):
        return {"mlx_hostfile": mlx_hostfile}
