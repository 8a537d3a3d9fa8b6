"""The report directory's files: the same text the filters give, and the stale files named."""
import os
import json

from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_hostfiles import hostfile_json
from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import report_files
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology

from report_fixture import planner_nodes, report_inputs


def model_and_topology():
    nodes, _ = report_inputs()
    topology = build_topology(planner_nodes())
    return build_report_model(nodes, topology), topology


def test_files_are_what_the_filters_render():
    model, topology = model_and_topology()
    files, stale = report_files(model, topology)
    assert json.loads(files["report.json"]) == json.loads(json.dumps(model))
    assert files["report.json"].endswith("}\n") and '\n  "' in files["report.json"]
    assert files["index.html"] == render_html(model) and files["report.md"] == render_markdown(model)
    assert files["cabling.svg"].lstrip().startswith("<svg")
    for backend in ("ring", "jaccl-ring"):
        assert files["hostfiles/%s.json" % backend] == hostfile_json(topology, backend)
    # The TB4 cable has an error: no jaccl hostfile may use it, and jaccl needs every pair's cable.
    assert "hostfiles/jaccl.json" not in files
    # no Graphviz drawing given: an old one must go, and so must a jaccl hostfile of an earlier run
    assert stale == ["cabling-graphviz.svg", "hostfiles/jaccl.json"]


def test_graphviz_drawing_is_linked_and_kept():
    model, topology = model_and_topology()
    files, stale = report_files(model, topology, graphviz_svg="<svg>dot</svg>")
    assert files["cabling-graphviz.svg"] == "<svg>dot</svg>\n"
    assert 'href="cabling-graphviz.svg"' in files["index.html"] and "cabling-graphviz.svg" not in stale


def test_hostfiles_the_cabling_does_not_allow_are_stale():
    nodes, _ = report_inputs()
    planner = planner_nodes()
    for host, receptacle in (("mac1", 2), ("mac2", 2)):  # unplug mac1-mac2: no full mesh
        port = [p for p in planner[host]["mac"]["thunderbolt_ports"] if p["receptacle"] == receptacle][0]
        port.update({"connected": False, "peer": None, "speed_gbps": None, "link": "down"})
    topology = build_topology(planner)
    files, stale = report_files(build_report_model(nodes, topology), topology)
    assert "hostfiles/jaccl.json" in stale and "hostfiles/jaccl.json" not in files
    assert "hostfiles/ring.json" in files


def test_each_run_s_report_is_kept_beside_the_latest_and_only_the_newest_runs_stay(tmp_path):
    """Issue 49: an AWX job's or a nightly doctor's report is overwritten by the next run; runs/TIME/ keeps each."""
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import keep_run

    files = {"report.json": "{}\n", "report.md": "# r\n", "index.html": "<html></html>\n", "cabling.svg": "<svg/>"}
    for stamp in ("20261207T090000.000001Z", "20261207T090100.000001Z", "20261207T090200.000001Z"):
        removed = keep_run(str(tmp_path), files, 2, stamp)
    assert removed == ["20261207T090000.000001Z"]
    assert sorted(os.listdir(str(tmp_path / "history"))) == ["20261207T090100.000001Z", "20261207T090200.000001Z"]
    assert sorted(os.listdir(str(tmp_path / "history" / "20261207T090200.000001Z"))) == ["index.html", "report.json",
                                                                                      "report.md"]
    assert keep_run(str(tmp_path / "none"), files, 0, "x") == [] and not (tmp_path / "none").exists()
