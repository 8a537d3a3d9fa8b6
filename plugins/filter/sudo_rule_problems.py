# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.sudo_rule_problems: the problems in one node's `sudo -n -l`."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: sudo_rule_problems
short_description: Find passwordless sudo rules that give a root shell or run arbitrary code
version_added: 0.1.0
author: macops.cluster team
description:
  - Reads the short listing of C(sudo -n -l) (run without a terminal, so that sudo does not wrap
    long rules) and returns one problem per passwordless rule that gives a shell or runs
    arbitrary code as root, matched the way sudo matches arguments (C(*) also matches spaces and
    further options).
  - Problem codes (docs/problems.md) C(sudo_rule_unsafe) (error), C(sudo_rule_unsafe_accepted)
    (info, the rule is in O(accepted)) and C(sudo_rules_inactive) (the listing failed, or lacks one
    of O(expected)).
  - The controller side of the check, so that a node runs C(sudo -n -l) alone (no Python start).
options:
  _input:
    description: The listing (stdout of C(sudo -n -l)).
    type: str
    required: true
  rc:
    description: Exit status of C(sudo -n -l); non-zero means the rules are not active.
    type: int
    default: 0
  stderr:
    description: Its stderr, quoted in the problem when it failed.
    type: str
    default: ""
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
  host:
    description: The node, for the problems' C(host).
    type: str
"""

EXAMPLES = r"""
- name: List what the user may run without a password
  ansible.builtin.raw: /usr/bin/sudo -n -l
  register: __listing
  changed_when: false
  failed_when: false

- name: Keep the problems for the report
  ansible.builtin.set_fact:
    macops_sudoers:
      problems: >-
        {{ __listing.stdout | macops.cluster.sudo_rule_problems(rc=__listing.rc, stderr=__listing.stderr,
           host=inventory_hostname) }}
"""

RETURN = r"""
_value:
  description: Problems in the collection's one shape (code, severity, host, port, peer, message, fix, details).
  type: list
  elements: dict
"""

from ansible_collections.macops.cluster.plugins.module_utils._sudo_rules import audit


def sudo_rule_problems(listing, rc=0, stderr="", expected=None, accepted=None, host=None):
    """Problems of one node's `sudo -n -l` (see plugins/module_utils/_sudo_rules.py)."""
    return audit(listing or "", rc=int(rc or 0), stderr=stderr or "", expected=list(expected or []),
                 accepted=list(accepted or []), host=host)


class FilterModule(object):
    def filters(self):
        return {"sudo_rule_problems": sudo_rule_problems}
