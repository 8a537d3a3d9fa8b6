# -*- coding: utf-8 -*-
# PRIVATE to the collection: turns Thunderbolt link checks into problems with fixes.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Problems of the Thunderbolt link check (``_tb_link_probe``), built by ``problem()`` (the host is the caller's to
set)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem


def link_problems(links, default_route, thunderbolt_devices):
    """links: the link check's results per link; default_route: {interface, gateway} or None."""
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


BRIDGE_RETURNED_FIX = ("Nothing to do if it happens once. If it keeps coming back, find what re-creates it (the exo app, "
                       "a configuration profile, a restored network location).")
ADDRESS_RESET_FIX = ("Find what changes Thunderbolt services (a network location switch, an MDM profile, a script "
                     "calling networksetup -setdhcp) and stop it.")
EXO_DAEMON_FIX = ("exo's LaunchDaemon io.exo.networksetup (%s) resets Thunderbolt services to DHCP. Disable it: run "
                  "the exo role (it turns the daemon off), or by hand `sudo launchctl bootout system/io.exo.networksetup` "
                  "and `sudo launchctl disable system/io.exo.networksetup`, then run this role again.")


def repaired_drift_problems(host, applied, daemons, daemons_loaded):
    """What tb_network found changed since its last run and has just put back (only when it ran
    before: ``applied``'s state_found): the Thunderbolt Bridge back, a service that lost its address;
    and a loaded address-resetting daemon, their likely cause. Warnings, each for ``host``. The
    read-only check of the same drift, where nothing is put back, is
    ``_tb_config_check.plan_difference_problems``."""
    problems = []
    name = host or "this node"
    daemon_fix = EXO_DAEMON_FIX % ", ".join(daemons) if daemons else None
    if applied["state_found"] and applied["bridge_removed"]:
        problems.append(problem(
            "tb_bridge_returned", "%s: the Thunderbolt Bridge was back (enabled service, bridge0 defined or live); "
            "it was removed again" % name, BRIDGE_RETURNED_FIX, host=host, port="bridge0"))
    readdressed = applied["readdressed"]
    if applied["state_found"] and readdressed:
        problems.append(problem(
            "tb_address_reset", "%s: %s had lost the planned address (found: %s); applied again" % (
                name, ", ".join(entry["service"] for entry in readdressed),
                ", ".join(str((entry.get("was") or {}).get("method")) for entry in readdressed)),
            daemon_fix or ADDRESS_RESET_FIX, host=host, port=", ".join(entry["device"] for entry in readdressed)))
    if daemons_loaded:
        problems.append(problem(
            "tb_exo_networksetup_daemon", "%s: exo's io.exo.networksetup LaunchDaemon is loaded" % name,
            EXO_DAEMON_FIX % ", ".join(daemons_loaded), host=host))
    return problems
