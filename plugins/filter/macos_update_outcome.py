# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: macos_update_outcome
short_description: Where update-macos.yml's installs left the cluster
version_added: 0.2.0
author: macops.cluster team
description:
  - From each node's result (M(macops.cluster.macos_update_wait)'s, or the failure the role recorded) and the plan
    (P(macops.cluster.macos_update_plan#filter)), lists the nodes C(updated), C(failed), C(untouched) (a wave after a
    failure) and C(current) (on the target already), and says whether every node still runs C(one_build).
positional: plan
options:
  _input:
    description: Per inventory name, that node's result (missing or null when it installed nothing).
    type: dict
    required: true
  plan:
    description: The plan P(macops.cluster.macos_update_plan#filter) returned.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Note where the installs left the cluster
  ansible.builtin.set_fact:
    outcome: >-
      {{ ansible_play_hosts | macops.cluster.per_host(hostvars, 'result')
         | macops.cluster.macos_update_outcome(plan) }}
  run_once: true
"""

RETURN = r"""
_value:
  description: C(updated), C(failed), C(untouched), C(current) (lists of nodes) and C(one_build) (bool).
  type: dict
"""

from ansible.errors import AnsibleFilterError


def macos_update_outcome(results, plan):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._update_plan import update_outcome
    try:
        return update_outcome(plan, results)
    except (AttributeError, KeyError, TypeError) as exc:
        raise AnsibleFilterError("macos_update_outcome: %s: %s" % (type(exc).__name__, exc))


class FilterModule(object):
    def filters(self):
        return {"macos_update_outcome": macos_update_outcome}
