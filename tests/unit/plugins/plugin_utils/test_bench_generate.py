"""The generate suite (plugins/plugin_utils/_bench_generate.py): mlx_lm.benchmark's text parsed from real
captures, the runs planned from the node facts, each run judged, its figures in the document and the schema."""
import copy
import json
import os

import pytest
import yaml

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_generate import (generate_plan, generate_results,
                                                                                     parse_benchmark_output)

from benchmark_pages import benchmark_pages
from fixture_files import read_fixture
from generate_fixture import CONFIG, HOSTS, MODEL, document_with_generate
from report_schema import benchmark_schema

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def test_one_node_output_gives_every_trial_and_the_averages():
    parsed = parse_benchmark_output(read_fixture("mlx_lm_benchmark/one_node.txt"))
    assert (parsed["prompt_tokens"], parsed["generation_tokens"], parsed["batch_size"]) == (64, 16, 1)
    assert [t["trial"] for t in parsed["trials"]] == [1, 2, 3]
    assert parsed["trials"][0] == {"trial": 1, "prompt_tps": 2523.439, "generation_tps": 279.472,
                                   "peak_memory_gb": 0.002, "total_time_s": 0.083}
    assert parsed["averages"] == {"prompt_tps": 2621.570, "generation_tps": 246.282, "peak_memory_gb": 0.002}


def test_a_pipelined_run_that_lost_a_peer_has_no_averages_and_fails():
    text = read_fixture("mlx_lm_benchmark/pipeline_peer_lost.txt")
    parsed = parse_benchmark_output(text)
    assert len(parsed["trials"]) == 2 and parsed["averages"] is None
    run = {"model": MODEL, "name": "tiny-qwen2", "nodes": 2, "hosts": HOSTS[:2], "mode": "pipeline", "backend": "ring"}
    results, problems = generate_results([run], [{"rc": 0, "stdout": text, "stderr": ""}], "mac1")
    assert not results[0]["ok"] and results[0]["generation_tps"] is None
    (found,) = problems
    assert found["code"] == "bench_generate_failed" and found["host"] == "mac1"
    assert found["message"] == ("mlx_lm.benchmark for tiny-qwen2, 2 nodes (pipeline, ring) did not finish (rc 0): "
                                "RuntimeError: [ring] connection to a peer was lost; "
                                "Node with rank 0 exited with code 1")


def test_a_model_on_every_node_plans_one_node_and_pipelined_runs():
    runs, problems = generate_plan([MODEL], dict((h, {MODEL: CONFIG}) for h in HOSTS), HOSTS, "ring")
    assert problems == []
    assert [(r["nodes"], r["mode"], r["backend"], r["hosts"]) for r in runs] == [
        (1, "single", None, ["mac1"]), (4, "pipeline", "ring", HOSTS)]
    assert runs[0]["name"] == "tiny-qwen2" and runs[0]["layers"] == 8 and runs[0]["model_type"] == "qwen2"


def test_the_role_s_defaults_time_a_model_that_fits_on_no_single_node_across_the_nodes_only():
    # Issue 35: the defaults suit a cluster whose model fits on no single node (a deploy-model.yml copy for
    # mlx-lm holds each rank's layers only): no run loads the whole model on one node.
    with open(os.path.join(ROOT, "roles", "benchmark", "defaults", "main.yml")) as handle:
        defaults = yaml.safe_load(handle)
    runs, problems = generate_plan([MODEL], dict((h, {MODEL: CONFIG}) for h in HOSTS), HOSTS, "ring",
                                   defaults["benchmark_generate_single"], defaults["benchmark_generate_pipeline"])
    assert problems == [] and [(r["nodes"], r["hosts"]) for r in runs] == [(4, HOSTS)]


