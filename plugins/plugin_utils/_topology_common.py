# -*- coding: utf-8 -*-
# PRIVATE to the collection: shared by the Thunderbolt topology planner modules in this
# directory. Names and behaviour may change without notice.
# Stdlib only and Python 3.9 compatible, like everything under plugins/.
"""Vocabulary shared by the topology planner: errors, problems, port names, host ordering."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils import _problems

# The planner's modules take the severities from here; they are the problem registry's.
ERROR, WARNING, INFO = _problems.ERROR, _problems.WARNING, _problems.INFO

# exo's dashboard and README single out rdma_en2 on a Mac Studio. The receptacle 1 <-> en2
# mapping is confirmed by a real M3 Ultra capture; that receptacle 1 is physically the port
# beside the Ethernet jack is what exo says, not confirmed from Apple documentation.
STUDIO_PORT_NEXT_TO_ETHERNET_INTERFACE = "en2"
STUDIO_PORT_NEXT_TO_ETHERNET_RECEPTACLE = 1

# Thunderbolt 5 Mac-to-Mac links report "80 Gb/s"; TB4/TB3 report "40 Gb/s" (`current_speed_key` in
# SPThunderboltDataType, as exo's src/exo/shared/types/thunderbolt.py records it).
TB5_LINK_GBPS = 80


class TopologyError(ValueError):
    """Input the planner cannot plan from; the filters re-raise it as AnsibleFilterError."""


def natural_key(name):
    """Sort key that puts mac2 before mac10 (plain string order would not)."""
    parts = []
    for piece in re.split(r"(\d+)", str(name)):
        if piece.isdigit():
            parts.append((0, int(piece), ""))
        elif piece:
            parts.append((1, 0, piece.lower()))
    return tuple(parts)


def port_name(end):
    """Name of a link end's port as used in link ids and the address plan.

    The BSD interface when `networksetup -listallhardwareports` mapped it; otherwise the
    receptacle, so that an unmapped port still has a stable, unique name.
    """
    if end.get("interface"):
        return end["interface"]
    return "port%d" % end["receptacle"]


def describe_port(interface, receptacle):
    """`en3 (port 2)`: the interface for people who type commands, the port for people cabling."""
    if interface:
        return "%s (port %d)" % (interface, receptacle)
    return "port %d (no interface)" % receptacle


def describe_end(end):
    """`mac1 en3 (port 2)`."""
    return "%s %s" % (end["host"], describe_port(end.get("interface"), end["receptacle"]))


def describe_speed(speed_gbps):
    if speed_gbps is None:
        return "speed unknown"
    return "%d Gb/s" % speed_gbps


def link_label(link):
    """`en3 (port 2) <-> en4 (port 3), 80 Gb/s`: the edge label of the drawings."""
    return "%s <-> %s, %s" % (
        describe_port(link["a"].get("interface"), link["a"]["receptacle"]),
        describe_port(link["b"].get("interface"), link["b"]["receptacle"]),
        describe_speed(link["speed_gbps"]),
    )


def describe_link(link):
    """`mac1 en3 (port 2) <-> mac2 en4 (port 3)`."""
    return "%s <-> %s" % (describe_end(link["a"]), describe_end(link["b"]))


def make_problem(code, severity, message, fix, host=None, port=None, peer=None, link_id=None):
    """The planner's `problem()`: severity always explicit, a cable's id in ``details["link_id"]``."""
    return _problems.problem(code, message, fix, host=host, port=port, peer=peer, severity=severity,
                             details={"link_id": link_id} if link_id else None)


def link_id_of(found):
    """The cable a problem is about (``details["link_id"]``), or None."""
    return (found.get("details") or {}).get("link_id")


def is_mac_studio(mac):
    return str(mac.get("model_name") or "").startswith("Mac Studio")


def is_port_next_to_ethernet(mac, interface, receptacle):
    """True for the Mac Studio port that cannot carry RDMA (exo: `rdma_en2`)."""
    if not is_mac_studio(mac):
        return False
    if interface:
        return interface == STUDIO_PORT_NEXT_TO_ETHERNET_INTERFACE
    return receptacle == STUDIO_PORT_NEXT_TO_ETHERNET_RECEPTACLE
