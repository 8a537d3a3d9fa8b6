"""An operation's section of the one report (plugins/plugin_utils/_report_sections.py): notes, tables, plots and
linked files, valid in the report's envelope and drawn by the one renderer."""
import json

from ansible_collections.macops.cluster.plugins.plugin_utils._report_files import report_files
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_sections import section, table

from report_fixture import healthy_inputs
from report_schema import assert_valid_report


def test_every_operations_section_validates_in_its_envelope():
    nodes, topology = healthy_inputs()
    sections = [section("deploy", "Deploy", ["mac1: 5 files"], [table(["Node", "Files"], [["mac1", 5]], "Transfers")],
                        [{"path": "links.png", "label": "plot"}, {"path": "deploy.json"}],
                        {"name": "tiny", "run_id": None, "source": None, "plan": {"ranks": [], "files": {}},
                         "deployment": None},
                        ["5 files moved."]),
                section("reboot", "Reboot", data={"mode": None, "nodes": {}})]
    model = build_report_model(nodes, topology, sections=sections)
    assert [entry["operation"] for entry in model["sections"]] == ["reboot", "deploy"]
    assert model["sections"][1]["tables"][0]["rows"] == [["mac1", "5"]]
    assert_valid_report(json.loads(json.dumps(model)))
    # The one renderer draws every section: its notes, tables, plots and linked files.
    files, _stale = report_files(model, topology)
    assert '<h2 id="deploy">Deploy</h2><p>5 files moved.</p><h3>Transfers</h3>' in files["index.html"]
    assert '<img src="links.png" alt="plot">' in files["index.html"] and 'href="deploy.json"' in files["index.html"]
    assert "## Deploy\n\n5 files moved.\n\n**Transfers**\n\n| Node | Files |" in files["report.md"]
