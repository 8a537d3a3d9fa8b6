# -*- coding: utf-8 -*-
# PRIVATE to the collection: whether a node's Thunderbolt network is still what was applied.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""The read-only half of ``macops.cluster.tb_network``, for doctor.yml (``node_facts`` group
``network``): the same planner (``_tb_network.plan``) runs on what the node reads now, against the
plan file the thunderbolt_network role wrote when it last applied, and nothing is applied. Every
step the planner would take is a difference since then, and each kind of difference is one
problem: the Thunderbolt Bridge back, a cable's address lost or reset, the service order, the MTU
or a second service on a planned port."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

# Written by tb_network beside the plan (its state file): the settings it applied with the addresses.
APPLIED_KEY = "applied"
BRIDGE_DEVICE = "bridge0"
REAPPLY_FIX = "Run site.yml --tags thunderbolt_network to apply the plan again"


def applied_settings(path, text, host):
    """(found, wanted) from the plan file at ``path``, whose ``text`` the caller read (None: no such
    file): ``wanted`` is the tb_network input that applied it on ``host`` ({services, mtu, bridge,
    order}), None without a file. A plan written before tb_network recorded its settings is read
    with its defaults (bridge absent, no MTU, order on). Raises PlanError for text that is not such
    a plan."""
    if text is None:
        return False, None
    try:
        plan = json.loads(text)
    except ValueError as exc:
        raise PlanError("%s is not a Thunderbolt address plan: not JSON: %s" % (path, exc))
    ends = (plan.get("hosts") or {}).get(host) if isinstance(plan, dict) else None
    if ends is not None and not isinstance(ends, dict):
        raise PlanError("%s is not a Thunderbolt address plan: hosts.%s is not an object" % (path, host))
    applied = plan.get(APPLIED_KEY) if isinstance(plan.get(APPLIED_KEY), dict) else {}
    bridge = applied.get("bridge") or "absent"
    services = []
    for device in sorted(ends or {}):
        end = ends[device]
        if not isinstance(end, dict) or not end.get("ip"):
            raise PlanError("%s is not a Thunderbolt address plan: hosts.%s.%s has no ip" % (path, host, device))
        services.append({"device": BRIDGE_DEVICE if bridge == "keep" else device, "address": end["ip"],
                         "netmask": end.get("netmask") or "255.255.255.252"})
    return True, {"services": services, "mtu": applied.get("mtu"), "bridge": bridge,
                  "order": applied.get("order", True)}


def _ports(differences, kind):
    return sorted(set(d["device"] for d in differences if d["kind"] == kind and d["device"]))


def _reasons(differences, kinds):
    return "; ".join(d["reason"] for d in differences if d["kind"] in kinds)


def _bridge_text(differences):
    """What is back of the bridge, in one clause per fact (its members named once)."""
    bridge = [d for d in differences if d["kind"] == "bridge"]
    members = [d["device"] for d in bridge if d["reason"].endswith("member of the live bridge")]
    parts = [d["reason"] for d in bridge if not d["reason"].endswith("member of the live bridge")
             and not (members and d["reason"] == "the live bridge exists")]
    if members:
        parts.append("the live bridge holds %s" % ", ".join(members))
    return "; ".join(parts)


def plan_difference_problems(host, differences, daemon_loaded):
    """One problem per kind of difference between the node and its applied plan, as the planner found
    them (``_tb_network.plan``'s ``differences``; read-only, nothing is put back: what tb_network put
    back on a run is ``_tb_link_problems.repaired_drift_problems``);
    ``daemon_loaded``: whether exo's address-resetting daemon is loaded (it is the likely cause of a
    reset address, and the fix names it)."""
    problems = []
    if any(d["kind"] == "bridge" for d in differences):
        problems.append(problem(
            "tb_bridge_on", "%s: the Thunderbolt Bridge is back (%s). It joins the Thunderbolt ports into one "
            "interface: the planned per-cable addresses stop working and traffic can loop between the cables."
            % (host, _bridge_text(differences)),
            "%s (it removes the bridge). If it keeps coming back, find what re-creates it: the exo app, a "
            "configuration profile or a restored network location." % REAPPLY_FIX, host=host, port=BRIDGE_DEVICE))
    for device in _ports(differences, "address"):
        reasons = "; ".join(d["reason"] for d in differences if d["kind"] == "address" and d["device"] == device)
        cause = ("exo's io.exo.networksetup daemon is loaded on %s and resets Thunderbolt services to DHCP: "
                 "`sudo launchctl bootout system/io.exo.networksetup`, then " % host) if daemon_loaded else ""
        problems.append(problem(
            "tb_address_differs", "%s %s: the cable's service no longer has its planned address (%s)."
            % (host, device, reasons),
            "%s%s. Find what changes the service (a location switch, an MDM profile, a script calling "
            "networksetup -setdhcp) if it happens again." % (cause, REAPPLY_FIX if not cause else REAPPLY_FIX.lower()),
            host=host, port=device))
    if any(d["kind"] == "order" for d in differences):
        problems.append(problem(
            "tb_service_order", "%s: a Thunderbolt service comes before the management service in the network "
            "service order, so macOS may send management or internet traffic over a cable." % host,
            "%s (it orders the services), or `networksetup -ordernetworkservices` with the management service "
            "first." % REAPPLY_FIX, host=host))
    others = [d for d in differences if d["kind"] in ("mtu", "duplicate")]
    if others:
        problems.append(problem(
            "tb_config_drift", "%s: the Thunderbolt settings differ from the applied plan (%s)."
            % (host, _reasons(others, ("mtu", "duplicate"))),
            "%s." % REAPPLY_FIX, host=host, port=", ".join(sorted(set(_ports(others, "mtu") + _ports(others, "duplicate"))))))
    return problems
