# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: controller_address
short_description: The control machine's own address toward each node
version_added: 0.2.0
author: macops.cluster team (@macops)
description:
  - For each address given, the local address the control machine's kernel picks to reach it (its route's source
    address), as the nodes see the controller's requests when no NAT sits between them. The serving firewall admits
    it, so the playbook that checks the endpoint from the controller is never locked out by its own rule.
  - Sends nothing. A UDP socket is connected (which only looks up the route) and read back; an address with no route
    gives nothing.
options:
  _terms:
    description: The nodes' addresses (IPv4 or IPv6).
    type: list
    elements: str
    required: true
notes:
  - Behind NAT (an AWX pod in Kubernetes) the nodes see the NAT's address instead; add it to serve_allowed_networks.
"""

EXAMPLES = r"""
- name: The controller's address toward every node
  ansible.builtin.debug:
    msg: "{{ lookup('macops.cluster.controller_address', '192.168.1.11', '192.168.1.12', wantlist=True) }}"
"""

RETURN = r"""
_raw:
  description: The controller's distinct source addresses, in the order first found.
  type: list
  elements: str
"""

import socket

from ansible.plugins.lookup import LookupBase


def source_address(address):
    """The local address the route to `address` leaves from, or None without a route. Nothing is sent."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    probe = socket.socket(family, socket.SOCK_DGRAM)
    try:
        probe.connect((address, 9))  # the discard port; a UDP connect sends no packet
        return probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        found = []
        for term in terms:
            address = source_address(str(term))
            if address and address not in found:
                found.append(address)
        return found
