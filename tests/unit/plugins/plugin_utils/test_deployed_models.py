"""The health report's deployed models: each node's copy (node_facts' models group, from the record
deploy-model.yml writes beside the files) grouped by model, a warning for every copy that would not load
and for a rank no node holds, and the section in the page and the Markdown."""
import copy
import json

from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown

from report_fixture import copy_on, four_ranks, healthy_inputs, with_models
from report_schema import assert_valid_report


def test_a_complete_deployment_is_one_model_in_rank_order_and_no_problem():
    model = with_models(four_ranks())
    assert model["verdict"] == "healthy" and model["problems"] == []
    [deployed] = model["models"]
    assert deployed["complete"] is True and deployed["bytes"] == 4 * 250000000
    assert [(c["host"], c["rank"], c["layers"]) for c in deployed["nodes"]] == [
        ("mac1", 0, [0, 6]), ("mac2", 1, [6, 12]), ("mac3", 2, [12, 18]), ("mac4", 3, [18, 24])]


def test_a_copy_that_lost_a_file_is_a_warning_on_its_node_naming_the_file():
    per_host = four_ranks()
    per_host["mac3"] = [copy_on(2, [12, 18], complete=False, missing=["model-00003-of-00004.safetensors"])]
    model = with_models(per_host)
    assert model["verdict"] == "degraded" and model["problem_codes"] == ["model_copy_incomplete"]
    [found] = model["problems"]
    assert found["host"] == "mac3" and found["severity"] == "warning"
    assert "rank 2, layers 12-17" in found["message"] and "model-00003-of-00004.safetensors" in found["message"]
    assert "deploy-model.yml" in found["fix"]
    assert model["models"][0]["complete"] is False


def test_a_rank_on_no_node_is_a_cluster_wide_warning():
    per_host = four_ranks()
    del per_host["mac4"]
    model = with_models(per_host)
    [found] = model["problems"]
    assert found["code"] == "model_copy_incomplete" and found["host"] is None
    assert "rank 3 of its 4 is on no node" in found["message"]


def test_an_unreadable_record_is_a_warning_and_nodes_not_read_list_nothing():
    nodes, topology = healthy_inputs()
    nodes = copy.deepcopy(nodes)
    nodes["mac2"]["models"] = [{"path": "/m/x", "error": "/m/x/.macops-model.json: Expecting value", "complete": False}]
    model = build_report_model(nodes, topology)
    assert [p["host"] for p in model["problems"]] == ["mac2"] and model["models"] == []


def test_the_page_and_the_markdown_show_the_models_section():
    per_host = four_ranks()
    per_host["mac3"] = [copy_on(2, [12, 18], complete=False, wrong_size=["model-00003-of-00004.safetensors"])]
    model = with_models(per_host)
    page, text = render_html(model), render_markdown(model)
    assert '<h2 id="models">Deployed models</h2>' in page and "incomplete on mac3" in page
    assert "## Deployed models" in text
    row = [line for line in text.splitlines() if line.startswith("| tiny-qwen2")][0]
    assert "mlx-lm 0.32.2 (each rank its files)" in row and "mac1 layers 0-5, mac2 layers 6-11" in row
    assert "1.00 GB" in row and "incomplete on mac3" in row
    healthy = render_markdown(with_models({}))
    assert "Deployed models" not in healthy


def test_deployed_models_complete_and_incomplete_validate():
    assert_valid_report(json.loads(json.dumps(with_models(four_ranks()))))
    broken = four_ranks()
    broken["mac2"] = [copy_on(1, [6, 12], complete=False, missing=["model-00002-of-00004.safetensors"])]
    model = with_models(broken)
    assert model["problems"] and not model["models"][0]["complete"]
    assert_valid_report(json.loads(json.dumps(model)))
