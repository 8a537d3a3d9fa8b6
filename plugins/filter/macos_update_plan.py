# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: macos_update_plan
short_description: Which macOS build every node installs, in which waves, or the problems that refuse it
version_added: 0.2.0
author: macops.cluster team
description:
  - From every node's M(macops.cluster.node_facts) read (C(macos), C(updates), C(volumes)) and its
    M(macops.cluster.macos_update_owner) check, chooses the target (C(settings.version), else the newest minor macOS
    update the nodes offer; a major upgrade only when named) and the nodes that install it (those not on its build).
  - Refuses, in C(problems), nodes that offer different builds (C(macos_update_label_mismatch)), a version a node
    does not offer (C(macos_update_not_offered)), too little free disk (C(macos_update_disk_short)), an owner that
    owns no volume (C(macos_update_owner_invalid)) or a password that does not verify (C(macos_update_password_wrong)).
  - Orders the nodes in C(waves) by C(settings.strategy) (V(canary_parallel), V(rolling), V(parallel)).
positional: owners, settings
options:
  _input:
    description: Per inventory name, that node's M(macops.cluster.node_facts) result.
    type: dict
    required: true
  owners:
    description: Per inventory name, that node's M(macops.cluster.macos_update_owner) result.
    type: dict
    required: true
  settings:
    description:
      - C(version), C(strategy), C(canary), C(free_margin_gb), C(order) (the play's hosts), C(serving) (rank 0's
        serving configuration, or null), C(max_regression_percent) and C(prepare_first) (default true, so serving
        stops for a wave's restart only).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Plan the update
  ansible.builtin.set_fact:
    update_plan: >-
      {{ ansible_play_hosts | macops.cluster.per_host(hostvars, '__facts')
         | macops.cluster.macos_update_plan(ansible_play_hosts | macops.cluster.per_host(hostvars, '__owner'),
                                            settings) }}
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(target) (C(version), C(build), C(label), C(title), C(size_bytes); null when nothing is to install), C(nodes)
      (per node C(from_version), C(from_build), C(install), C(says), what the run does there and, where a model is
      served, what serving does around its wave), C(waves) (lists of nodes), C(strategy), C(canary)
      (C(host), C(between_waves) and C(why), C(compare), C(max_regression_percent)) and C(problems).
  type: dict
"""

from ansible.errors import AnsibleFilterError


def macos_update_plan(facts_by_host, owners, settings):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._update_plan import update_plan
    try:
        return update_plan(facts_by_host, owners, settings)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("macos_update_plan: not every node's read is node_facts' (macos, updates, volumes): "
                                 "%s: %s" % (type(exc).__name__, exc))


class FilterModule(object):
    def filters(self):
        return {"macos_update_plan": macos_update_plan}
