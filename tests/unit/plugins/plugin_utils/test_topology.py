"""Cables, shapes and problems found by the planner (plugins/plugin_utils/_topology.py, the
macops.cluster.thunderbolt_topology filter); and the Thunderbolt items that are not a direct Mac peer (published
captures from real Macs): a drive on a port is a device, not an unknown peer; a Mac behind a dock is found, flagged
and left out of the plan."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._problems import REGISTRY
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError, natural_key

from cabling_builder import (build_nodes, codes, domain_uuid, link_ends, mesh_cables, plug, port, problems_with,
                             ring_cables)
from fixture_files import read_fixture


def names(count, prefix="mac"):
    return ["%s%d" % (prefix, i) for i in range(1, count + 1)]


# --- cables --------------------------------------------------------------------------------

def test_link_needs_both_ends_and_is_oriented_canonically():
    topology = build_topology(build_nodes(["mac2", "mac1"], ["mac2:3 mac1:4"]))
    (link,) = topology["links"]
    assert link["id"] == "mac1:en5--mac2:en4"
    assert link["a"] == {"host": "mac1", "receptacle": 4, "interface": "en5", "bus": "thunderboltusb4_bus_3"}
    assert link["b"]["host"] == "mac2" and link["b"]["receptacle"] == 3
    assert link["speed_gbps"] == 80 and link["tb5"] is True


def test_links_are_sorted_naturally_whatever_the_input_order():
    hosts = ["mac10", "mac2", "mac1"]
    cables = ["mac10:2 mac2:2", "mac1:2 mac10:3", "mac1:3 mac2:3"]
    forward = build_topology(build_nodes(hosts, cables))
    backward = build_topology(build_nodes(list(reversed(hosts)), list(reversed(cables))))
    assert [l["id"] for l in forward["links"]] == [l["id"] for l in backward["links"]] == [
        "mac1:en3--mac10:en4", "mac1:en4--mac2:en4", "mac2:en3--mac10:en3"]
    assert [h["name"] for h in forward["hosts"]] == ["mac1", "mac2", "mac10"]


def test_uuid_case_does_not_matter():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    port(nodes, "mac1", 2)["peer"]["domain_uuid"] = port(nodes, "mac2", 2)["domain_uuid"].lower()
    assert len(build_topology(nodes)["links"]) == 1


def test_asymmetric_link_is_reported_not_used():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:3"])
    port(nodes, "mac2", 3)["peer"] = None
    topology = build_topology(nodes)
    assert topology["links"] == []
    (problem,) = problems_with(topology, "tb_link_asymmetric")
    assert problem["host"] == "mac1" and problem["peer"] == "mac2" and problem["port"] == "en3"
    assert "reports no peer" in problem["message"] and "Re-seat" in problem["fix"]


def test_asymmetric_link_pointing_at_a_third_port_names_it():
    nodes = build_nodes(["mac1", "mac2", "mac3"], ["mac1:2 mac2:3"])
    port(nodes, "mac2", 3)["peer"]["domain_uuid"] = domain_uuid("mac3", 4)
    topology = build_topology(nodes)
    messages = [p["message"] for p in problems_with(topology, "tb_link_asymmetric")]
    assert any("reports mac3 en5 (port 4) as its peer" in m for m in messages)


def test_asymmetric_link_to_unknown_domain():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:3"])
    port(nodes, "mac2", 3)["peer"]["domain_uuid"] = "DEADBEEF-0000-0000-0000-000000000000"
    topology = build_topology(nodes)
    assert any("unknown peer domain DEADBEEF" in p["message"] for p in problems_with(topology, "tb_link_asymmetric"))


def test_peer_outside_inventory_and_non_mac_device():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    plug(nodes, "mac1", 4, "0BADF00D-1111-2222-3333-444444444444", "Mac mini", "Mac16,11")
    port(nodes, "mac2", 5).update({"connected": True, "speed_gbps": 40})
    topology = build_topology(nodes)
    unknown = problems_with(topology, "tb_peer_unknown")
    assert [(p["host"], p["port"]) for p in unknown] == [("mac1", "en5"), ("mac2", "en6")]
    assert "Mac mini Mac16,11 with domain 0BADF00D" in unknown[0]["message"]
    assert "not a Mac" in unknown[1]["message"]
    assert len(topology["links"]) == 1


def test_loopback_cable_on_one_mac():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac1:3"])
    topology = build_topology(nodes)
    assert topology["links"] == []
    (problem,) = problems_with(topology, "tb_loopback_cable")
    assert problem["host"] == "mac1" and "same Mac" in problem["message"]


# --- shapes --------------------------------------------------------------------------------

@pytest.mark.parametrize("count", [2, 3, 4, 5, 6, 7])
def test_full_mesh(count):
    hosts = names(count)
    # Seven Mac Studios need all six ports each, including the Ethernet-side one.
    topology = build_topology(build_nodes(hosts, mesh_cables(hosts, first_port=2 if count < 7 else 1)))
    assert topology["class"] == "full_mesh"
    assert len(problems_with(topology, "tb_port_next_to_ethernet")) == (0 if count < 7 else count)
    assert len(topology["links"]) == count * (count - 1) // 2
    assert topology["ring_order"][0] == "mac1" and sorted(topology["ring_order"], key=natural_key) == hosts
    assert "tb_mesh_missing_pair" not in codes(topology)
    # Seven: the cables in the ports next to Ethernet cannot carry RDMA, and every cable of mac1
    # has such an end (each peer's first port goes to mac1), so no RDMA hostfile; TCP runs over them.
    assert topology["hostfiles"]["ring"] is not None
    assert all((topology["hostfiles"][b] is None) == (count == 7) for b in ("jaccl", "jaccl-ring"))


def test_three_macs_in_a_ring_are_a_full_mesh():
    assert build_topology(build_nodes(names(3), ring_cables(names(3))))["class"] == "full_mesh"


@pytest.mark.parametrize("count", [4, 5, 8])
def test_ring(count):
    hosts = names(count)
    topology = build_topology(build_nodes(hosts, ring_cables(hosts)))
    assert topology["class"] == "ring"
    assert topology["ring_order"] == hosts
    assert topology["neighbours"]["mac1"] == ["mac2", "mac%d" % count]
    assert topology["ring_neighbours"]["mac1"] == {"left": "mac%d" % count, "right": "mac2"}
    assert topology["hostfiles"]["jaccl"] is None
    missing = problems_with(topology, "tb_mesh_missing_pair")
    assert len(missing) == count * (count - 1) // 2 - count
    assert problems_with(topology, "mlx_jaccl_unavailable")[0]["severity"] == "warning"


def test_ring_order_follows_cables_not_names():
    hosts = names(4)
    cables = ["mac1:2 mac3:2", "mac3:3 mac2:2", "mac2:3 mac4:2", "mac4:3 mac1:3"]
    topology = build_topology(build_nodes(hosts, cables))
    assert topology["class"] == "ring"
    assert topology["ring_order"] == ["mac1", "mac3", "mac2", "mac4"]


def test_line_has_no_ring():
    hosts = names(4)
    topology = build_topology(build_nodes(hosts, ["mac1:2 mac2:2", "mac2:3 mac3:2", "mac3:3 mac4:2"]))
    assert topology["class"] == "line"
    assert topology["ring_order"] is None and topology["ring_neighbours"] == {}
    assert topology["hostfiles"] == {"ring": None, "jaccl": None, "jaccl-ring": None}
    (ring_problem,) = problems_with(topology, "mlx_ring_unavailable")
    assert ring_problem["severity"] == "error" and "'line'" in ring_problem["message"]
    assert problems_with(topology, "mlx_jaccl_unavailable")[0]["severity"] == "error"


def test_star_and_disconnected_are_partial():
    star = build_topology(build_nodes(names(4), ["mac1:2 mac2:2", "mac1:3 mac3:2", "mac1:4 mac4:2"]))
    assert star["class"] == "partial"
    split = build_topology(build_nodes(names(4), ["mac1:2 mac2:2", "mac3:2 mac4:2"]))
    assert split["class"] == "partial"


def test_single_and_none():
    single = build_topology(build_nodes(["mac1"]))
    assert single["class"] == "single" and single["ring_order"] is None
    assert problems_with(single, "mlx_ring_unavailable")[0]["severity"] == "info"
    assert "mlx_jaccl_unavailable" not in codes(single)
    assert build_topology(build_nodes(names(3)))["class"] == "none"
    assert build_topology({})["class"] == "none"


def test_two_macs_with_one_cable_are_a_ring_and_a_mesh():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"]))
    assert topology["class"] == "full_mesh" and topology["ring_order"] == ["mac1", "mac2"]


def test_studio_and_mini_mix_mesh():
    hosts = {"studio1": "studio", "studio2": "studio", "mini1": "mini", "mini2": "mini"}
    cables = ["studio1:2 studio2:2", "studio1:3 mini1:1", "studio1:4 mini2:1",
              "studio2:3 mini1:2", "studio2:4 mini2:2", "mini1:3 mini2:3"]
    topology = build_topology(build_nodes(hosts, cables))
    assert topology["class"] == "full_mesh"
    # port 1 of a Mac mini is not the Studio's Ethernet-side port
    assert "tb_port_next_to_ethernet" not in codes(topology)
    assert [h["name"] for h in topology["hosts"]] == ["mini1", "mini2", "studio1", "studio2"]


def test_ring_prefers_rdma_capable_cables():
    hosts = names(4)
    cables = ["mac1:2 mac2:2 @40", "mac2:3 mac3:2", "mac3:3 mac4:2", "mac4:3 mac1:3",
              "mac1:4 mac3:4", "mac2:4 mac4:4"]
    topology = build_topology(build_nodes(hosts, cables))
    assert topology["class"] == "full_mesh"
    order = topology["ring_order"]
    pairs = set(frozenset((order[i], order[(i + 1) % 4])) for i in range(4))
    assert frozenset(("mac1", "mac2")) not in pairs


# --- problems ------------------------------------------------------------------------------

def test_tb4_speed_names_both_ends():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:2 mac2:3 @40"]))
    (problem,) = problems_with(topology, "tb_link_tb4_speed")
    assert problem["severity"] == "error"
    assert "mac1 en3 (port 2)" in problem["message"] and "mac2 en4 (port 3)" in problem["message"]
    assert "cannot carry RDMA" in problem["message"] and "Thunderbolt 5 cable" in problem["fix"]
    assert topology["links"][0]["tb5"] is False


def test_min_link_gbps_can_be_lowered():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:2 mac2:3 @40"]), min_link_gbps="40")
    assert "tb_link_tb4_speed" not in codes(topology) and topology["min_link_gbps"] == 40
    with pytest.raises(TopologyError, match="min_link_gbps"):
        build_topology(build_nodes(["mac1"]), min_link_gbps="fast")


def test_unknown_speed_is_a_warning():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:3"])
    port(nodes, "mac1", 2)["speed_gbps"] = None
    port(nodes, "mac2", 3)["speed_gbps"] = None
    topology = build_topology(nodes)
    assert codes(topology, "warning") == ["tb_link_speed_unknown"]


def test_studio_port_next_to_ethernet_suggests_free_ports():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:1 mac2:2"]))
    (problem,) = problems_with(topology, "tb_port_next_to_ethernet")
    assert problem["host"] == "mac1" and problem["port"] == "en2" and problem["peer"] == "mac2"
    assert "en4 (port 3)" in problem["fix"] and "en2 (port 1)" not in problem["fix"].split(":", 1)[1]


def test_studio_port_next_to_ethernet_without_free_port():
    hosts = {"s1": "studio_m4max", "m1": "mini", "m2": "mini", "m3": "mini", "m4": "mini"}
    cables = ["s1:1 m1:1", "s1:2 m2:1", "s1:3 m3:1", "s1:4 m4:1"]
    topology = build_topology(build_nodes(hosts, cables))
    (problem,) = problems_with(topology, "tb_port_next_to_ethernet")
    assert problem["fix"].startswith("Free another Thunderbolt port on s1")


def test_duplicate_cable_keeps_the_first_for_mlx():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2", "mac1:3 mac2:3"]))
    (problem,) = problems_with(topology, "tb_duplicate_cable")
    assert problem["details"]["link_id"] == "mac1:en4--mac2:en4"
    assert topology["hostfiles"]["jaccl"]["hosts"][0]["rdma"] == [None, "rdma_en3"]
    assert len(topology["addresses"]["links"]) == 2


def test_duplicate_cable_prefers_a_tb5_cable_for_mlx():
    topology = build_topology(build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2 @40", "mac1:3 mac2:3"]))
    (problem,) = problems_with(topology, "tb_duplicate_cable")
    assert problem["details"]["link_id"] == "mac1:en3--mac2:en3"
    assert topology["hostfiles"]["jaccl"]["hosts"][0]["rdma"] == [None, "rdma_en4"]


def test_missing_pair_names_free_ports():
    topology = build_topology(build_nodes(names(3), ["mac1:2 mac2:2", "mac2:3 mac3:2"]))
    (problem,) = problems_with(topology, "tb_mesh_missing_pair")
    assert (problem["host"], problem["peer"]) == ("mac1", "mac3")
    assert problem["fix"].startswith("Connect mac1 en4 (port 3) to mac3 en4 (port 3)")


def test_missing_pair_when_ports_run_out():
    hosts = {"m%d" % i: "mini" for i in range(1, 6)}
    cables = mesh_cables(["m1", "m2", "m3", "m4"], first_port=1) + ["m5:1 m1:1"]
    cables = [c for c in cables if not c.startswith("m1:1 ")]
    topology = build_topology(build_nodes(hosts, cables))
    fixes = [p["fix"] for p in problems_with(topology, "tb_mesh_missing_pair")
             if {p["host"], p["peer"]} == {"m1", "m2"}]
    assert fixes and fixes[0].startswith("m1 has no free RDMA-capable") and "needs 4 per Mac" in fixes[0]


def test_the_plan_does_not_judge_builds():
    # preflight decides the build mismatch (macops.cluster.preflight_checks), before the plan.
    builds = {"mac3": ("26.1", "25B78")}
    topology = build_topology(build_nodes(names(3), mesh_cables(names(3)), builds=builds))
    assert problems_with(topology, "macos_build_mismatch") == []


def test_bad_nodes_are_rejected():
    with pytest.raises(TopologyError, match="nodes must be a dict"):
        build_topology(["mac1"])
    with pytest.raises(TopologyError, match="node mac1 has no 'mac'"):
        build_topology({"mac1": {"ssh": "mac1"}})
    nodes = build_nodes(["mac1"])
    nodes["mac1"]["mac"]["thunderbolt_ports"].append({"bus": "x"})
    with pytest.raises(TopologyError, match="needs a receptacle"):
        build_topology(nodes)
    nodes["mac1"]["mac"]["thunderbolt_ports"][-1] = {"receptacle": "left"}
    with pytest.raises(TopologyError, match="not a number"):
        build_topology(nodes)


def test_port_without_interface_still_forms_a_link():
    nodes = build_nodes(["mac1", "mac2"], ["mac1:2 mac2:2"])
    port(nodes, "mac1", 2)["interface"] = None
    topology = build_topology(nodes)
    assert topology["links"][0]["id"] == "mac1:port2--mac2:en3"
    assert "port2" in topology["addresses"]["hosts"]["mac1"]
    assert topology["hostfiles"]["jaccl"] is None
    assert any("no BSD interface" in p["message"] for p in problems_with(topology, "mlx_jaccl_unavailable"))


def test_same_facts_same_plan():
    hosts = names(5)
    first = build_topology(build_nodes(hosts, ring_cables(hosts) + ["mac1:5 mac3:5"]))
    second = build_topology(build_nodes(list(reversed(hosts)), list(reversed(ring_cables(hosts))) + ["mac3:5 mac1:5"]))
    assert first == second
    assert link_ends(first) == link_ends(second)


# --- items that are not a direct Mac peer (published captures) -----------------------------


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
