# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.ipv4_network: the network an address/prefix belongs to."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: ipv4_network
short_description: The IPv4 network of an address and prefix length, as network/prefix
version_added: 0.1.0
author: macops.cluster team
description:
  - C(198.18.0.11) with prefix C(24) gives C(198.18.0.0/24); a network given as O(_input) is returned unchanged.
  - Stdlib only (no C(netaddr)), so it needs nothing beyond ansible-core on the controller.
positional: prefix
options:
  _input:
    description: An IPv4 address, or an address/prefix.
    type: str
    required: true
  prefix:
    description: Prefix length to use when O(_input) has none.
    type: int
    default: 32
"""

EXAMPLES = r"""
- name: Allow the management LAN of this node
  ansible.builtin.debug:
    msg: "{{ ansible_host | macops.cluster.ipv4_network(24) }}"
"""

RETURN = r"""
_value:
  description: The network in C(a.b.c.d/n) form.
  type: str
  sample: 198.18.0.0/24
"""

import ipaddress

from ansible.errors import AnsibleFilterError


def ipv4_network(address, prefix=32):
    text = str(address).strip()
    if "/" not in text:
        text = "%s/%d" % (text, int(prefix))
    try:
        return str(ipaddress.IPv4Interface(text).network)
    except ValueError as exc:
        raise AnsibleFilterError("ipv4_network: %r is not an IPv4 address or network: %s" % (str(address), exc))


class FilterModule(object):
    def filters(self):
        return {"ipv4_network": ipv4_network}
