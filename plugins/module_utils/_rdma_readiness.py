# -*- coding: utf-8 -*-
# PRIVATE to the collection: decides whether a Mac is ready for RDMA over Thunderbolt from
# already-parsed command output. Do not use this from other collections. Stdlib only, Python 3.9.
"""RDMA readiness of one Mac: per-port state, problems with stable codes and fixes, ``ready``.

Problem codes are part of the collection's interface (CI and AWX gate on them): never rename one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._ibv_devices import DEVICE_PREFIX, interface_of
from ansible_collections.macops.cluster.plugins.module_utils._ibv_devinfo import PORT_ACTIVE, port_one
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem as registered_problem
from ansible_collections.macops.cluster.plugins.module_utils._rdma_ctl import DISABLED, ENABLED, enabled_flag
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import version_at_least

ERROR = "error"
WARNING = "warning"

# A Mac-to-Mac TB5 link trains at 80 Gb/s; TB4/TB3 links report 40 Gb/s or less and cannot carry RDMA.
TB5_MIN_GBPS = 80
# exo README caveat 3 (exo #1293): on a Mac Studio the TB5 port next to Ethernet, receptacle 1 =
# en2, cannot do RDMA; exo's dashboard checks model name "Mac Studio" and rdma_en2.
_STUDIO_NAME = "Mac Studio"
_STUDIO_PORT_NEXT_TO_ETHERNET = "en2"

RECOVERY_STEPS = (
    "Enable RDMA from macOS Recovery (it cannot be done over SSH, even with sudo): "
    "1. shut the Mac down; "
    "2. press and hold the power button for about 10 seconds, until \"Loading startup options\" appears; "
    "3. choose Options, then Continue; "
    "4. open Utilities > Terminal; "
    "5. run `rdma_ctl enable`; "
    "6. reboot (`reboot`), then run this check again."
)


def problem(code, severity, message, fix, port=None):
    """This module's findings in the collection's one problem shape; the report adds the host."""
    return registered_problem(code, message, fix, port=port, severity=severity)


def assess(rdma_status, macos_version, min_macos, devices, devinfo, thunderbolt_ports):
    """Readiness from parsed inputs.

    rdma_status: ``enabled``/``disabled``/``unknown``, or None when rdma_ctl is not installed.
    devices: `_ibv_devices.parse` output. devinfo: `_ibv_devinfo.parse` output (may be []).
    thunderbolt_ports: `_mac_facts.thunderbolt_ports` output plus ``device_name`` of the bus
    (this Mac's marketing name), see `with_device_names`.
    Returns ``{"enabled", "ports", "problems", "ready"}``.
    """
    enabled = enabled_flag(rdma_status) if rdma_status is not None else None
    problems = _system_problems(rdma_status, macos_version, min_macos)
    ports = _ports(devices, devinfo, thunderbolt_ports)
    tb_by_interface = dict((tb["interface"], tb) for tb in thunderbolt_ports if tb["interface"])
    for port in ports:
        if port["cabled"]:
            problems.extend(_port_problems(port, tb_by_interface[port["interface"]], enabled))
    if not any(port["cabled"] for port in ports):
        problems.append(problem(
            "tb_no_cabled_ports", WARNING,
            "no Thunderbolt port is cabled to another Mac, so no RDMA link can form",
            "Cable this Mac to its peers with Thunderbolt 5 cables (see the cabling plan).",
        ))
    ready = enabled is True and not any(item["severity"] == ERROR for item in problems)
    return {"enabled": enabled, "ports": ports, "problems": problems, "ready": ready}


def _system_problems(rdma_status, macos_version, min_macos):
    problems = []
    if rdma_status is None:
        problems.append(problem(
            "rdma_ctl_missing", ERROR,
            "rdma_ctl is not installed: RDMA over Thunderbolt needs macOS %s or later" % min_macos,
            "Update macOS to %s or later (identical build on every node), then enable RDMA in Recovery." % min_macos,
        ))
    elif rdma_status == DISABLED:
        problems.append(problem("rdma_disabled", ERROR, "RDMA over Thunderbolt is disabled (`rdma_ctl status`)", RECOVERY_STEPS))
    elif rdma_status != ENABLED:
        problems.append(problem(
            "rdma_status_unknown", ERROR,
            "`rdma_ctl status` failed or printed something other than enabled/disabled",
            "Run `rdma_ctl status` on the Mac and check its output; if it says disabled: " + RECOVERY_STEPS,
        ))
    if not version_at_least(macos_version, min_macos):
        problems.append(problem(
            "macos_too_old", ERROR,
            "macOS %s is older than %s, the first release with RDMA over Thunderbolt" % (macos_version, min_macos),
            "Update macOS to %s or later; use the identical build on every node (exo compares builds)." % min_macos,
        ))
    return problems


def _ports(devices, devinfo, thunderbolt_ports):
    info_by_device = dict((device["hca_id"], device) for device in devinfo)
    present = set(device["device"] for device in devices)
    interfaces = set(interface_of(name) for name in present if interface_of(name))
    interfaces.update(tb["interface"] for tb in thunderbolt_ports if tb["connected"] and tb["interface"])
    tb_by_interface = dict((tb["interface"], tb) for tb in thunderbolt_ports if tb["interface"])
    ports = []
    for interface in sorted(interfaces, key=_natural_key):
        device = DEVICE_PREFIX + interface
        info_port = port_one(info_by_device[device]) if device in info_by_device else None
        tb = tb_by_interface.get(interface)
        cabled = _cabled_to_a_mac(tb)
        state = info_port["state"] if info_port else None
        ports.append({
            "device": device,
            "interface": interface,
            "present": device in present,
            "state": state,
            "active": state == PORT_ACTIVE,
            "ipv4_gid": bool(info_port and info_port["ipv4_gid"]),
            "gids": [gid["gid"] for gid in info_port["gids"]] if info_port else [],
            "cabled": cabled,
            "speed_gbps": tb["speed_gbps"] if cabled else None,
        })
    return ports


def _cabled_to_a_mac(tb):
    """A port RDMA could use: a Mac on a direct cable, or something attached that did not enumerate.
    A drive or dock alone, or a Mac behind a dock, is no RDMA link (the planner lists or flags it)."""
    if not tb or not tb["connected"]:
        return False
    peer = tb.get("peer")
    if peer is not None:
        return not peer.get("via")
    return not tb.get("devices")


def _port_problems(port, tb, enabled):
    interface, device = port["interface"], port["device"]
    where = "%s (Thunderbolt %d)" % (interface, tb["receptacle"])
    problems = []
    if port["speed_gbps"] is not None and port["speed_gbps"] < TB5_MIN_GBPS:
        # An error, as the planner says: this port cannot carry RDMA, so the node is not ready.
        problems.append(problem(
            "tb_link_tb4_speed", ERROR,
            "%s: this link runs at %s: a TB4 cable or port cannot carry RDMA" % (where, tb["speed"]),
            "Use a Thunderbolt 5 cable between TB5 ports on both Macs (the link should show 80 Gb/s); "
            "until then this link only serves TCP (ring) traffic.",
            interface,
        ))
    if tb.get("device_name") == _STUDIO_NAME and interface == _STUDIO_PORT_NEXT_TO_ETHERNET:
        problems.append(problem(
            "tb_port_next_to_ethernet", ERROR,
            "%s is the Mac Studio's Thunderbolt 5 port next to the Ethernet port, which cannot do RDMA" % where,
            "Move this cable to another Thunderbolt 5 port of the Mac Studio (receptacles 2-6, en3-en7).",
            interface,
        ))
    if enabled is not True or any(p["code"] == "tb_port_next_to_ethernet" for p in problems):
        # RDMA is off for the whole Mac (reported once), or this port can never carry it (the cable
        # moves to another port, which is then checked). A slow link does not end the checks: the
        # port's other faults need fixing too once the cable is replaced, and are said now.
        return problems
    peer = (tb.get("peer") or {}).get("name") or "the peer"
    if not port["present"]:
        problems.append(problem(
            "rdma_device_missing", ERROR,
            "%s is cabled but `ibv_devices` lists no %s" % (where, device),
            "Check that %s is a Thunderbolt 5 port and that RDMA is enabled (`rdma_ctl status`); "
            "reboot if RDMA was enabled in Recovery after the last boot." % interface,
            interface,
        ))
        return problems
    if not port["active"]:
        problems.append(problem(
            "rdma_port_down", ERROR,
            "%s is %s although %s is cabled to %s: likely %s has RDMA disabled, the cable is not a "
            "working Thunderbolt 5 cable, or %s is still a member of bridge0"
            % (device, port["state"] or "in an unknown state", where, peer, peer, interface),
            "Run `rdma_ctl status` on %s (enable RDMA in Recovery if disabled), remove %s from the "
            "Thunderbolt Bridge (`sudo ifconfig bridge0 deletem %s`), and reseat or replace the cable."
            % (peer, interface, interface),
            interface,
        ))
    if not port["ipv4_gid"]:
        problems.append(problem(
            "rdma_no_ipv4_gid", ERROR,
            "%s has no IPv4 address: MLX JACCL needs an IPv4-mapped GID (::ffff:a.b.c.d) on every RDMA port, "
            "and %s has none" % (device, interface),
            "Give %s an IPv4 address: run the collection's Thunderbolt network role, or by hand "
            "`sudo ifconfig %s inet 169.254.0.1 netmask 255.255.0.0 alias`." % (interface, interface),
            interface,
        ))
    return problems


def with_device_names(thunderbolt_ports, buses):
    """Add each bus's ``device_name`` (this Mac's marketing name) to the matching port."""
    names = dict((bus["receptacle"], bus["device_name"]) for bus in buses)
    return [dict(port, device_name=names.get(port["receptacle"])) for port in thunderbolt_ports]


def _natural_key(interface):
    match = re.match(r"^(\D*)(\d*)$", interface)
    prefix, number = match.groups() if match else (interface, "")
    return (prefix, int(number) if number else -1, interface)