def test_no_backend_or_too_few_layers_keeps_the_one_node_run_and_says_why():
    configs = dict((h, {MODEL: CONFIG}) for h in HOSTS)
    runs, problems = generate_plan([MODEL], configs, HOSTS, None)
    assert [r["nodes"] for r in runs] == [1] and "no MLX hostfile" in problems[0]["message"]
    small = dict((h, {MODEL: dict(CONFIG, num_hidden_layers=3)}) for h in HOSTS)
    runs, problems = generate_plan([MODEL], small, HOSTS, "ring")
    assert [r["nodes"] for r in runs] == [1] and "3 layers cannot be pipelined across 4 nodes" in problems[0]["message"]
    assert generate_plan([MODEL], configs, HOSTS, "ring", single=False)[0][0]["mode"] == "pipeline"


def test_a_tensor_run_goes_beside_the_pipelined_one_when_the_heads_divide_by_the_node_count():
    """Issue 47: mlx_lm.benchmark without --pipeline across the nodes, as mlx_lm.server serves a tensor deployment."""
    configs = dict((h, {MODEL: CONFIG}) for h in HOSTS)
    runs, problems = generate_plan([MODEL], configs, HOSTS, "ring", single=False, tensor=True)
    assert problems == [] and [(r["mode"], r["nodes"], r["backend"]) for r in runs] == [
        ("pipeline", 4, "ring"), ("tensor", 4, "ring")]
    runs, problems = generate_plan([MODEL], configs, HOSTS, "ring", single=False, pipeline=False, tensor=True)
    assert [r["mode"] for r in runs] == ["tensor"] and problems == []
    odd = dict((h, {MODEL: dict(CONFIG, num_key_value_heads=2, num_attention_heads=6)}) for h in HOSTS)
    runs, problems = generate_plan([MODEL], odd, HOSTS, "ring", single=False, tensor=True)
    assert [r["mode"] for r in runs] == ["pipeline"]
    [found] = problems
    assert found["code"] == "bench_generate_failed" and found["details"]["mode"] == "tensor"
    assert "needs attention heads 6 and KV heads 2 to divide by 4" in found["message"], found["message"]
    assert "benchmark_generate_tensor: false" in found["message"]
    # Two nodes divide them: the same model runs tensor parallel on a pair.
    runs, problems = generate_plan([MODEL], odd, HOSTS[:2], "ring", single=False, pipeline=False, tensor=True)
    assert problems == [] and [(r["mode"], r["hosts"]) for r in runs] == [("tensor", HOSTS[:2])]


def test_each_run_is_in_the_document_with_its_tokens_per_second():
    doc = document_with_generate()
    one, pipelined = doc["suites"]["generate"]["results"]
    assert one["ok"] and one["generation_tps"] == pytest.approx(246.282) and one["unit"] == "tokens/s"
    assert pipelined["nodes"] == 4 and pipelined["prompt_tps"] == pytest.approx(613.167)
    names = sorted(set((m["name"], m["subject"]) for m in doc["measurements"] if m["suite"] == "generate"))
    assert ("generation_tps", "tiny-qwen2 4 nodes") in names and ("peak_memory", "tiny-qwen2 1 nodes") in names
    repeats = [m["repeats"] for m in doc["measurements"] if m["subject"] == "tiny-qwen2 4 nodes"
               and m["name"] == "generation_tps"][0]
    assert repeats == [25.439, 38.799, 24.37]
    assert doc["problems"] == []


def test_the_document_with_generate_validates_and_the_report_draws_its_plot(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    image = pytest.importorskip("matplotlib.image")
    schema = benchmark_schema()
    doc = json.loads(json.dumps(document_with_generate()))
    jsonschema.validate(doc, schema)
    broken = copy.deepcopy(doc)
    broken["suites"]["generate"]["results"][0]["unit"] = "tok/s"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    images, page, markdown = benchmark_pages(str(tmp_path), doc, [])
    assert ("generate.png", "Tokens per second per model and node count") in images
    pixels = image.imread(str(tmp_path / "generate.png"))
    assert pixels.shape[0] > 100 and pixels.shape[1] > 100 and pixels.std() > 0.01
    assert "generate.png" in page and "tiny-qwen2" in page and "pipeline, ring" in markdown
