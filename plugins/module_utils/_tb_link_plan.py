# -*- coding: utf-8 -*-
# PRIVATE to the collection: the links of one node in the applied Thunderbolt address plan.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""The links of one node in the applied plan file: what node_facts' ``links`` and ``ssh`` groups check
(node_facts reads the file once per run and hands its text to each group)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError


def plan_ends(plan):
    """``{host: {device: end}}`` of an applied plan already parsed (thunderbolt_network's state
    file: ``{"hosts": {host: {device: {"peer_ip", "peer_host", ...}}}}``); every end names its
    ``peer_ip``, or PlanError says which does not."""
    hosts = plan.get("hosts", {}) if isinstance(plan, dict) else None
    if not isinstance(hosts, dict):
        raise PlanError("no 'hosts' object at the top level")
    for host, ends in hosts.items():
        if not isinstance(ends, dict):
            raise PlanError("hosts.%s is not an object" % host)
        for device, end in ends.items():
            if not isinstance(end, dict) or not end.get("peer_ip"):
                raise PlanError("hosts.%s.%s has no peer_ip" % (host, device))
    return hosts


def plan_links(text, host, interface=None):
    """The links of ``host`` in the applied plan ``text`` (see plan_ends), sorted by device, in the
    shape of the module's ``links`` option. ``interface`` replaces every device (``bridge0`` when
    the Thunderbolt Bridge is kept and the peers are reached through it). A host the plan does not
    list has no links."""
    try:
        plan = json.loads(text)
    except ValueError as exc:
        raise PlanError("not JSON: %s" % exc)
    ends = plan_ends(plan).get(host, {})
    return [{"interface": interface or device, "peer_ip": ends[device]["peer_ip"],
             "peer_host": ends[device].get("peer_host")} for device in sorted(ends)]


def select_peers(links, peers):
    """``links`` whose peer is in ``peers`` (all of them when ``peers`` is None)."""
    if peers is None:
        return list(links)
    return [link for link in links if link["peer_host"] in peers]


def plan_file_links(path, text, host, interface=None, peers=None):
    """(plan found, planned links, links to check) of ``host`` in the plan file at ``path``, whose
    ``text`` the caller read (None: no such file, so no plan and nothing to check). Text that is no
    such plan raises PlanError naming ``path``."""
    if text is None:
        return False, [], []
    try:
        planned = plan_links(text, host, interface)
    except PlanError as exc:
        raise PlanError("%s is not a Thunderbolt address plan: %s" % (path, exc))
    return True, planned, select_peers(planned, peers)
