# -*- coding: utf-8 -*-
# PRIVATE to the collection: the controller-side plan of benchmark.yml's links suite, behind the
# macops.cluster.benchmark_plan filter. Names and behaviour may change without notice.
# Stdlib only and Python 3.9 compatible.
"""Which cables are measured together: rounds of disjoint pairs (an edge colouring of the cabling).

No node may run two tests at once (they would share its CPU and its other cables' bandwidth), and a
cable costs one test per round it is in. Colouring the cabling's edges so that no two cables of one
round share a node gives the fewest rounds: a full mesh of 4 has 6 cables and 3 rounds, a ring of 8
has 8 cables and 2 rounds, where one cable at a time would take 6 and 8.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_plan import plan_ends

# The cabling is small (8 Macs with 6 ports each have at most 24 cables), so an exact search for
# the fewest rounds is cheap; this bounds it all the same.
_SEARCH_STEPS = 200000


def _natural(text):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(text))]


def cables_from_plan(plan, hosts=None):
    """The cables of an applied Thunderbolt plan (`thunderbolt-plan.json`'s `hosts`), once each.

    Returns [{link_id, a, b, a_port, b_port, a_ip, b_ip}], a the end whose host sorts first; with
    `hosts`, only cables whose two ends are both in it. The plan's ends are read by the one reader of the
    applied plan (_tb_link_plan.plan_ends, as node_facts and the doctor read it); a cable also needs
    each end's link_id, ip and peer_host."""
    ends = {}
    try:
        hosts_ends = plan_ends({"hosts": plan or {}})
    except PlanError as exc:
        raise PlanError("the applied plan: %s; a plan entry needs link_id, ip, peer_host and peer_ip" % exc)
    for host, ports in sorted(hosts_ends.items()):
        for port, entry in sorted(ports.items()):
            link_id, ip, peer_host, peer_ip = (entry.get(key) for key in ("link_id", "ip", "peer_host", "peer_ip"))
            if not (link_id and ip and peer_host):
                raise PlanError("%s %s: a plan entry needs link_id, ip, peer_host and peer_ip, got %r"
                                % (host, port, entry))
            ends.setdefault(link_id, []).append({"host": host, "port": port, "ip": ip,
                                                 "peer_host": peer_host, "peer_ip": peer_ip})
    cables = []
    for link_id, pair in sorted(ends.items(), key=lambda item: _natural(item[0])):
        if len(pair) != 2 or pair[0]["peer_host"] != pair[1]["host"] or pair[1]["peer_host"] != pair[0]["host"]:
            raise PlanError("cable %s does not have two matching ends in the applied plan: %r" % (link_id, pair))
        a, b = sorted(pair, key=lambda end: _natural(end["host"]))
        if hosts is not None and not (a["host"] in hosts and b["host"] in hosts):
            continue
        cables.append({"link_id": link_id, "a": a["host"], "b": b["host"], "a_port": a["port"],
                       "b_port": b["port"], "a_ip": a["ip"], "b_ip": b["ip"]})
    return cables


def _greedy(cables, order):
    rounds = []
    for index in order:
        cable = cables[index]
        for members in rounds:
            if cable["a"] not in members["nodes"] and cable["b"] not in members["nodes"]:
                members["nodes"].update((cable["a"], cable["b"]))
                members["cables"].append(index)
                break
        else:
            rounds.append({"nodes": {cable["a"], cable["b"]}, "cables": [index]})
    return [members["cables"] for members in rounds]


def _exact(cables, colours):
    """A colouring with `colours` rounds, or None (also when the search runs out of steps)."""
    order = sorted(range(len(cables)), key=lambda i: _natural(cables[i]["link_id"]))
    busy = [set() for colour in range(colours)]
    chosen = [None] * len(cables)
    steps = [0]

    def place(position):
        if position == len(order):
            return True
        steps[0] += 1
        if steps[0] > _SEARCH_STEPS:
            return False
        cable = cables[order[position]]
        used_before = max([c for c in chosen if c is not None] or [-1])
        # Rounds are interchangeable: trying one unused round is enough.
        for colour in range(min(colours, used_before + 2)):
            if cable["a"] in busy[colour] or cable["b"] in busy[colour]:
                continue
            busy[colour].update((cable["a"], cable["b"]))
            chosen[order[position]] = colour
            if place(position + 1):
                return True
            busy[colour].difference_update((cable["a"], cable["b"]))
            chosen[order[position]] = None
        return False

    if not place(0):
        return None
    rounds = [[] for colour in range(colours)]
    for index, colour in enumerate(chosen):
        rounds[colour].append(index)
    return [sorted(members) for members in rounds if members]


def plan_rounds(cables):
    """Rounds of cable indexes: no node twice in a round, and as few rounds as the search finds
    (the most cables at one node is the least possible)."""
    if not cables:
        return []
    degree = {}
    for cable in cables:
        for host in (cable["a"], cable["b"]):
            degree[host] = degree.get(host, 0) + 1
    fewest = max(degree.values())
    best = _greedy(cables, range(len(cables)))
    for colours in range(fewest, len(best)):
        found = _exact(cables, colours)
        if found is not None:
            best = found
            break
    return sorted((sorted(members) for members in best), key=lambda members: members[0])


def links_plan(plan, hosts=None, repeats=1):
    """{cables, rounds, schedule, one_at_a_time}: the cables of the applied plan, the rounds that
    measure them and the schedule (the rounds `repeats` times, each test with its `repeat`: an iperf3
    server serves one test, so a repeat is another round).

    Each round is a list of tests {round, link_id, client, server, client_ip, server_ip, client_port,
    server_port}: the end whose host sorts first is the client, and with --bidir one test measures
    both directions."""
    cables = cables_from_plan(plan, hosts)
    rounds = []
    for number, members in enumerate(plan_rounds(cables), start=1):
        rounds.append([{"round": number, "link_id": cables[i]["link_id"], "client": cables[i]["a"],
                        "server": cables[i]["b"], "client_ip": cables[i]["a_ip"], "server_ip": cables[i]["b_ip"],
                        "client_port": cables[i]["a_port"], "server_port": cables[i]["b_port"]}
                       for i in members])
    schedule = [[dict(test, repeat=repeat) for test in members] for repeat in range(max(1, int(repeats)))
                for members in rounds]
    return {"cables": cables, "rounds": rounds, "schedule": schedule, "one_at_a_time": len(cables)}


def allsum_sizes(smallest, largest, factor=4):
    """The all_sum sweep's message sizes: smallest, then each `factor` times the one before, up to
    largest (included when the steps reach it; largest itself closes the sweep otherwise)."""
    if smallest < 1 or largest < smallest or factor < 2:
        raise PlanError("all_sum sizes need 1 <= smallest <= largest and a factor of 2 or more, got %r, %r, %r"
                        % (smallest, largest, factor))
    sizes = [int(smallest)]
    while sizes[-1] * factor <= largest:
        sizes.append(sizes[-1] * factor)
    if sizes[-1] != largest:
        sizes.append(int(largest))
    return sizes
