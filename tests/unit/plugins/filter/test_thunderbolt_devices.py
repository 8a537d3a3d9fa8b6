"""Thunderbolt items that are not a direct Mac peer (published captures from real Macs): a drive on a
port is a device, not an unknown peer; a Mac behind a dock is found, flagged and left out of the
plan. Facts come from the real-format fixtures through the module's own parsers."""
import os
import sys

from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._problems import REGISTRY
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from cabling_builder import build_nodes, plug, port, problems_with

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils"))
from fixture_files import read_fixture  # noqa: E402


def mac_from_fixtures(profile, hardware_ports):
    return build_mac(sp.parse_json(read_fixture("system_profiler/" + profile)),
                     parse_hardware_ports(read_fixture("networksetup/" + hardware_ports)))


def captured_pair():
    """The Studio with an SSD and the MacBook Pro it is cabled to, as the module reads them."""
    return {
        "studio": {"mac": mac_from_fixtures("studio_external_ssd.json", "listallhardwareports_studio.txt")},
        "laptop": {"mac": mac_from_fixtures("macbook_pro_m5_max_thunderbolt.json",
                                            "listallhardwareports_macbook_pro_m5_max.txt")},
    }


def test_a_drive_is_no_peer_and_the_real_cable_is_found():
    topology = build_topology(captured_pair())
    assert [link["id"] for link in topology["links"]] == ["laptop:en1--studio:en3"]
    assert problems_with(topology, "tb_peer_unknown") == []
    assert not any("Envoy" in p["message"] or "None" in p["message"] for p in topology["problems"])
    # the port holding the drive is not offered as a free port for a missing cable either
    assert not any("en5 (port 4)" in p["fix"] for p in topology["problems"])


def test_a_mac_behind_a_dock_is_flagged_with_a_registered_code_and_not_linked():
    nodes = build_nodes(["mac1", "mac2"], [])
    plug(nodes, "mac1", 2, port(nodes, "mac2", 3)["domain_uuid"], "Mac Studio", "Mac15,14")
    plug(nodes, "mac2", 3, port(nodes, "mac1", 2)["domain_uuid"], "Mac Studio", "Mac15,14")
    for host, receptacle in (("mac1", 2), ("mac2", 3)):
        port(nodes, host, receptacle)["peer"]["via"] = ["TS5 Plus"]
        port(nodes, host, receptacle)["devices"] = [{"name": "TS5 Plus", "vendor": "CalDigit, Inc.", "depth": 1}]
    topology = build_topology(nodes)
    assert topology["links"] == [] and topology["hostfiles"]["jaccl"] is None
    docked = problems_with(topology, "tb_peer_via_dock")
    assert [(p["host"], p["port"], p["peer"]) for p in docked] == [("mac1", "en3", "mac2"), ("mac2", "en4", "mac1")]
    assert "through TS5 Plus, a dock or hub, not a direct cable: that path carries no RDMA" in docked[0]["message"]
    assert "direct Thunderbolt 5 cable" in docked[0]["fix"]
    assert "tb_peer_via_dock" in REGISTRY and docked[0]["severity"] == REGISTRY["tb_peer_via_dock"]["severity"]
    assert problems_with(topology, "tb_peer_unknown") == []


def test_a_mac_outside_the_inventory_behind_a_dock_is_unknown_and_says_behind_what():
    studio = mac_from_fixtures("studio_dock_with_mini_behind.json", "listallhardwareports_studio.txt")
    topology = build_topology({"studio": {"mac": studio}})
    (unknown,) = problems_with(topology, "tb_peer_unknown")
    assert unknown["port"] == "en3"
    assert "Mac mini Mac16,11 with domain 0B4D6F81-A3C5-4E27-9B19-3D5F7A9C1E04 behind TS5 Plus" in unknown["message"]


def test_a_connected_port_with_nothing_enumerated_still_gets_the_not_a_mac_wording():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    port(nodes, "mac1", 5).update({"connected": True, "devices": []})
    (unknown,) = problems_with(build_topology(nodes), "tb_peer_unknown")
    assert unknown["port"] == "en6" and "a device that is not a Mac (no peer domain)" in unknown["message"]


def test_facts_from_before_devices_make_a_uuidless_peer_a_device():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    entry = port(nodes, "mac1", 4)
    entry.update({"connected": True, "peer": {"domain_uuid": None, "name": "Envoy Ultra", "model_id": "Envoy Ultra"}})
    topology = build_topology(nodes)
    assert problems_with(topology, "tb_peer_unknown") == []
    assert len(topology["links"]) == 1
