# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.problem: a role's finding in the collection's one problem shape."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: problem
short_description: One problem in the collection's one shape, with a registered code
version_added: 0.1.0
author: macops.cluster team
description:
  - Builds C({code, severity, host, port, peer, message, fix, details}), the shape every module, plugin and
    role of the collection reports findings in, and that the report (C(macops.cluster.cluster_report)) takes.
  - The code must be in the collection's registry (C(docs/problems.md)); an unregistered code, an unknown
    severity or a missing message fails the task, so a typo in a role fails its tests instead of reaching CI
    gates as an unknown code.
  - O(fix) and O(severity) default to the registry's generic ones for the code.
  - The input may also be a dict holding these keys (for example a check result with C(code), C(severity),
    C(message) and C(fix), mapped over a list); its other keys are ignored, and options given to the filter
    win over the dict's.
positional: message, fix
options:
  _input:
    description: The problem code (C(tb_bridge_returned)), or a dict with C(code) and the other fields.
    type: raw
    required: true
  message:
    description: What is wrong, here, in one or two sentences.
    type: str
  fix:
    description: What to do about it; the registry's generic fix when omitted.
    type: str
  host:
    description: The inventory host it is about; null for the whole cluster.
    type: str
  port:
    description: The interface or port (C(en3), C(bridge0)), or null.
    type: str
  peer:
    description: The host at the other end of the cable, or null.
    type: str
  severity:
    description: C(error), C(warning) or C(info); the registry's for the code when omitted.
    type: str
  details:
    description: Machine-readable extras (C(link_id), sizes, versions).
    type: dict
"""

EXAMPLES = r"""
- name: Record that the Thunderbolt Bridge came back
  ansible.builtin.set_fact:
    my_problems:
      - "{{ 'tb_bridge_returned' | macops.cluster.problem('the Thunderbolt Bridge was back; removed again',
                                                           host=inventory_hostname, port='bridge0') }}"

- name: Every failed check result (with code, severity, message, fix) as a problem
  ansible.builtin.set_fact:
    my_problems: >-
      {{ check_results | rejectattr('ok') | map('macops.cluster.problem', host=inventory_hostname) | list }}
"""

RETURN = r"""
_value:
  description: The problem, with exactly the keys C(code), C(severity), C(host), C(port), C(peer), C(message), C(fix)
    and C(details).
  type: dict
  sample:
    code: tb_bridge_returned
    severity: warning
    host: mac1
    port: bridge0
    peer: null
    message: the Thunderbolt Bridge was back; removed again
    fix: Nothing to do once; if it keeps coming back, find what re-creates it.
    details: {}
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.module_utils._problems import PROBLEM_KEYS, problem

_FIELDS = [key for key in PROBLEM_KEYS if key != "code"]


def problem_filter(value, message=None, fix=None, host=None, port=None, peer=None, severity=None, details=None):
    given = dict(message=message, fix=fix, host=host, port=port, peer=peer, severity=severity, details=details)
    if isinstance(value, Mapping):
        fields = dict((key, value.get(key)) for key in _FIELDS)
        fields.update((key, item) for key, item in given.items() if item is not None)
        code = value.get("code")
    else:
        fields, code = given, value
    if not code or not isinstance(code, str):
        raise AnsibleFilterError("macops.cluster.problem: the code must be a non-empty string, got %r" % (code,))
    if fields["message"] in (None, ""):
        raise AnsibleFilterError("macops.cluster.problem: problem %s needs a message" % code)
    if fields["details"] is not None and not isinstance(fields["details"], Mapping):
        raise AnsibleFilterError("macops.cluster.problem: details of %s must be a dict" % code)
    try:
        # Empty strings from YAML mean "not given", like null.
        return problem(code, fields["message"], fix=fields["fix"] or None, host=fields["host"] or None,
                       port=fields["port"] or None, peer=fields["peer"] or None,
                       severity=fields["severity"] or None, details=fields["details"])
    except ValueError as exc:  # UnknownProblemCode is a ValueError too
        raise AnsibleFilterError("macops.cluster.problem: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"problem": problem_filter}
