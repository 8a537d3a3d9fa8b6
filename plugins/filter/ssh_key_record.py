# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.ssh_key_record: which cluster keys a node must stop accepting, from its record."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: ssh_key_record
short_description: The SSH mesh's record of the keys a node authorized, and the keys it must stop accepting
version_added: 0.2.0
author: macops.cluster team
description:
  - The ssh_mesh role keeps, on each node, a record of the cluster keys it authorized (one line per key, C(<node>
    <type> <base64>)). This filter takes that record and every node's current key, and returns the new record
    and the keys to remove from C(authorized_keys), so that a node retired from the inventory stops being
    accepted anywhere, while the owner's own keys are never touched (they are not on the record).
  - A key is stale when its node is no longer in the inventory (O(members)), or when its node is in the run with
    another key now (a rotation). A member the run does not reach (C(--limit)) keeps its recorded key.
positional: current, members
options:
  _input:
    description: The record's text as the node holds it (empty or none when there is none yet).
    type: str
    required: true
  current:
    description: Each node of the run to its current public key (C(<type> <base64>)); a node without one yet is left out.
    type: dict
    required: true
  members:
    description: Every node of the inventory (the group C(macs)).
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: The keys to revoke and the record to write
  ansible.builtin.set_fact:
    keys: "{{ recorded_text | macops.cluster.ssh_key_record(current_keys, groups['macs']) }}"
"""

RETURN = r"""
_value:
  description: C(record) (the new record's text) and C(stale) (the keys to remove, C(<type> <base64>) each).
  type: dict
  sample: {record: "mac1 ssh-ed25519 AAAA1\nmac2 ssh-ed25519 AAAA2\n", stale: ["ssh-ed25519 AAAA5"]}
"""

from ansible.errors import AnsibleFilterError


def ssh_key_record(text, current, members):
    if not isinstance(current, dict) or not isinstance(members, (list, tuple)):
        raise AnsibleFilterError("ssh_key_record: current must map nodes to keys and members be a list of nodes")
    current = dict((str(node), " ".join(str(key).split()[:2])) for node, key in current.items() if key)
    members = set(str(member) for member in members)
    recorded = []
    for line in (text or "").splitlines():
        words = line.split()
        if len(words) >= 3:
            recorded.append((words[0], " ".join(words[1:3])))
    kept = dict(current)
    stale = []
    for node, key in recorded:
        if node in current or node not in members:
            if key != current.get(node) and key not in current.values() and key not in stale:
                stale.append(key)
        else:
            kept.setdefault(node, key)  # a member this run does not reach keeps its key
    record = "".join("%s %s\n" % (node, kept[node]) for node in sorted(kept))
    return {"record": record, "stale": stale}


class FilterModule(object):
    def filters(self):
        return {"ssh_key_record": ssh_key_record}
