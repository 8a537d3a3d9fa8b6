#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: sudo_rules
short_description: Check the passwordless sudo rules in force on a Mac give no shell and no arbitrary code
version_added: 0.1.0
description:
  - Runs C(sudo -n -l) on the node over the bare connection (no Python start, no terminal, so sudo does not wrap
    long rules) and audits the listing on the controller, matching arguments the way sudo does (C(*) also matches
    spaces and further options) - every rule of O(expected) listed as passwordless, and no passwordless rule,
    whichever file it comes from, that gives a shell or runs arbitrary code as root.
  - With O(sudoers), applies the rules first with M(community.general.sudoers), so one task installs and proves them.
  - Returns the problems (C(sudo_rule_unsafe), C(sudo_rule_unsafe_accepted), C(sudo_rules_inactive); see
    C(docs/problems.md)) and fails on the severities O(fail_on) names.
  - C(sudo -n -l) needs no password once one NOPASSWD rule applies to the user (sudoers(5) C(listpw=any)), so a
    listing proves the rules are active.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
    details: O(sudoers) runs in check mode; a change only predicted is not listed.
  diff_mode:
    support: full
    details: The diff of M(community.general.sudoers).
  platform:
    support: full
    platforms: darwin, posix
options:
  sudoers:
    description:
      - Options of M(community.general.sudoers) to apply first (with the task's C(become)), such as the drop-in
        with the rules the collection's tools need; the result's C(changed) and C(diff) are that module's.
      - Omit it to only check.
    type: dict
  verify:
    description:
      - List and audit the rules in force after applying. In check mode a change only predicted is not listed (the
        rules are not in force yet).
    type: bool
    default: true
  expected:
    description: Rules, in sudoers syntax, that must be listed as passwordless.
    type: list
    elements: str
    default: []
  accepted:
    description: Unsafe rules the owner keeps knowingly (reported as info instead of an error).
    type: list
    elements: str
    default: []
  fail_on:
    description: The least severity that fails the host.
    type: str
    choices: [error, warning, never]
    default: error
seealso:
  - module: community.general.sudoers
"""

EXAMPLES = r"""
- name: Check the passwordless rules give no shell and no arbitrary code
  macops.cluster.sudo_rules:
    expected: ["/sbin/shutdown -r now"]
  register: macops_sudoers
"""

RETURN = r"""
problems:
  description: The audit's problems, each in the catalogue's shape.
  returned: always
  type: list
  elements: dict
  sample:
    - code: sudo_rule_unsafe
      severity: error
      host: mac1
      port: null
      peer: null
      message: "mac1: the passwordless rule (root) NOPASSWD: /bin/launchctl runs any launchctl subcommand as root"
      fix: Replace it with the exact command lines the tools need (docs/sudo.md).
      details: {}
"""
