"""The /30 address plan (plugins/plugin_utils/_tb_addressing.py): layout, validation of the pool and stability
across runs."""
import ipaddress

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._tb_addressing import pool_problem
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError

from cabling_builder import add_cable, build_nodes, problems_with, ring_cables

HOSTS = ["mac1", "mac2", "mac3", "mac4"]


def subnets(topology):
    return dict((link_id, plan["subnet"]) for link_id, plan in topology["addresses"]["links"].items())


def test_canonical_order_without_previous():
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)))
    assert subnets(topology) == {
        "mac1:en3--mac4:en4": "198.19.0.0/30", "mac1:en4--mac2:en3": "198.19.0.4/30",
        "mac2:en4--mac3:en3": "198.19.0.8/30", "mac3:en4--mac4:en3": "198.19.0.12/30"}
    assert topology["addresses"]["links"]["mac1:en4--mac2:en3"] == {
        "subnet": "198.19.0.4/30", "a_ip": "198.19.0.5", "b_ip": "198.19.0.6"}
    assert topology["addresses"]["hosts"]["mac2"]["en3"] == {
        "ip": "198.19.0.6", "prefix": 30, "netmask": "255.255.255.252", "peer_ip": "198.19.0.5",
        "peer_host": "mac1", "link_id": "mac1:en4--mac2:en3"}


def test_every_host_has_an_entry_and_both_ends_share_the_subnet():
    nodes = build_nodes(HOSTS + ["mac5"], ring_cables(HOSTS))
    topology = build_topology(nodes, pool="198.19.64.0/24")
    assert topology["addresses"]["hosts"]["mac5"] == {}
    for host, ports in topology["addresses"]["hosts"].items():
        for plan in ports.values():
            peer = topology["addresses"]["hosts"][plan["peer_host"]]
            (back,) = [p for p in peer.values() if p["link_id"] == plan["link_id"]]
            assert back["peer_ip"] == plan["ip"]
            network = ipaddress.ip_network(topology["addresses"]["links"][plan["link_id"]]["subnet"])
            assert ipaddress.ip_address(plan["ip"]) in network and network.subnet_of(
                ipaddress.ip_network("198.19.64.0/24"))


def test_adding_a_node_does_not_renumber_existing_links():
    before = build_topology(build_nodes(HOSTS, ["mac2:3 mac3:2", "mac3:3 mac4:2", "mac4:3 mac2:4"]))
    # mac1 sorts first, so in canonical order its new cables would take the lowest subnets.
    nodes = build_nodes(HOSTS, ["mac2:3 mac3:2", "mac3:3 mac4:2", "mac4:3 mac2:4", "mac1:2 mac2:2",
                                "mac1:3 mac3:4"])
    fresh = build_topology(nodes)
    after = build_topology(nodes, previous=before)
    for link_id, subnet in subnets(before).items():
        assert subnets(after)[link_id] == subnet
    assert subnets(fresh) != dict(subnets(after))  # proves the previous plan is what kept them
    new = set(subnets(after)) - set(subnets(before))
    assert sorted(subnets(after)[l] for l in new) == ["198.19.0.12/30", "198.19.0.16/30"]


def test_adding_a_cable_keeps_the_others_and_fills_the_lowest_gap():
    nodes = build_nodes(HOSTS, ring_cables(HOSTS))
    first = build_topology(nodes)
    # an old plan that lost one cable leaves a hole at 198.19.0.4/30
    previous = dict(subnets(first))
    del previous["mac1:en4--mac2:en3"]
    add_cable(nodes, "mac1:5 mac3:5")
    after = build_topology(nodes, previous=previous)
    for link_id, subnet in previous.items():
        assert subnets(after)[link_id] == subnet
    assert subnets(after)["mac1:en4--mac2:en3"] == "198.19.0.4/30"
    assert subnets(after)["mac1:en6--mac3:en6"] == "198.19.0.16/30"


def test_previous_as_observed_interface_addresses():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    topology = build_topology(nodes, previous={"mac2:en3": "198.19.7.9/30"})
    assert subnets(topology) == {"mac1:en3--mac2:en3": "198.19.7.8/30"}
    for form in ({"mac1:en3--mac2:en3": {"subnet": "198.19.7.8/30"}},
                 {"mac1:en3": {"ip": "198.19.7.10", "prefix": 30}},
                 {"addresses": {"links": {"mac1:en3--mac2:en3": {"subnet": "198.19.7.8/30"}}}}):
        assert subnets(build_topology(nodes, previous=form)) == {"mac1:en3--mac2:en3": "198.19.7.8/30"}


