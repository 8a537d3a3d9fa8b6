"""The benchmark's plan (plugins/plugin_utils/_bench_plan.py): the links suite's rounds, every cable once, no node
twice in a round, as few rounds as the most cables at one node allows (where the cabling allows it), from the
applied plan's shape; the allsum sweep's sizes."""
import itertools

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import (allsum_sizes, cables_from_plan,
                                                                                 links_plan, plan_rounds)


def applied_plan(edges):
    """thunderbolt-plan.json's hosts for cables [(a, b)], addresses 198.19.0.x/30 as the role plans them."""
    hosts, ports = {}, {}
    for number, (a, b) in enumerate(edges):
        ends = []
        for host in (a, b):
            ports[host] = ports.get(host, 2) + 1
            ends.append((host, "en%d" % ports[host], "198.19.%d.%d" % (number // 60, 4 * (number % 60) + len(ends) + 1)))
        link_id = "%s:%s--%s:%s" % (ends[0][0], ends[0][1], ends[1][0], ends[1][1])
        for (host, port, ip), (peer, _port, peer_ip) in ((ends[0], ends[1]), (ends[1], ends[0])):
            hosts.setdefault(host, {})[port] = {"ip": ip, "link_id": link_id, "peer_host": peer, "peer_ip": peer_ip,
                                                "netmask": "255.255.255.252", "prefix": 30}
    return hosts


def names(count):
    return ["mac%d" % i for i in range(1, count + 1)]


def ring(count):
    nodes = names(count)
    return [(nodes[i], nodes[(i + 1) % count]) for i in range(count)]


def check(plan, edges):
    tests = [test for members in plan["rounds"] for test in members]
    assert sorted(t["link_id"] for t in tests) == sorted(c["link_id"] for c in plan["cables"])
    assert len(plan["cables"]) == len(edges) == plan["one_at_a_time"]
    for number, members in enumerate(plan["rounds"], start=1):
        busy = [host for t in members for host in (t["client"], t["server"])]
        assert len(busy) == len(set(busy)), members
        assert all(t["round"] == number for t in members)


@pytest.mark.parametrize("edges, rounds", [
    (list(itertools.combinations(names(4), 2)), 3),   # the 4-node mesh: 6 cables
    (ring(8), 2),                                     # an even ring: 8 cables
    (ring(5), 3),                                     # an odd ring cannot do with 2
    (list(itertools.combinations(names(8), 2)), 7),   # 8 nodes fully meshed (28 cables)
    (list(itertools.combinations(names(3), 2)), 3),   # a triangle
    ([("mac1", "mac2")], 1),
    ([("mac1", "mac2"), ("mac2", "mac3")], 2),        # a line
])
def test_rounds_are_disjoint_and_as_few_as_possible(edges, rounds):
    plan = links_plan(applied_plan(edges))
    check(plan, edges)
    assert len(plan["rounds"]) == rounds


def test_two_cables_between_the_same_pair_are_two_rounds():
    edges = [("mac1", "mac2"), ("mac1", "mac2"), ("mac3", "mac4")]
    plan = links_plan(applied_plan(edges))
    check(plan, edges)
    assert len(plan["rounds"]) == 2


def test_the_client_is_the_end_that_sorts_first_and_uses_its_own_address():
    plan = links_plan(applied_plan([("mac10", "mac2")]))
    test = plan["rounds"][0][0]
    assert (test["client"], test["server"]) == ("mac2", "mac10")
    hosts = applied_plan([("mac10", "mac2")])
    assert hosts["mac2"][test["client_port"]]["ip"] == test["client_ip"]
    assert hosts["mac10"][test["server_port"]]["ip"] == test["server_ip"]


def test_only_cables_between_the_hosts_asked_for():
    edges = list(itertools.combinations(names(4), 2))
    plan = links_plan(applied_plan(edges), hosts=["mac1", "mac2", "mac3"])
    assert sorted((c["a"], c["b"]) for c in plan["cables"]) == [("mac1", "mac2"), ("mac1", "mac3"), ("mac2", "mac3")]


def test_a_plan_entry_without_its_fields_or_a_one_ended_cable_is_refused():
    with pytest.raises(PlanError, match="needs link_id, ip, peer_host and peer_ip"):
        cables_from_plan({"mac1": {"en3": {"ip": "198.19.0.1"}}})
    hosts = applied_plan([("mac1", "mac2")])
    del hosts["mac2"]
    with pytest.raises(PlanError, match="does not have two matching ends"):
        cables_from_plan(hosts)


def test_nothing_cabled_is_no_round():
    assert plan_rounds([]) == [] and links_plan({})["rounds"] == []


def test_the_schedule_runs_every_round_once_per_repeat():
    edges = list(itertools.combinations(names(4), 2))
    plan = links_plan(applied_plan(edges), repeats=2)
    assert len(plan["schedule"]) == 6 and plan["schedule"][:3] == [[dict(t, repeat=0) for t in r] for r in plan["rounds"]]
    assert [t["repeat"] for members in plan["schedule"][3:] for t in members] == [1] * 6


def test_sizes_go_up_four_times_and_end_at_the_largest():
    assert allsum_sizes(4096, 4194304) == [4096, 16384, 65536, 262144, 1048576, 4194304]
    assert allsum_sizes(4096, 100000) == [4096, 16384, 65536, 100000]
    assert allsum_sizes(4096, 4096) == [4096]
    with pytest.raises(PlanError, match="smallest <= largest"):
        allsum_sizes(8192, 4096)
