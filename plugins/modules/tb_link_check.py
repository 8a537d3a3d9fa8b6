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
  - For every link in O(links), asks C(route -n get <peer_ip>) which interface the kernel uses and
    pings the peer with C(ping -c <count> -t <timeout> <peer_ip>).
  - A link is C(ok) when the route leaves through the link's own interface and at least
    one echo reply came back.
  - Also reads C(route -n get default) and reports a default route through a Thunderbolt port or
    bridge, which would send internet traffic over a cable to another Mac.
  - Never changes anything and never fails because a link is down; gate on RV(problems).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  links:
    description: The links to check, usually from the C(addresses.hosts) part of the topology plan.
    type: list
    elements: dict
    required: true
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
  count:
    description: Echo requests per link.
    type: int
    default: 2
  timeout:
    description: Seconds before ping gives up on a link (macOS C(ping -t)).
    type: int
    default: 3
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
"""

RETURN = r"""
links:
  description: One entry per checked link.
  returned: always
  type: list
  elements: dict
  sample: [{"interface": "en3", "peer_ip": "198.19.0.2", "peer_host": "mac2", "route_interface": "en3",
            "transmitted": 2, "received": 2, "ok": true}]
default_route:
  description: Interface and gateway of the default route, null when there is none.
  returned: always
  type: dict
  sample: {"interface": "en0", "gateway": "10.0.1.1"}
problems:
  description:
    - C(tb_link_no_reply) (the peer did not answer), C(tb_link_wrong_interface) (the peer is reached
      through another interface), C(tb_default_route_over_thunderbolt); every one is an error.
  returned: always
  type: list
  elements: dict
  sample: [{"code": "tb_link_no_reply", "severity": "error", "port": "en3", "peer_host": "mac2",
            "message": "en3: no reply from mac2 (198.19.0.2) ...", "fix": "..."}]
"""

import threading

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._ping import parse_summary
from ansible_collections.macops.cluster.plugins.module_utils._route import parse_route_get
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_problems import link_problems


def route_get(module, route, destination):
    """The route's parsed block, or None when there is no route (route exits 1)."""
    rc, stdout, _stderr = module.run_command([route, "-n", "get", destination])
    if rc != 0:
        return None
    return commands.parse(module, parse_route_get, stdout)


def probe_link(module, route, ping, link):
    """The raw outputs of `route get` and `ping` for one link. Runs in a thread, so it only runs
    commands: parsing (which may fail the module) happens in the main thread."""
    route_result = module.run_command([route, "-n", "get", link["peer_ip"]])
    ping_result = module.run_command([ping, "-c", str(module.params["count"]), "-t", str(module.params["timeout"]),
                                      link["peer_ip"]])
    return route_result, ping_result


def judge_link(module, link, route_result, ping_result):
    found = commands.parse(module, parse_route_get, route_result[1]) if route_result[0] == 0 else None
    summary = parse_summary(ping_result[1]) or {"transmitted": 0, "received": 0}
    route_interface = found["interface"] if found else None
    return {
        "interface": link["interface"],
        "peer_ip": link["peer_ip"],
        "peer_host": link.get("peer_host"),
        "route_interface": route_interface,
        "transmitted": summary["transmitted"],
        "received": summary["received"],
        "ok": ping_result[0] == 0 and summary["received"] > 0 and route_interface == link["interface"],
    }


def check_links(module, route, ping, links):
    """Every link at once: each ping waits about a second per packet, so one after another the
    check would take a second or more per cable."""
    probes = [None] * len(links)

    def probe(index):
        probes[index] = probe_link(module, route, ping, links[index])

    threads = [threading.Thread(target=probe, args=(index,)) for index in range(len(links))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [judge_link(module, link, *probes[index]) for index, link in enumerate(links)]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            links=dict(type="list", elements="dict", required=True, options=dict(
                interface=dict(type="str", required=True),
                peer_ip=dict(type="str", required=True),
                peer_host=dict(type="str"),
            )),
            count=dict(type="int", default=2),
            timeout=dict(type="int", default=3),
        ),
        supports_check_mode=True,
    )
    route, ping = commands.require_command(module, "route"), commands.require_command(module, "ping")
    ports = commands.parse(module, parse_hardware_ports, commands.run(module, [commands.require_command(module, "networksetup"), "-listallhardwareports"]))
    thunderbolt = sorted(port["device"] for port in ports if port["name"].startswith("Thunderbolt"))
    default = route_get(module, route, "default")
    default_route = {"interface": default["interface"], "gateway": default["gateway"]} if default else None
    links = check_links(module, route, ping, module.params["links"])
    module.exit_json(changed=False, links=links, default_route=default_route,
                     problems=link_problems(links, default_route, thunderbolt + ["bridge0"]))


if __name__ == "__main__":
    main()
