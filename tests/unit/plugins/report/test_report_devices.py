"""The report lists the drives, docks and displays on Thunderbolt ports (issue 12): an external SSD
is named on its port and is not drawn or counted as a cable."""
import copy

from report_fixture import HOSTS, report_inputs

from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

SSD = {"name": "Envoy Ultra", "vendor": "Other World Computing", "model": "Envoy Ultra", "mode": "usb_four_v2",
       "speed": "80 Gb/s", "depth": 1, "upstream": None}


def with_ssd_on_mac1_port6():
    nodes, _topology = report_inputs(rdma_off=None)
    port6 = next(p for p in nodes["mac1"]["mac"]["thunderbolt_ports"] if p["receptacle"] == 6)
    port6.update({"connected": True, "link": "up", "speed": "80 Gb/s", "speed_gbps": 80, "peer": None,
                  "devices": [dict(SSD)]})
    topology = build_topology(dict((h, {"mac": copy.deepcopy(nodes[h]["mac"])}) for h in HOSTS))
    return nodes, topology


def test_the_drive_is_listed_on_its_port_and_is_no_cable_and_no_peer():
    nodes, topology = with_ssd_on_mac1_port6()
    model = build_report_model(nodes, topology)
    mac1 = next(n for n in model["nodes"] if n["name"] == "mac1")
    assert mac1["thunderbolt"]["devices"] == [{
        "receptacle": 6, "interface": "en7", "port": "en7 (port 6)", "name": "Envoy Ultra",
        "vendor": "Other World Computing", "mode": "usb_four_v2", "speed": "80 Gb/s", "upstream": None,
        "description": "Envoy Ultra (Other World Computing)"}]
    assert model["summary"]["links"] == 6
    assert not any("Envoy" in p["message"] for p in model["problems"])
    assert not [p for p in model["problems"] if p["code"] == "tb_peer_unknown"]
    html, markdown = render_html(model), render_markdown(model)
    assert "<h2 id=\"devices\">Thunderbolt devices (not Macs)</h2>" in html
    assert "<td><b>mac1</b></td><td>en7 (port 6)</td><td>Envoy Ultra (Other World Computing)</td>" \
           "<td>usb_four_v2, 80 Gb/s</td>" in html
    assert "| mac1 | en7 (port 6) | Envoy Ultra (Other World Computing) | usb\\_four\\_v2, 80 Gb/s |" in markdown


def test_a_device_behind_a_dock_names_the_dock_and_no_section_without_devices():
    nodes, topology = with_ssd_on_mac1_port6()
    port6 = next(p for p in nodes["mac1"]["mac"]["thunderbolt_ports"] if p["receptacle"] == 6)
    port6["devices"] = [{"name": "TS5 Plus", "vendor": "CalDigit, Inc."},
                        dict(SSD, depth=2, upstream="TS5 Plus", mode=None, speed=None), "junk"]
    model = build_report_model(nodes, topology)
    assert "<td>Envoy Ultra (Other World Computing)</td><td>behind TS5 Plus</td>" in render_html(model)
    assert "<td>TS5 Plus (CalDigit, Inc.)</td><td><span class=\"muted\">\u2013</span></td>" in render_html(model)
    assert "| TS5 Plus (CalDigit, Inc.) | - |" in render_markdown(model)
    plain_nodes, plain_topology = report_inputs(rdma_off=None)
    plain = build_report_model(plain_nodes, plain_topology)
    assert "Thunderbolt devices" not in render_html(plain) and "Thunderbolt devices" not in render_markdown(plain)
