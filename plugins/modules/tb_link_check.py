#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: tb_link_check
short_description: Check that each Thunderbolt link of a Mac reaches its peer over the right interface
version_added: 0.1.0
description:
  - For every link in O(links), or of this node in the applied address plan O(plan_file), asks
    C(route -n get <peer_ip>) which interface the kernel uses and pings the peer with
    C(ping -c <count> [-i <interval>] -t <timeout> <peer_ip>).
  - A link is C(ok) when the route leaves through the link's own interface and at least
    one echo reply came back.
  - Also reads C(route -n get default) and, when there is a default route, the hardware ports
    (C(networksetup -listallhardwareports)), and reports a default route through a Thunderbolt port or
    bridge, which would send internet traffic over a cable to another Mac.
  - Never changes anything and never fails because a link is down; gate on RV(problems).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  links:
    description:
      - The links to check, usually from the C(addresses.hosts) part of the topology plan.
      - Exactly one of O(links) and O(plan_file) is required.
    type: list
    elements: dict
    suboptions:
      interface:
        description: The interface the peer must be reached through (C(en3), or C(bridge0) in bridge mode).
        type: str
        required: true
      peer_ip:
        description: The peer's address on this link.
        type: str
        required: true
      peer_host:
        description: The peer's inventory name, only used in messages.
        type: str
  plan_file:
    description:
      - The applied address plan the thunderbolt_network role writes on every node
        (C(macops_state_dir)/thunderbolt-plan.json); the links checked are the ones it lists for O(host),
        so a caller needs no separate module run to read the file.
      - A missing file is no failure; RV(plan_found) is then false and nothing is checked. A file that
        is not such a plan fails the module.
      - When the plan lists no link for O(host), nothing is checked (no command runs).
    type: path
  host:
    description: This node's inventory name in O(plan_file). Required with O(plan_file).
    type: str
  plan_interface:
    description:
      - With O(plan_file), the interface every peer must be reached through instead of the plan's port,
        such as C(bridge0) when the thunderbolt_network role keeps the Thunderbolt Bridge.
    type: str
  peers:
    description:
      - With O(plan_file), check only the links to these peers, for example the nodes that are up (a cable
        to a node that is down cannot answer). RV(planned_links) still counts every link of the plan.
      - Default is every peer.
    type: list
    elements: str
  count:
    description: Echo requests per link.
    type: int
    default: 2
  timeout:
    description: Seconds before ping gives up on a link (macOS C(ping -t)).
    type: int
    default: 3
  interval:
    description:
      - Seconds between the echo requests (macOS C(ping -i)); ping's own 1 s when omitted. macOS lets
        only root go below 0.1 s.
    type: float
notes:
  - C(ping) is looked up in C(/sbin) (macOS) and then on PATH.
seealso:
  - module: macops.cluster.tb_network
"""

EXAMPLES = r"""
- name: Ping every planned peer over its own cable
  macops.cluster.tb_link_check:
    links:
      - {interface: en3, peer_ip: 198.19.0.2, peer_host: mac2}
  register: __links

- name: Ping the peers that are up of every cable this node has in the applied plan
  macops.cluster.tb_link_check:
    plan_file: /Library/Application Support/macops/thunderbolt-plan.json
    host: "{{ inventory_hostname }}"
    peers: [mac2, mac3]
  register: __links
"""

RETURN = r"""
links:
  description: One entry per checked link.
  returned: always
  type: list
  elements: dict
  sample: [{"interface": "en3", "peer_ip": "198.19.0.2", "peer_host": "mac2", "route_interface": "en3",
            "transmitted": 2, "received": 2, "ok": true}]
plan_found:
  description: O(plan_file) exists.
  returned: when O(plan_file) is set
  type: bool
  sample: true
planned_links:
  description: How many links O(plan_file) lists for O(host), checked or not (see O(peers)).
  returned: when O(plan_file) is set
  type: int
  sample: 3
default_route:
  description:
    - Interface and gateway of the default route, null when there is none.
    - Also null when O(plan_file) lists no link for O(host), since nothing is checked then.
  returned: always
  type: dict
  sample: {"interface": "en0", "gateway": "10.0.1.1"}
problems:
  description:
    - C(tb_link_no_reply) (the peer did not answer), C(tb_link_wrong_interface) (the peer is reached
      through another interface), C(tb_default_route_over_thunderbolt); every one is an error.
    - Each in the collection's one problem shape (C(docs/problems.md)); C(host) is null, the caller knows it.
  returned: always
  type: list
  elements: dict
  sample: [{"code": "tb_link_no_reply", "severity": "error", "host": null, "port": "en3", "peer": "mac2",
            "message": "en3: no reply from mac2 (198.19.0.2) ...", "fix": "...", "details": {}}]
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_plan import read_plan_file
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_probe import check_links


def read_plan(module):
    """(plan_found, planned links, links to check) from O(plan_file)."""
    params = module.params
    try:
        return read_plan_file(params["plan_file"], params["host"], params["plan_interface"], params["peers"])
    except PlanError as exc:
        module.fail_json(msg=str(exc))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            links=dict(type="list", elements="dict", options=dict(
                interface=dict(type="str", required=True),
                peer_ip=dict(type="str", required=True),
                peer_host=dict(type="str"),
            )),
            plan_file=dict(type="path"),
            host=dict(type="str"),
            plan_interface=dict(type="str"),
            peers=dict(type="list", elements="str"),
            count=dict(type="int", default=2),
            timeout=dict(type="int", default=3),
            interval=dict(type="float"),
        ),
        mutually_exclusive=[("links", "plan_file")],
        required_one_of=[("links", "plan_file")],
        required_by={"plan_file": "host"},
        supports_check_mode=True,
    )
    result = {}
    if module.params["plan_file"] is None:
        wanted = module.params["links"]
    else:
        found, planned, wanted = read_plan(module)
        result.update(plan_found=found, planned_links=len(planned))
        if not planned:
            # No cable of this node in the plan: nothing to ping, and no reason to judge its routes.
            module.exit_json(changed=False, links=[], default_route=None, problems=[], **result)
    params = module.params
    links, default_route, problems = check_links(module, wanted, params["count"], params["timeout"], params["interval"])
    module.exit_json(changed=False, links=links, default_route=default_route, problems=problems, **result)


if __name__ == "__main__":
    main()
