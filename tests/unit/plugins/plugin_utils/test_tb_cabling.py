"""Declared cabling against the cables found: tb_cabling_differs and its exact fixes."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError

from cabling_builder import build_nodes, codes, problems_with, ring_cables

HOSTS = ["mac1", "mac2", "mac3", "mac4"]


def cable(a, a_port, b, b_port):
    return {"a": a, "a_port": a_port, "b": b, "b_port": b_port}


DECLARED_RING = [cable("mac1", 3, "mac2", "en3"), cable("mac2", "port 3", "mac3", 2),
                 cable("mac3", "Thunderbolt 3", "mac4", "2"), cable("mac1", "en3", "mac4", 3)]


def differences(topology):
    return [(p["message"], p["fix"]) for p in problems_with(topology, "tb_cabling_differs")]


def test_matching_cabling_in_any_port_notation_has_no_difference():
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)), declared=DECLARED_RING)
    assert differences(topology) == []
    # the pairs the owner left out on purpose are only informational
    assert {p["severity"] for p in problems_with(topology, "tb_mesh_missing_pair")} == {"info"}


def test_missing_and_extra_cables():
    cables = ring_cables(HOSTS)[:3] + ["mac1:5 mac3:5"]
    topology = build_topology(build_nodes(HOSTS, cables), declared=DECLARED_RING)
    assert differences(topology) == [
        ("Missing cable: the declared cable mac1 en3 (port 2) <-> mac4 en4 (port 3) is not there.",
         "Connect mac1 en3 (port 2) to mac4 en4 (port 3) with a Thunderbolt 5 cable."),
        ("Extra cable: mac1 en6 (port 5) <-> mac3 en6 (port 5) is not in the declared cabling.",
         "Unplug mac1 en6 (port 5) <-> mac3 en6 (port 5), or add it to the declared cabling if it is "
         "meant to be there."),
    ]
    assert all(p["severity"] == "error" for p in problems_with(topology, "tb_cabling_differs"))


def test_swapped_ports_say_which_plug_to_move():
    cables = ["mac1:3 mac2:2", "mac2:3 mac3:2", "mac3:3 mac4:2", "mac4:4 mac1:2"]
    topology = build_topology(build_nodes(HOSTS, cables), declared=DECLARED_RING)
    ((message, fix),) = differences(topology)
    assert message == ("Swapped ports: the cable between mac1 and mac4 is mac1 en3 (port 2) <-> mac4 en5 "
                       "(port 4), declared as mac1 en3 (port 2) <-> mac4 en4 (port 3).")
    assert fix == "On mac4 move the plug from en5 (port 4) to en4 (port 3)."


def test_cable_to_the_wrong_mac_says_where_the_far_end_goes():
    cables = ["mac1:3 mac2:2", "mac2:3 mac3:2", "mac3:3 mac4:2", "mac1:2 mac3:4"]
    topology = build_topology(build_nodes(HOSTS, cables), declared=DECLARED_RING)
    ((message, fix),) = differences(topology)
    assert message == "Moved cable: mac1 en3 (port 2) goes to mac3 en5 (port 4), declared to go to mac4 en4 (port 3)."
    assert fix == "Unplug the far end of the cable from mac3 en5 (port 4) and plug it into mac4 en4 (port 3)."
    problem = problems_with(topology, "tb_cabling_differs")[0]
    assert problem["details"]["link_id"] == "mac1:en3--mac3:en5"


def test_declared_host_without_facts():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"]),
                              declared=[cable("mac1", 2, "mac2", 2), cable("mac2", 3, "mac9", 2)])
    ((message, fix),) = differences(topology)
    assert "names mac9, which has no facts" in message and fix.startswith("Add mac9 to the inventory")


@pytest.mark.parametrize("declared, message", [
    ({"a": "mac1"}, "declared cabling must be a list"),
    ([{"a": "mac1", "a_port": 2, "b": "mac2"}], "needs a, a_port, b and b_port"),
    ([cable("mac1", 9, "mac2", 2)], "mac1 has no Thunderbolt port 9"),
    ([cable("mac1", 2, "mac2", "en12")], "mac2 has no Thunderbolt port 'en12'"),
])
def test_malformed_declared_cabling(declared, message):
    with pytest.raises(TopologyError, match=message):
        build_topology(build_nodes(["mac1", "mac2"]), declared=declared)


def test_without_declared_cabling_missing_pairs_are_warnings():
    topology = build_topology(build_nodes(HOSTS, ring_cables(HOSTS)))
    assert "tb_cabling_differs" not in codes(topology)
    assert {p["severity"] for p in problems_with(topology, "tb_mesh_missing_pair")} == {"warning"}
