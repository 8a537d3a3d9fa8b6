"""The items on a Thunderbolt port (plugins/module_utils/_thunderbolt_items.py), from published captures of real
Macs: a drive is a device and no peer, a Mac behind a dock is found one level deeper, items at every depth and junk
skipped, the text form classified like the JSON."""
from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._thunderbolt_items import describe_device

from fixture_files import read_fixture


def load(fixture):
    return sp.parse_json(read_fixture("system_profiler/" + fixture))


def test_external_ssd_is_a_device_on_its_port_not_a_peer():
    ports = {p["receptacle"]: p for p in sp.parse_thunderbolt(load("studio_external_ssd.json")[sp.THUNDERBOLT])}
    ssd = ports[4]
    assert (ssd["connected"], ssd["link"], ssd["speed_gbps"], ssd["peer"]) == (True, "up", 80, None)
    assert ssd["devices"] == [{"name": "Envoy Ultra", "vendor": "Other World Computing", "model": "Envoy Ultra",
                               "mode": "usb_four_v2", "speed": "80 Gb/s", "depth": 1, "upstream": None}]
    assert describe_device(ssd["devices"][0]) == "Envoy Ultra (Other World Computing)"
    # the one Mac of the capture, with the RDMA service keyed on its protocol id (its key is garbled)
    assert [(r, p["peer"]["model_id"], p["peer"]["rdma_service"], p["peer"]["via"]) for r, p in ports.items()
            if p["peer"]] == [(2, "Mac17,7", True, [])]
    assert [r for r, p in ports.items() if not p["connected"]] == [1, 3, 5, 6]


def test_mac_behind_a_dock_is_found_one_level_deeper():
    ports = {p["receptacle"]: p for p in sp.parse_thunderbolt(load("studio_dock_with_mini_behind.json")[sp.THUNDERBOLT])}
    docked = ports[2]
    assert docked["peer"] == {"domain_uuid": "0B4D6F81-A3C5-4E27-9B19-3D5F7A9C1E04", "model_id": "Mac16,11",
                              "name": "Mac mini", "rdma_service": True, "via": ["TS5 Plus"]}
    assert [(d["name"], d["vendor"], d["mode"], d["depth"]) for d in docked["devices"]] == [
        ("TS5 Plus", "CalDigit, Inc.", "thunderbolt_five", 1)]
    # link code 0x4 on the connected dock port, 0x7 on idle ports: the receptacle status decides
    assert (docked["link"], docked["connected"]) == ("up", True)
    assert [(r, p["link"], p["connected"]) for r, p in sorted(ports.items()) if r != 2] == [
        (r, "down", False) for r in (1, 3, 4, 5, 6)]


def test_devices_at_every_depth_and_junk_items_are_skipped():
    items = [
        "junk",
        {"_name": "Dock", "vendor_name_key": "Acme", "_items": [
            {"_name": "Drive", "receptacle_upstream_ambiguous_tag": "odd"},
            {"device_name_key": "Display", "_items": "not a list"},
            {"_name": "Far Mac", "domain_uuid_key": "F", "_items": [{"_name": "behind the Mac"}]},
            {"_name": "Second Mac", "domain_uuid_key": "S"},
        ]},
    ]
    bus = {"_name": 5, "domain_uuid_key": "X", "receptacle_1_tag": {"receptacle_id_key": 3, "current_speed_key": 80},
           "_items": items}
    port = sp.parse_thunderbolt([bus])[0]
    assert (port["bus"], port["bus_name"], port["receptacle"], port["speed"], port["speed_gbps"]) == (None, None, 3, None, None)
    assert (port["peer"]["domain_uuid"], port["peer"]["via"], port["connected"]) == ("F", ["Dock"], True)
    assert [(d["name"], d["depth"], d["upstream"], d["speed"]) for d in port["devices"]] == [
        ("Dock", 1, None, None), ("Drive", 2, "Dock", None), ("Display", 2, "Dock", None)]
    assert describe_device({"name": None, "model": None, "vendor": "Acme"}) == "an unnamed device (Acme)"


def test_text_form_classifies_like_the_json():
    ports = {p["receptacle"]: p for p in sp.parse_thunderbolt_text(
        read_fixture("system_profiler/studio_thunderbolt_dock_and_ssd.txt"))}
    assert (ports[4]["peer"], [d["name"] for d in ports[4]["devices"]], ports[4]["devices"][0]["speed"]) == \
        (None, ["Envoy Ultra"], "80 Gb/s")
    assert ports[2]["peer"]["via"] == ["TS5 Plus"] and ports[2]["peer"]["rdma_service"] is True
    assert (ports[2]["link"], ports[1]["link"], ports[1]["connected"]) == ("up", "down", False)
