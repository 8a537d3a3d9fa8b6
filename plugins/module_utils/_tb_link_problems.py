# -*- coding: utf-8 -*-
# PRIVATE to the collection: turns Thunderbolt link checks into problems with fixes.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Problems of ``macops.cluster.tb_link_check``, built by ``problem()`` (the host is the caller's to set)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem


def link_problems(links, default_route, thunderbolt_devices):
    """links: `tb_link_check` link results; default_route: {interface, gateway} or None."""
    problems = []
    for link in links:
        peer = "%s (%s)" % (link["peer_host"] or "the peer", link["peer_ip"])
        if link["route_interface"] is not None and link["route_interface"] != link["interface"]:
            problems.append(problem(
                "tb_link_wrong_interface",
                "%s: %s is reached through %s, not through its own cable on %s"
                % (link["interface"], peer, link["route_interface"], link["interface"]),
                "Check that %s carries the planned address (`networksetup -getinfo` of its service) and that no other "
                "service holds an address in the same /30; run the thunderbolt_network role again." % link["interface"],
                port=link["interface"], peer=link["peer_host"]))
        elif not link["ok"]:
            problems.append(problem(
                "tb_link_no_reply",
                "%s: no reply from %s over %s (%d of %d echo requests answered)"
                % (link["interface"], peer, link["interface"], link["received"], link["transmitted"]),
                "Check the cable between this port and %s (reseat both ends, or replace it), that %s is up and has "
                "its planned address on its end, and that no Thunderbolt Bridge holds either port."
                % (link["peer_host"] or "the peer", link["peer_host"] or "the peer"),
                port=link["interface"], peer=link["peer_host"]))
    if default_route and default_route["interface"] in thunderbolt_devices:
        problems.append(problem(
            "tb_default_route_over_thunderbolt",
            "the default route goes through %s, a Thunderbolt interface (gateway %s)"
            % (default_route["interface"], default_route["gateway"]),
            "Remove the router from the Thunderbolt service (`networksetup -setmanual SERVICE IP MASK` without a router) "
            "and put the management service first in the service order.",
            port=default_route["interface"]))
    return problems
