# -*- coding: utf-8 -*-
# PRIVATE to the collection: the Thunderbolt address plan of the topology planner.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""One /30 per cable out of a pool, stable across runs.

MLX (`mlx.distributed_config`) gives each cable a /30 and numbers them in discovery order,
so adding a Mac renumbers every cable after it. Here a cable keeps the subnet it had in the
`previous` plan (or on the wire) and only new cables take the lowest free /30, so a role that
applies the plan touches only the cables that changed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ._topology_common import INFO, ERROR, TopologyError, describe_link, make_problem, port_name

DEFAULT_POOL = "198.19.0.0/16"
LINK_PREFIX = 30
LINK_NETMASK = "255.255.255.252"


def parse_pool(pool):
    """The pool as an IPv4Network; TopologyError naming the pool when it cannot hold any link."""
    try:
        network = ipaddress.IPv4Network(str(pool), strict=True)
    except ValueError as exc:
        raise TopologyError("Thunderbolt address pool %r is not a valid IPv4 network: %s" % (pool, exc))
    if network.prefixlen > LINK_PREFIX:
        raise TopologyError("Thunderbolt address pool %r is too small: one cable needs a /%d"
                            % (pool, LINK_PREFIX))
    return network


def pool_problem(pool, nodes, management_addresses=()):
    """Why `pool` cannot hold the Thunderbolt plan of `nodes` Macs, or "" when it can: it must be a
    network with one /30 per cable of a full mesh and hold no management address."""
    try:
        network = parse_pool(pool)
    except TopologyError as exc:
        return str(exc)
    capacity = 2 ** (LINK_PREFIX - network.prefixlen)
    needed = int(nodes) * (int(nodes) - 1) // 2
    if capacity < needed:
        return "%s holds %d /%d subnets, a full mesh of %d Macs has %d cables" % (
            network, capacity, LINK_PREFIX, int(nodes), needed)
    inside = []
    for address in management_addresses or ():
        try:
            if ipaddress.IPv4Address(str(address)) in network:
                inside.append(str(address))
        except ValueError:
            continue
    if inside:
        return "%s contains the management address(es) %s" % (network, ", ".join(sorted(inside)))
    return ""


def _as_network(key, value):
    if isinstance(value, dict):
        if value.get("subnet"):
            value = value["subnet"]
        elif value.get("ip"):
            value = "%s/%s" % (value["ip"], value.get("prefix", LINK_PREFIX))
        else:
            raise TopologyError("previous[%r] has neither 'subnet' nor 'ip': %r" % (key, value))
    try:
        # An interface address seen on a Mac (198.19.0.1/30) names its subnet as well.
        return ipaddress.IPv4Interface(str(value)).network
    except ValueError:
        raise TopologyError("previous[%r] = %r is not an IPv4 subnet or address/prefix" % (key, value))


def previous_subnets(previous):
    """{link id or host:interface: IPv4Network} from any form `previous` may take.

    Accepted: a whole topology a former run returned, its `addresses`, its `addresses.links`,
    or a flat mapping whose keys are link ids (`mac1:en3--mac2:en4`) or link ends
    (`mac1:en3`, as observed with ifconfig) and whose values are subnets or address/prefix.
    """
    if not previous:
        return {}
    if not isinstance(previous, dict):
        raise TopologyError("previous must be a dict (a former plan or {link_id: subnet}), got %s"
                            % type(previous).__name__)
    if isinstance(previous.get("addresses"), dict):
        previous = previous["addresses"]
    if isinstance(previous.get("links"), dict):
        previous = previous["links"]
    return dict((str(key), _as_network(key, value)) for key, value in previous.items())


def _end_key(end):
    return "%s:%s" % (end["host"], port_name(end))


def _kept_subnet(link, known):
    for key in (link["id"], _end_key(link["a"]), _end_key(link["b"])):
        if key in known:
            return known[key]
    return None


def plan_addresses(hosts, records, links, pool, previous):
    """Return (addresses, problems); see the module docstring for the stability rule."""
    network = parse_pool(pool)
    capacity = 2 ** (LINK_PREFIX - network.prefixlen)
    if capacity < len(links):
        raise TopologyError("Thunderbolt address pool %r is too small: it holds %d /%d subnets but the "
                            "cabling has %d cables" % (pool, capacity, LINK_PREFIX, len(links)))
    known = previous_subnets(previous)
    problems = []
    taken = {}
    assigned = {}
    for link in links:
        subnet = _kept_subnet(link, known)
        if subnet is None:
            continue
        if subnet.prefixlen != LINK_PREFIX:
            reason = "is not a /%d" % LINK_PREFIX
        elif not subnet.subnet_of(network):
            reason = "is outside the pool %s" % network
        elif subnet in taken:
            reason = "is already kept by %s" % taken[subnet]
        else:
            taken[subnet] = link["id"]
            assigned[link["id"]] = subnet
            continue
        problems.append(make_problem(
            "tb_address_renumbered", INFO,
            "%s had %s, which %s; it gets a new subnet." % (describe_link(link), subnet, reason),
            "Nothing to do: the plan re-addresses both ends of this cable.",
            host=link["a"]["host"], port=link["a"]["interface"], peer=link["b"]["host"],
            link_id=link["id"]))

    free = (subnet for subnet in network.subnets(new_prefix=LINK_PREFIX) if subnet not in taken)
    for link in links:
        if link["id"] not in assigned:
            assigned[link["id"]] = next(free)

    link_plan = {}
    host_plan = dict((host, {}) for host in hosts)
    for link in links:
        subnet = assigned[link["id"]]
        ips = (str(subnet.network_address + 1), str(subnet.network_address + 2))
        link_plan[link["id"]] = {"subnet": str(subnet), "a_ip": ips[0], "b_ip": ips[1]}
        for end, other, own_ip, peer_ip in ((link["a"], link["b"], ips[0], ips[1]),
                                            (link["b"], link["a"], ips[1], ips[0])):
            host_plan[end["host"]][port_name(end)] = {
                "ip": own_ip,
                "prefix": LINK_PREFIX,
                "netmask": LINK_NETMASK,
                "peer_ip": peer_ip,
                "peer_host": other["host"],
                "link_id": link["id"],
            }
    problems.extend(_control_ips_in_pool(hosts, records, network))
    return {"pool": str(network), "links": link_plan, "hosts": host_plan}, problems


def _control_ips_in_pool(hosts, records, network):
    problems = []
    for host in hosts:
        control_ip = records[host]["control_ip"]
        try:
            inside = control_ip is not None and ipaddress.IPv4Address(str(control_ip)) in network
        except ValueError:
            continue
        if inside:
            problems.append(make_problem(
                "tb_pool_overlaps_control", ERROR,
                "%s's management address %s lies inside the Thunderbolt pool %s; routes to the "
                "cables would capture management traffic." % (host, control_ip, network),
                "Choose a Thunderbolt address pool that does not contain any management address "
                "(macops_tb_address_pool).", host=host))
    return problems
