"""deploy-model.yml's section of the one report (plugins/plugin_utils/_deploy_section.py): bytes received against
what was lacking, progress lines, the deployment's name, a removal; on the one renderer's page and Markdown."""
import json

from ansible_collections.macops.cluster.plugins.plugin_utils._deploy_section import deploy_section
from ansible_collections.macops.cluster.plugins.plugin_utils._model_deployment import deployment
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown

from deployment_fixture import DEST, MB, SOURCE, applied, empty_inventories, placement, volumes
from report_schema import assert_valid_report


def test_the_deploy_section_counts_received_bytes_against_what_was_lacking_and_reads_well():
    plan = placement()
    inventories = empty_inventories(plan)
    inventories["mac2"]["files"]["a.safetensors"] = {"state": "partial", "bytes": 10 * MB}
    inventories["mac2"]["missing_bytes"] -= 10 * MB
    result = deployment(plan, "mac1", SOURCE, DEST, inventories, volumes(), applied(), 0, "/")
    results = {"mac1": {"linked": ["config.json", "shared.safetensors"], "received": [], "bytes_received": 0},
               "mac2": {"received": [{}] * 3, "bytes_received": inventories["mac2"]["missing_bytes"], "seconds": 2.0},
               "mac3": {"received": [{}] * 3, "bytes_received": inventories["mac3"]["missing_bytes"], "seconds": 2.0},
               "mac4": {"failed": True, "msg": "c.safetensors: 0 of 41943040 bytes arrived", "bytes_received": 0}}
    ranked = dict(plan, runtime="mlx-lm", version="0.32.2", mode="pipeline", copies="per-rank", layers=16,
                  model_bytes=130 * MB, context_tokens=4096,
                  ranks=[dict(r, layers=[12 - 4 * r["rank"], 16 - 4 * r["rank"]], layer_count=4, disk_bytes=1,
                              weight_bytes=1, kv_reserve_bytes=1, need_bytes=1, wired_limit_bytes=2,
                              wired_limit_source="iogpu.wired_limit_mb", headroom_bytes=1) for r in plan["ranks"]])
    entry = deploy_section({"name": "m", "run_id": "run-1", "plan": ranked, "model": {"path": SOURCE, "model_type": "qwen2"},
                            "deployment": result, "transfers": results})
    report = entry["data"]["deployment"]
    assert report["needed_bytes"] == sum(inventories[h]["missing_bytes"] for h in ("mac2", "mac3", "mac4"))
    assert report["wire_bytes"] == inventories["mac2"]["missing_bytes"] + inventories["mac3"]["missing_bytes"]
    assert report["nodes"]["mac4"]["failed"] and "0 of 41943040" in report["nodes"]["mac4"]["msg"]
    assert entry["summary"][0] == "rank 0: mac1, layers 12-15, 2 files, needs 0.0 MB of 0.0 MB"
    assert entry["summary"][-1].startswith("mac4: 0.0 MB received in 0.0 s (0 linked, 0 pulled); FAILED: c.safe")
    # The one report's page and Markdown draw the section: the placement, the transfers, the cables.
    model = build_report_model({"mac1": {}}, {}, [], "Model deployment: m", {"playbook": "deploy-model.yml"}, [entry])
    assert_valid_report(json.loads(json.dumps(model)))
    text = render_markdown(model)
    assert "| mac2 | 3 | 0 | 3 | 0 | 41.9 MB | 2.0 | 21.0 |" in text and "| mac1\\>mac2 |" in text
    assert "crossed the Thunderbolt cables" in text
    assert "| 0 | mac1 | 12-15 | 4 | 2 |" in text and "mlx-lm 0.32.2, pipeline mode, per-rank copies" in text
    assert "<h3>Placement</h3>" in render_html(model) and "<td>mac1&gt;mac2</td>" in render_html(model)
    # Check mode (no deployment yet): the placement alone.
    planned = deploy_section({"name": "m", "plan": ranked, "model": {}, "deployment": None})
    assert [t["caption"] for t in planned["tables"]] == ["Placement"] and planned["data"]["deployment"] is None


def test_a_progress_line_says_bytes_share_rate_and_time_left():
    from ansible_collections.macops.cluster.plugins.plugin_utils._deploy_section import progress_line
    line = progress_line({"bytes_done": 412000000, "bytes_total": 980300000, "bytes_per_second": 19800000,
                          "file": "model-00003-of-00016.safetensors", "seconds": 20.8})
    assert line == ("412.0 MB of 980.3 MB (42%), 19.8 MB/s, about 28 s left; now model-00003-of-00016.safetensors")
    assert progress_line({"bytes_done": 5, "bytes_total": 5, "bytes_per_second": 1, "file": "x"}) == (
        "0.0 MB of 0.0 MB (100%), 0.0 MB/s")
    assert progress_line({"bytes_done": 0, "bytes_total": 0}) is None and progress_line("garbage") is None


def test_a_deployment_without_a_name_is_named_by_its_source():
    plan = placement()
    ranked = dict(plan, model_bytes=1, context_tokens=1, ranks=[
        dict(r, layers=[0, 4], layer_count=4, disk_bytes=1, weight_bytes=1, kv_reserve_bytes=1, need_bytes=1,
             wired_limit_bytes=2, wired_limit_source="iogpu.wired_limit_mb", headroom_bytes=1) for r in plan["ranks"]])
    entry = deploy_section({"plan": ranked, "model": {"path": SOURCE}})
    assert entry["title"] == "Model deployment: %s" % SOURCE and entry["data"]["name"] == SOURCE


def test_a_removal_is_the_deploy_section_with_what_each_node_removed_and_validates():
    removed = {"mac1": [{"path": "/Users/admin/models/m", "bytes": 3 * MB},
                        {"path": "/Users/admin/models/.hub/m", "bytes": 5 * MB}],
               "mac2": [{"path": "/Users/admin/models/m", "bytes": 2 * MB}], "mac3": [], "mac4": None}
    entry = deploy_section({"name": "m", "removed": removed})
    assert entry["title"] == "Model removal: m" and entry["data"]["removed"]["mac4"] == []
    assert entry["summary"] == ["mac1: removed 2 directories, 8.4 MB", "mac2: removed 1 directory, 2.1 MB",
                                "mac3: held nothing of it", "mac4: held nothing of it"]
    assert entry["notes"] == ["m is gone from every node: 10.5 MB of files removed."]
    model = build_report_model({"mac1": {}}, {}, [], "Model removal: m", {"playbook": "deploy-model.yml"}, [entry])
    assert_valid_report(json.loads(json.dumps(model)))
    assert "| mac1 | /Users/admin/models/.hub/m | 5.2 MB |" in render_markdown(model)
