# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.per_host: one variable of each host, by inventory name."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: per_host
short_description: One variable of each host, by inventory name
version_added: 0.2.0
author: macops.cluster team
description:
  - Turns what every host of a play registered or published into one mapping, inventory name to value, for a
    role's step that judges the whole cluster on one host (the doctor's judge, the deployment plan, the report).
  - The same as C(dict(hosts | zip(hosts | map('extract', hostvars, key)))), said once; a host that lacks the
    variable is an error naming the host and the variable, not an undefined value met later.
positional: hostvars, key
options:
  _input:
    description: Inventory names, such as C(ansible_play_hosts).
    type: list
    elements: str
    required: true
  hostvars:
    description: The play's C(hostvars).
    type: dict
    required: true
  key:
    description: The variable, or the path to a value inside it (a list of keys), as for C(extract).
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Every node's registered sweep, by inventory name
  ansible.builtin.set_fact:
    sweeps: "{{ ansible_play_hosts | macops.cluster.per_host(hostvars, '__doctor_sweep') }}"
  run_once: true

- name: One value inside each node's fact
  ansible.builtin.debug:
    msg: "{{ ansible_play_hosts | macops.cluster.per_host(hostvars, ['macops_python_env', 'version']) }}"
"""

RETURN = r"""
_value:
  description: Inventory name to the value, in the order of O(_input).
  type: dict
  sample: {mac1: "3.12.8", mac2: "3.12.8"}
"""

from ansible.errors import AnsibleFilterError


def per_host(hosts, hostvars, key):
    path = list(key) if isinstance(key, (list, tuple)) else [key]
    if not path:
        raise AnsibleFilterError("per_host: the key is empty; name a variable or a path of keys")
    found = {}
    for host in hosts:
        value = hostvars[host]
        for depth, step in enumerate(path):
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                raise AnsibleFilterError("per_host: %s has no %s" % (
                    host, ".".join(str(part) for part in path[:depth + 1])))
        found[host] = value
    return found


class FilterModule(object):
    def filters(self):
        return {"per_host": per_host}
