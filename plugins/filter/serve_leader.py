# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: serve_leader
short_description: serve-model.yml's rank 0 configuration among every node's read of it
version_added: 0.2.0
author: macops.cluster team
description:
  - Takes, per inventory name, what M(macops.cluster.node_facts) read of the serve role's C(serve.json) (its C(files)
    entry, C({exists, json})) and returns the configuration of rank 0, which names the endpoint (C(endpoint.host),
    C(endpoint.port)), the model and the ranks' hosts; none when no node serves.
  - A node without the file, or with one that is not a JSON object, is passed over.
"""

EXAMPLES = r"""
- name: Find the served model's endpoint
  ansible.builtin.set_fact:
    serving: >-
      {{ ansible_play_hosts | macops.cluster.per_host(hostvars, ['__sweep', 'files', serve_config])
         | macops.cluster.serve_leader }}
  run_once: true
"""

RETURN = r"""
_value:
  description: Rank 0's configuration (C(rank), C(model), C(hosts), C(endpoint), ...), or none.
  type: dict
"""


def serve_leader(reads):
    for host in sorted(reads or {}):
        document = (reads[host] or {}).get("json") if isinstance(reads[host], dict) else None
        if isinstance(document, dict) and document.get("rank") == 0:
            return document
    return None


class FilterModule(object):
    def filters(self):
        return {"serve_leader": serve_leader}
