# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: macos_update_canary
short_description: What update-macos.yml's canary proved before the next wave
version_added: 0.2.0
author: macops.cluster team
description:
  - Judges the canary once it is back on the new build, before any other node installs. Its read
    (M(macops.cluster.node_facts) C(links), C(network), C(rdma), C(wired_limit), C(files)) is judged as doctor.yml
    judges a node - every cable of the applied plan pinged to its peers, the Thunderbolt settings of that plan, RDMA
    where it is meant, the GPU wired limit - and each error is a problem that stops the rollout.
  - Where a model is served, compares the best tokens per second of the timed completions before serving stopped
    (O(before)) with those once serving was back (O(after)); a drop beyond the plan's C(max_regression_percent)
    is C(macos_update_regression), no answer after is C(serve_not_ready).
  - With O(when=after), the comparison after the last wave (where serving could not come back between waves), with
    the same figures and problems; nothing is left to stop, and the run fails on them.
positional: before, after, read, plan_file, when
options:
  _input:
    description: The plan P(macops.cluster.macos_update_plan#filter) returned (its C(canary)).
    type: dict
    required: true
  before:
    description: The timed completions (M(ansible.builtin.uri) results) before serving stopped, or null when not measured.
    type: list
    elements: dict
  after:
    description: The same completions once serving was back, or null when not measured.
    type: list
    elements: dict
  read:
    description: The canary's M(macops.cluster.node_facts) result once it was back (unused with O(when=after)).
    type: dict
  plan_file:
    description: The applied Thunderbolt plan's path on the node, for the message when it is missing.
    type: str
  when:
    description: V(canary) judges the canary and its figure; V(after) only compares the figures after the last wave.
    type: str
    choices: [canary, after]
    default: canary
"""

EXAMPLES = r"""
- name: Judge the canary
  ansible.builtin.set_fact:
    canary: "{{ plan | macops.cluster.macos_update_canary(before_results, after_results, canary_read, plan_file) }}"
  run_once: true
"""

RETURN = r"""
_value:
  description:
    - C(host) (the canary, or null after the last wave), C(when) (C(canary) or C(after)), C(before) and C(after)
      (tokens per second, or null) and C(problems) (each stops the rollout).
  type: dict
"""

from ansible.errors import AnsibleFilterError


def macos_update_canary(plan, before=None, after=None, read=None, plan_file=None, when="canary"):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._update_canary import canary_verdict
    try:
        return canary_verdict(plan, before, after, read, plan_file, when)
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("macos_update_canary: %s: %s" % (type(exc).__name__, exc))


class FilterModule(object):
    def filters(self):
        return {"macos_update_canary": macos_update_canary}
