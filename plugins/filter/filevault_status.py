# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.filevault_status: what `fdesetup status` says about the next boot."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: filevault_status
short_description: Read the text of C(fdesetup status) as the FileVault state of the next boot
version_added: 0.1.0
author: macops.cluster team
description:
  - The parser M(macops.cluster.mac_state) uses, for a play that read C(fdesetup status) itself (a raw
    read costs no Python start on the node).
  - C(state) is C(on) (a plain restart stops at the pre-boot unlock screen; C(fdesetup authrestart)
    skips it once), C(pending) (C(will be enabled after the next restart), or a deferred enablement;
    FileVault is not on yet, so C(fdesetup authrestart) has nothing to unlock, and the next restart
    stops at the unlock screen all the same) or C(off).
  - Fails, naming the command, on text that is neither, rather than taking it for C(off).
options:
  _input:
    description: What C(fdesetup status) printed, as one string or as its lines (C(stdout_lines)).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Read FileVault without a module run
  ansible.builtin.raw: /usr/bin/fdesetup status
  register: fdesetup
  changed_when: false

- name: Stop before a reboot that would wait at the unlock screen
  ansible.builtin.assert:
    that: (fdesetup.stdout | macops.cluster.filevault_status).state == 'off'
"""

RETURN = r"""
_value:
  description: C({on, state, status}); C(on) is true for the states C(on) and C(pending).
  type: dict
  sample: {"on": true, "state": "pending", "status": "FileVault is Off, but will be enabled after the next restart."}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.module_utils._fdesetup import parse_status
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


def filevault_status(text):
    if isinstance(text, (list, tuple)):
        text = "\n".join(str(line) for line in text)
    try:
        return parse_status(text)
    except ParseError as exc:
        raise AnsibleFilterError("filevault_status: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"filevault_status": filevault_status}
