#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: ssh_check
short_description: Check that this node can open non-interactive SSH sessions to every target
version_added: 0.1.0
description:
  - Connects from this node to every target the way mlx.launch starts its ranks, without a
    terminal and without prompts, and runs C(/usr/bin/true) there.
  - Each check runs C(ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=N ADDRESS /usr/bin/true),
    so a password prompt, a missing key or an unknown or changed host key is a failure.
  - Up to O(parallel) checks run at once, so that a large mesh, where every node checks every
    other, does not start more connections at one sshd than its C(MaxStartups) lets through.
  - Fails when any check fails, naming every failed target with its label and ssh's error, then
    O(fix); RV(results) is returned either way. Read-only; never reports a change.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  targets:
    description: Where to connect, in the order RV(results) reports them.
    type: list
    elements: dict
    required: true
    suboptions:
      address:
        description: Host name or IP address given to C(ssh); C(~/.ssh/config) applies.
        type: str
        required: true
      label:
        description: How messages name this target (C(mac2 by name), C(over en2)); defaults to O(targets[].address).
        type: str
  connect_timeout:
    description: Seconds C(ssh) waits for a connection (C(ConnectTimeout)); a whole check is stopped after this plus 10 seconds.
    type: int
    default: 5
  parallel:
    description: How many connections this node opens at once; keep it below sshd's C(MaxStartups) (10).
    type: int
    default: 4
  ssh:
    description: The ssh client.
    type: path
    default: /usr/bin/ssh
  fix:
    description: What to do when a check fails (the calling role's advice), appended to the failure message.
    type: str
    default: ""
notes:
  - The checks run as the connecting user, with that user's keys, C(known_hosts) and C(~/.ssh/config).
  - The checks run in threads; each is stopped after O(connect_timeout) plus 10 seconds, so a
    session that stalls after connecting cannot hang the task.
"""

EXAMPLES = r"""
- name: Connect to every peer by name and over every cable
  macops.cluster.ssh_check:
    targets:
      - address: mac2
        label: mac2 by name
      - address: 198.18.64.2
        label: over en2
    connect_timeout: 5
    parallel: 4
    fix: Check that Remote Login is on there and that the Thunderbolt link is up, then run this role again.

- name: Check the peers by name, two at a time, and look at the results without failing
  macops.cluster.ssh_check:
    targets:
      - address: mac3
      - address: mac4
    parallel: 2
  register: __ssh_checks
  failed_when: false

- name: Show the targets that could not be reached
  ansible.builtin.debug:
    msg: "{{ __ssh_checks.results | rejectattr('ok') | map(attribute='label') | list }}"
"""

RETURN = r"""
results:
  description: One entry per target, in the order of O(targets); also returned when the module fails.
  returned: always
  type: list
  elements: dict
  contains:
    address:
      description: O(targets[].address).
      type: str
      sample: 198.18.64.2
    label:
      description: O(targets[].label), else the address.
      type: str
      sample: over en2
    ok:
      description: C(ssh) connected and C(/usr/bin/true) ran (exit status 0).
      type: bool
      sample: true
    rc:
      description: Exit status of C(ssh) (255 for its own errors); -1 when it could not be started or was stopped after the time limit.
      type: int
      sample: 0
    stderr:
      description: What C(ssh) printed on stderr, trimmed to at most 300 characters.
      type: str
      sample: "Permission denied (publickey)."
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils._ssh_check import (
    check_all, failure_message, targets_with_labels)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            targets=dict(type="list", elements="dict", required=True, options=dict(
                address=dict(type="str", required=True),
                label=dict(type="str"),
            )),
            connect_timeout=dict(type="int", default=5),
            parallel=dict(type="int", default=4),
            ssh=dict(type="path", default="/usr/bin/ssh"),
            fix=dict(type="str", default=""),
        ),
        supports_check_mode=True,
    )
    params = module.params
    for name in ("connect_timeout", "parallel"):
        if params[name] < 1:
            module.fail_json(msg="%s must be at least 1, got %d" % (name, params[name]))
    if not (os.path.isfile(params["ssh"]) and os.access(params["ssh"], os.X_OK)):
        module.fail_json(msg="ssh: %s is not an executable ssh client" % params["ssh"])
    results = check_all(targets_with_labels(params["targets"]), params["ssh"], params["connect_timeout"],
                        params["parallel"])
    message = failure_message(results, params["fix"])
    if message:
        module.fail_json(msg=message, changed=False, results=results)
    module.exit_json(changed=False, results=results)


if __name__ == "__main__":
    main()
