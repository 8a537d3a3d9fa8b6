#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: pf_status
short_description: Read whether pf is enabled and which rules a pf anchor holds
version_added: 0.1.0
description:
  - Runs C(pfctl -s info) and, with O(anchor), C(pfctl -a ANCHOR -s rules), at once, in one module run.
  - RV(enabled) is what the C(Status) line of C(pfctl -s info) says. macOS loads C(/etc/pf.conf) at boot
    but leaves pf disabled until something enables it (C(pfctl -E)), so rules on disk are no proof that
    they filter anything.
  - RV(anchor_rules) are the rules loaded in O(anchor) as pfctl prints them back (one line per rule, port
    lists expanded); none when a macOS update replaced C(/etc/pf.conf) and the anchor is no longer loaded.
  - Read-only; never reports a change. A role that wants a handler run when pf is off or the anchor
    empty sets C(changed_when) on the task (the firewall role does).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  anchor:
    description:
      - Name of the anchor whose rules to read, as given to C(pfctl -a).
      - Omitted, only the status is read.
    type: str
notes:
  - pfctl needs root even to read; run the module with C(become).
  - C(pfctl) runs from C(/sbin), since a non-interactive SSH session has a minimal C(PATH).
  - Fails when C(pfctl -s info) fails (without root it says C(Permission denied)) or prints no
    C(Status) line. A failing anchor read is not a failure; RV(anchor_rules) is then empty and
    RV(anchor_error) says why, also as a warning (what pfctl prints for an anchor that does not exist is
    unconfirmed).
  - The layout of C(pfctl -s info) beyond its C(Status) line is not read; it is taken from pfctl(8),
    not from a macOS 26 capture.
seealso:
  - module: macops.cluster.node_facts
"""

EXAMPLES = r"""
- name: Read pf's state and the cluster's anchor
  macops.cluster.pf_status:
    anchor: macops
  become: true
  register: __pf

- name: Load the rules and enable pf when either is missing
  ansible.builtin.command:
    argv: [/sbin/pfctl, -E, -f, /etc/pf.conf]
  become: true
  when: not __pf.enabled or __pf.anchor_rules | length == 0
  changed_when: true
"""

RETURN = r"""
enabled:
  description: pf is enabled (the status line says C(Enabled)).
  returned: always
  type: bool
  sample: true
status:
  description: The status line after C(Status) and without the C(Debug) field.
  returned: always
  type: str
  sample: Enabled for 0 days 00:12:34
anchor:
  description: O(anchor), or null when it was not given.
  returned: always
  type: str
  sample: macops
anchor_rules:
  description: The rules loaded in O(anchor), one per line as pfctl prints them; empty without O(anchor).
  returned: always
  type: list
  elements: str
  sample: ["pass in quick inet proto tcp from 198.19.0.0/24 to any port = 52415 flags S/SA keep state"]
anchor_error:
  description: What C(pfctl -a ANCHOR -s rules) printed when it failed; null when it did not (or did not run).
  returned: always
  type: str
  sample: null
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils import _pfctl


def error_text(result):
    """What a failed pfctl run said, without the ALTQ notices macOS adds to every run."""
    _rc, stdout, stderr = result
    return "; ".join(_pfctl.without_notices(stderr) or _pfctl.without_notices(stdout)) or "no output"


def collect(module):
    anchor = module.params["anchor"]
    if anchor is not None and not anchor.strip():
        module.fail_json(msg="anchor must be an anchor name such as macops, or omitted; got an empty string")
    pfctl = commands.require_command(module, "pfctl")
    info_argv = [pfctl, "-s", "info"]
    rules_argv = [pfctl, "-a", anchor, "-s", "rules"] if anchor else None
    info_result, rules_result = commands.run_parallel([info_argv, rules_argv])
    if info_result[0] != 0:
        error = error_text(info_result)
        hint = " pfctl needs root even to read: run this module with become." if "Permission denied" in error else ""
        module.fail_json(msg="`%s` failed with exit status %d: %s.%s" % (" ".join(info_argv), info_result[0], error, hint),
                         rc=info_result[0], stdout=info_result[1], stderr=info_result[2])
    status = commands.parse(module, _pfctl.parse_info, info_result[1])
    rules, anchor_error = [], None
    if rules_result is not None:
        if rules_result[0] == 0:
            rules = _pfctl.parse_rules(rules_result[1])
        else:
            # Shown on every run, so a cause that a reload does not cure never hides behind a
            # task that only reports a change.
            anchor_error = "exit status %d: %s" % (rules_result[0], error_text(rules_result))
            module.warn("`%s` failed (%s); counted as no rules loaded in anchor %s."
                        % (" ".join(rules_argv), anchor_error, anchor))
    return {
        "changed": False,
        "enabled": status["enabled"],
        "status": status["status"],
        "anchor": anchor,
        "anchor_rules": rules,
        "anchor_error": anchor_error,
    }


def main():
    module = AnsibleModule(
        argument_spec=dict(anchor=dict(type="str")),
        supports_check_mode=True,
    )
    module.exit_json(**collect(module))


if __name__ == "__main__":
    main()
