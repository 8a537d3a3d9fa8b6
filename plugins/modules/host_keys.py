#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: host_keys
short_description: A node's SSH host keys as the control machine sees them, beside what it has pinned
version_added: 0.2.0
description:
  - Runs on the control machine (C(delegate_to localhost)). Asks the node's SSH server for its host keys
    (C(ssh-keyscan)), gives each key's SHA256 fingerprint (C(ssh-keygen -l)) for the owner to compare with the one
    the Mac itself shows (C(ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) at the Mac), and says per key whether
    O(known_hosts_file) already pins it (C(same)), pins another key of that type for the address (C(changed)), or
    has none (C(absent)).
  - Read-only; writing the keys is M(ansible.builtin.known_hosts)'s, once the owner has compared them.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  address:
    description: The node's address as the inventory gives it (C(ansible_host)).
    type: str
    required: true
  port:
    description: Its SSH port.
    type: int
    default: 22
  known_hosts_file:
    description: The known_hosts file to compare with.
    type: path
    default: ~/.ssh/known_hosts
  types:
    description: The key types to ask for.
    type: list
    elements: str
    default: [ed25519, ecdsa, rsa]
  timeout:
    description: Seconds ssh-keyscan waits for the node.
    type: int
    default: 10
"""

EXAMPLES = r"""
- name: Scan a node's host keys
  macops.cluster.host_keys:
    address: 192.168.1.11
  delegate_to: localhost
  register: keys
"""

RETURN = r"""
name:
  description: The name known_hosts uses for the node (C(address), or C([address]:port) off port 22).
  returned: always
  type: str
scanned:
  description: Per key, C(type), C(line) (the known_hosts line), C(fingerprint) (C(SHA256:...)) and C(pinned)
    (C(same), C(changed) or C(absent)).
  returned: always
  type: list
  elements: dict
says:
  description: A line per key for the owner (C(ED25519 SHA256:... (pinned already))).
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands


def known_name(address, port):
    return address if port == 22 else "[%s]:%d" % (address, port)


def scanned_keys(text):
    """[(type, key, known_hosts line)] of ssh-keyscan's output (comments and blank lines left out)."""
    found = []
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#"):
            found.append((fields[1], fields[2], " ".join(fields[:3])))
    return found


def pinned_keys(text):
    """{type: [key, ...]} of `ssh-keygen -F NAME` output (the file's lines for that name)."""
    pinned = {}
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) >= 3 and not line.startswith("#"):
            pinned.setdefault(fields[1], []).append(fields[2])
    return pinned


def pinned_state(key_type, key, pinned):
    if key in pinned.get(key_type, []):
        return "same"
    return "changed" if pinned.get(key_type) else "absent"


def main():
    module = AnsibleModule(argument_spec=dict(address=dict(type="str", required=True), port=dict(type="int", default=22),
                                              known_hosts_file=dict(type="path", default="~/.ssh/known_hosts"),
                                              types=dict(type="list", elements="str", default=["ed25519", "ecdsa", "rsa"]),
                                              timeout=dict(type="int", default=10)),
                           supports_check_mode=True)
    params = module.params
    name = known_name(params["address"], params["port"])
    keyscan = commands.require_command(module, "ssh-keyscan")
    keygen = commands.require_command(module, "ssh-keygen")
    rc, out, err = commands.result_of([keyscan, "-T", str(params["timeout"]), "-p", str(params["port"]),
                                       "-t", ",".join(params["types"]), params["address"]], params["timeout"] + 10)
    keys = scanned_keys(out)
    if not keys:
        module.fail_json(msg="%s gave no SSH host key (ssh-keyscan exit status %d: %s)" % (
            name, rc, (err or "no answer").strip().splitlines()[-1] if (err or "").strip() else "no answer"), name=name)
    pinned = {}
    path = params["known_hosts_file"]  # type path: ~ already expanded
    if os.path.exists(path):
        rc, found, err = commands.result_of([keygen, "-F", name, "-f", path])
        pinned = pinned_keys(found) if rc == 0 else {}
    result = []
    for key_type, key, line in keys:
        rc, printed, err = commands.result_of([keygen, "-l", "-E", "sha256", "-f", "-"], stdin_text=line + "\n")
        fingerprint = next((f for f in printed.split() if f.startswith("SHA256:")), None)
        result.append({"type": key_type, "line": line, "fingerprint": fingerprint,
                       "pinned": pinned_state(key_type, key, pinned)})
    words = {"same": "pinned already", "changed": "ANOTHER KEY IS PINNED", "absent": "not pinned yet"}
    says = ["%s %s %s (%s)" % (name, key["type"], key["fingerprint"], words[key["pinned"]]) for key in result]
    module.exit_json(changed=False, name=name, scanned=result, says=says)


if __name__ == "__main__":
    main()
