#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: check_result
short_description: Publish a step's result and fail the host on its problems
version_added: 0.1.0
description:
  - Returns O(result) as the task's result, so C(register) publishes it under the role's one name (such as
    C(macops_preflight)) for the roles and the report that read it, also when the task fails.
  - Every entry of C(result.problems) must be a catalogue problem (C(docs/problems.md)); the task shows the
    warnings and fails the host when a problem has a severity O(fail_on) names, with a message that lists
    each one's code, host, port, peer, message and fix.
  - Runs on the controller only (an action plugin) and never contacts the host.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    support: N/A
    platforms: posix
    details: It runs on the controller and reads only its options.
options:
  result:
    description:
      - The step's result, published as it is. Its C(problems) (a list of catalogue problems) decide the outcome.
      - It may not set Ansible's own result keys (C(failed), C(changed), C(msg), C(warnings) and so on).
    type: dict
    required: true
  fail_on:
    description: The least severity that fails the host; C(never) only publishes and warns.
    type: str
    choices: [error, warning, never]
    default: error
  what:
    description: What failed, the start of the failure message (such as C(mac2 cannot join the cluster)).
    type: str
    default: ""
  msg:
    description: The failure message after O(what), instead of the failing problems one by one.
    type: str
    default: ""
  fail:
    description: Fail whatever the problems say (the caller decided, such as RDMA required and a node not ready); O(msg) says why.
    type: bool
    default: false
  warn:
    description: Lines to show as warnings, before the warning problems (such as which fallback was chosen and why).
    type: list
    elements: str
    default: []
seealso:
  - module: macops.cluster.validate_inputs
"""

EXAMPLES = r"""
- name: Check each node against what the cluster needs
  macops.cluster.check_result:
    result: "{{ ansible_facts['macops_mac'] | macops.cluster.preflight_checks(ansible_facts['macops_node']) }}"
    what: "{{ inventory_hostname }} cannot join the cluster"
  register: macops_preflight
"""

RETURN = r"""
problems:
  description: The problems of O(result), each in the catalogue's shape; every other key of O(result) is returned too.
  type: list
  elements: dict
  returned: when O(result) has them
  sample:
    - code: disk_space_low
      severity: error
      host: mac2
      port: null
      peer: null
      message: mac2 has 12.0 GiB free on its boot volume; the cluster needs 20 GiB.
      fix: Free space on mac2, then run again.
      details: {}
"""
