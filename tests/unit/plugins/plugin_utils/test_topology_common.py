"""The planner's shared words (plugins/plugin_utils/_topology_common.py): hosts in natural order, each port named
by its interface or else its receptacle, cables described the way the drawings and the messages write them, a
problem carrying its cable's id, and the one Mac Studio port beside the Ethernet jack."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils import _topology_common as common

STUDIO = {"model_name": "Mac Studio", "chip": "Apple M3 Ultra"}
LINK = {"a": {"host": "mac1", "interface": "en3", "receptacle": 2},
        "b": {"host": "mac10", "interface": None, "receptacle": 5}, "speed_gbps": 80}


def test_hosts_sort_by_their_numbers_not_their_characters():
    hosts = ["mac10", "Mac2", "mac1", "node", "mac2b"]
    assert sorted(hosts, key=common.natural_key) == ["mac1", "Mac2", "mac2b", "mac10", "node"]


def test_a_port_is_named_by_its_interface_else_its_receptacle():
    assert common.port_name(LINK["a"]) == "en3" and common.port_name(LINK["b"]) == "port5"
    assert common.describe_end(LINK["a"]) == "mac1 en3 (port 2)"
    assert common.describe_end(LINK["b"]) == "mac10 port 5 (no interface)"


def test_a_cable_is_described_for_the_drawings_and_the_messages():
    assert common.link_label(LINK) == "en3 (port 2) <-> port 5 (no interface), 80 Gb/s"
    assert common.link_label(dict(LINK, speed_gbps=None)).endswith(", speed unknown")
    assert common.describe_link(LINK) == "mac1 en3 (port 2) <-> mac10 port 5 (no interface)"


def test_a_planner_problem_carries_its_cable_only_when_it_is_about_one():
    about = common.make_problem("tb_duplicate_cable", common.WARNING, "two cables", "Unplug one.", host="mac1",
                                port="en3", peer="mac2", link_id="mac1:en3--mac2:en3")
    assert (about["code"], about["severity"], about["host"], about["port"], about["peer"]) == (
        "tb_duplicate_cable", "warning", "mac1", "en3", "mac2")
    assert common.link_id_of(about) == "mac1:en3--mac2:en3"
    plain = common.make_problem("tb_duplicate_cable", common.ERROR, "two cables", "Unplug one.")
    assert plain["severity"] == "error" and common.link_id_of(plain) is None and common.link_id_of({}) is None


@pytest.mark.parametrize("mac, interface, receptacle, beside", [
    (STUDIO, "en2", 1, True),
    (STUDIO, None, 1, True),  # no interface mapped: the receptacle decides
    (STUDIO, "en3", 1, False),  # the interface wins over the receptacle
    (STUDIO, None, 2, False),
    ({"model_name": "Mac mini"}, "en2", 1, False),  # only the Studio has the port
    ({}, "en2", 1, False),
])
def test_only_the_mac_studio_port_beside_ethernet_is_singled_out(mac, interface, receptacle, beside):
    assert common.is_port_next_to_ethernet(mac, interface, receptacle) is beside


def test_the_planner_s_error_is_a_value_error_the_filters_can_turn_into_theirs():
    assert issubclass(common.TopologyError, ValueError)
    assert (common.ERROR, common.WARNING, common.INFO) == ("error", "warning", "info")
