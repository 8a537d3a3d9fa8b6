"""The report's own SVG drawing: valid XML, one path per cable, problems styled, deterministic."""
import copy
import xml.etree.ElementTree as ET

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import ReportError, build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._svg_cabling import cabling_svg, draw_cabling
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from cabling_builder import build_nodes
from report_fixture import report_inputs

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    return ET.fromstring(svg)


def classed(root, tag, css_class):
    """Elements of the drawing (not of the legend) with that class."""
    legend = set(root.find(SVG + "g[@class='cab-legend-box']").iter())
    return [e for e in root.iter(SVG + tag) if css_class in (e.get("class") or "").split() and e not in legend]


def fixture_model():
    nodes, topology = report_inputs()
    return build_report_model(nodes, topology)


def test_one_path_per_cable_and_one_box_per_mac():
    root = parse(draw_cabling(fixture_model()))
    links = classed(root, "path", "cab-link")
    assert sorted(l.get("data-link-id") for l in links) == sorted(
        l["id"] for l in fixture_model()["topology"]["links"])
    assert len(links) == 6
    assert [g.get("data-host") for g in classed(root, "g", "cab-node")] == ["mac1", "mac2", "mac3", "mac4"]
    assert classed(root, "path", "cab-missing") == []


def test_problem_cable_is_red_dashed_and_named():
    svg = draw_cabling(fixture_model())
    root = parse(svg)
    problems = classed(root, "path", "cab-problem")
    assert [p.get("data-link-id") for p in problems] == ["mac2:en4--mac3:en4"]
    style = root.find(SVG + "style").text
    assert ".cab-problem{stroke:#cf222e;stroke-dasharray:9 5" in style
    label_lines = [[span.text for span in t.iter(SVG + "tspan")] for t in classed(root, "text", "cab-label-problem")]
    assert label_lines == [["40 Gb/s", "tb_link_tb4_speed"]]


def test_labels_name_both_ports_and_the_speed_of_every_cable():
    model = fixture_model()
    texts = ["".join(t.itertext()) for t in parse(draw_cabling(model)).iter(SVG + "text")]
    for link in model["topology"]["links"]:
        assert link["a"]["port"] in texts and link["b"]["port"] in texts
    assert sum(1 for t in texts if t.startswith("80 Gb/s")) == 5
    assert "512 GB memory" in texts and "Mac Studio M3 Ultra" in texts


def test_missing_pairs_are_dotted_and_three_macs_sit_on_a_line():
    nodes = build_nodes(["m1", "m2", "m3"], ["m1:2 m2:2", "m2:3 m3:2"])
    root = parse(cabling_svg(build_report_model(nodes, build_topology(nodes))))
    missing = classed(root, "path", "cab-missing")
    assert [m.get("data-pair") for m in missing] == ["m1--m3"]
    # the cable that skips the middle Mac arcs over it instead of running through its box
    assert "Q" in missing[0].get("d")
    ys = set(r.get("y") for r in root.iter(SVG + "rect") if r.get("rx") == "9")
    assert len(ys) == 1


def test_parallel_cables_are_drawn_apart():
    nodes = build_nodes(["m1", "m2"], ["m1:2 m2:2", "m1:3 m2:3"])
    root = parse(cabling_svg(build_report_model(nodes, build_topology(nodes))))
    paths = [p.get("d") for p in classed(root, "path", "cab-link")]
    assert len(paths) == 2 and len(set(paths)) == 2
    assert [p.get("data-link-id") for p in classed(root, "path", "cab-problem")] == ["m1:en4--m2:en4"]


def test_same_plan_same_bytes_whatever_the_input_order():
    nodes, topology = report_inputs()
    first = cabling_svg(build_report_model(nodes, topology))
    reordered = dict((k, copy.deepcopy(nodes[k])) for k in sorted(nodes, reverse=True))
    assert cabling_svg(build_report_model(reordered, copy.deepcopy(topology))) == first
    assert "nan" not in first.lower() and "-0.0" not in first


@pytest.mark.parametrize("count", [1, 5, 8])
def test_other_sizes_render_valid_svg(count):
    names = ["mac%d" % i for i in range(1, count + 1)]
    cables = ["%s:2 %s:3" % (names[i], names[(i + 1) % count]) for i in range(count)] if count > 1 else []
    nodes = build_nodes(names, cables)
    root = parse(cabling_svg(build_report_model(nodes, build_topology(nodes))))
    assert len(classed(root, "g", "cab-node")) == count
    assert len(classed(root, "path", "cab-link")) == (count if count > 1 else 0)


def test_hostile_names_are_escaped():
    nodes, topology = report_inputs()
    model = build_report_model(nodes, topology)
    model["nodes"][0]["name"] = "<script>alert('x')</script>&"
    svg = draw_cabling(model)
    assert "<script>" not in svg
    root = parse(svg)
    assert "<script>alert('x')</script>&" in ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def test_rejects_what_it_cannot_draw():
    for other in ({"links": "no"}, {"schema_version": 0}, build_topology(build_nodes(["m1"], []))):
        with pytest.raises(ReportError, match="expected the report model"):
            cabling_svg(other)
