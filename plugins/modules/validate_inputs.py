#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: validate_inputs
short_description: Check every input of the collection's roles on the controller, before anything connects
version_added: 0.1.0
description:
  - Validates the host's variables against the complete C(meta/argument_specs.yml) of each role in
    O(roles) with Ansible's own C(ArgumentSpecValidator), the validator behind
    M(ansible.builtin.validate_argument_spec) and role argument validation. Types, choices,
    C(required), C(elements) and suboptions mean what they mean to Ansible, and a string from C(-e) or an
    AWX survey is coerced exactly as Ansible coerces it (C("8") to 8, C("yes") to true) or refused.
    A list or mapping given where a string belongs is refused too.
  - Then runs each role's rules that an argument spec cannot say (ranges, address formats, cross-variable
    rules such as one MTU on every Mac), one Python function per role, over the validated values.
  - With O(unknown_variables), names that look like the collection's (C(macops_*) or a role's prefix) but
    that no role knows are reported with the closest known name.
  - Every finding is a problem with a registered code (C(input_invalid), C(input_unknown_variable),
    C(input_inventory); see C(docs/problems.md)) naming the variable, the value given (never the value of a
    C(no_log) option), what is allowed, a did-you-mean where one is close, and the fix. The task fails when
    there is any.
  - Runs on the controller only (an action plugin) and never contacts the host, so it can be the first
    task of a play without fact gathering.
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
    details: It runs on the controller and reads only variables.
options:
  roles:
    description:
      - The collection's roles whose variables to check, such as C([macops, firewall]); empty for all of them.
      - Cluster-wide variables (C(macops_*)) belong to the role C(macops); name it too.
    type: list
    elements: str
    default: []
  entry_points:
    description: The entry point whose options to check, per role, where it is not C(main).
    type: dict
    default: {}
  argument_specs:
    description:
      - Check the variables against the argument specs. Set it to false only where Ansible's role argument
        validation has just checked the same spec (a role's own C(tasks/main.yml)); the rules still run.
    type: bool
    default: true
  unknown_variables:
    description: Report variables named like the collection's that no role knows (typos).
    type: bool
    default: true
seealso:
  - module: ansible.builtin.validate_argument_spec
"""

EXAMPLES = r"""
- name: Check every input of this play's roles before anything connects
  macops.cluster.validate_inputs:
    roles: [macops, preflight, firewall, exo]
  any_errors_fatal: true

- name: A role's own first task, after Ansible validated its argument spec on entry
  macops.cluster.validate_inputs:
    roles: [macops, firewall]
    argument_specs: false
    unknown_variables: false
"""

RETURN = r"""
problems:
  description: Every problem found, in the collection's problem shape; empty when all is well.
  returned: always
  type: list
  elements: dict
  sample:
    - code: input_invalid
      severity: error
      host: mac1
      port: null
      peer: null
      message: "firewall_state = 'presnet' is refused: value of firewall_state must be one of: present, absent,
        got: presnet. Did you mean 'present' for firewall_state (not 'presnet')?"
      fix: Set firewall_state to one of present, absent in group_vars, host_vars, -e or the AWX survey.
      details: {variable: firewall_state, allowed: "one of present, absent"}
roles:
  description: The roles whose variables were checked.
  returned: always
  type: list
  elements: str
checked:
  description: The variables that were checked (those the host has a value for, defaults included).
  returned: always
  type: list
  elements: str
"""