def test_unusable_previous_subnets_are_renumbered_with_a_note():
    nodes = build_nodes(HOSTS, ring_cables(HOSTS))
    previous = {"mac1:en3--mac4:en4": "10.9.0.0/30", "mac1:en4--mac2:en3": "198.19.0.0/29",
                "mac2:en4--mac3:en3": "198.19.0.20/30", "mac3:en4--mac4:en3": "198.19.0.20/30"}
    topology = build_topology(nodes, previous=previous)
    notes = problems_with(topology, "tb_address_renumbered")
    reasons = sorted(p["message"].split(", which ")[1] for p in notes)
    assert reasons == ["is already kept by mac2:en4--mac3:en3; it gets a new subnet.",
                       "is not a /30; it gets a new subnet.",
                       "is outside the pool 198.19.0.0/16; it gets a new subnet."]
    assert subnets(topology)["mac2:en4--mac3:en3"] == "198.19.0.20/30"
    assert len(set(subnets(topology).values())) == 4


@pytest.mark.parametrize("previous, message", [
    (["198.19.0.0/30"], "previous must be a dict"),
    ({"x": "not-an-ip"}, r"previous\['x'\]"),
    ({"x": {"gateway": "198.19.0.1"}}, "neither 'subnet' nor 'ip'"),
])
def test_malformed_previous(previous, message):
    with pytest.raises(TopologyError, match=message):
        build_topology(build_nodes(["mac1"]), previous=previous)


@pytest.mark.parametrize("pool, message", [
    ("198.19.0.0/33", "pool '198.19.0.0/33' is not a valid IPv4 network"),
    ("198.19.0.1/16", "pool '198.19.0.1/16' is not a valid IPv4 network"),
    ("fd00::/64", "pool 'fd00::/64' is not a valid IPv4 network"),
    ("198.19.0.0/31", "pool '198.19.0.0/31' is too small: one cable needs a /30"),
    ("198.19.0.0/29", "pool '198.19.0.0/29' is too small: it holds 2 /30 subnets but the cabling has 4"),
])
def test_bad_pool_is_rejected_by_name(pool, message):
    with pytest.raises(TopologyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        build_topology(build_nodes(HOSTS, ring_cables(HOSTS)), pool=pool)


def test_exactly_full_pool_is_fine():
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)), pool="198.19.0.0/28")
    assert sorted(subnets(topology).values()) == ["198.19.0.0/30", "198.19.0.12/30", "198.19.0.4/30",
                                                  "198.19.0.8/30"]


def test_control_ip_inside_pool_is_an_error():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    nodes["mac2"]["control_ip"] = "198.19.1.5"
    nodes["mac1"]["control_ip"] = "not-an-address"
    (problem,) = problems_with(build_topology(nodes), "tb_pool_overlaps_control")
    assert problem["host"] == "mac2" and problem["severity"] == "error"


@pytest.mark.parametrize("pool, nodes, management, reason", [
    ("198.19.0.0/16", 16, ["198.18.0.11"], ""),
    ("198.19.0.0/27", 4, [], ""),  # 8 subnets for 6 cables
    ("198.19.0.0/28", 4, [], "198.19.0.0/28 holds 4 /30 subnets, a full mesh of 4 Macs has 6 cables"),
    ("198.19.0.0/25", 16, [], "198.19.0.0/25 holds 32 /30 subnets, a full mesh of 16 Macs has 120 cables"),
    ("198.19.0.1/24", 2, [], "has host bits set"),
    ("not-a-network", 2, [], "is not a valid IPv4 network"),
    ("198.19.0.0/31", 2, [], "too small: one cable needs a /30"),
    ("198.18.0.0/16", 4, ["198.18.0.11", "mac2.local"], "198.18.0.0/16 contains the management address(es) 198.18.0.11"),
    ("198.19.0.0/30", 1, [], ""),
])
def test_tb_pool_problem(pool, nodes, management, reason):
    problem = pool_problem(pool, nodes, management)
    if reason:
        assert reason in problem
    else:
        assert problem == ""
