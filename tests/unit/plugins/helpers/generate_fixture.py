"""The generate suite's model, on every node, and a results document of its runs from real captures."""
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_generate import generate_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import build_document

from fixture_files import read_fixture

HOSTS = ["mac1", "mac2", "mac3", "mac4"]
MODEL = "/Users/admin/models/tiny-qwen2"
CONFIG = {"model_type": "qwen2", "num_hidden_layers": 8, "hidden_size": 64}


def files_of(present):
    return dict((host, {MODEL + "/config.json": {"exists": host in present, "json": CONFIG if host in present else None}})
                for host in HOSTS)


def document_with_generate():
    runs, _problems = generate_plan([MODEL], dict((h, {MODEL: CONFIG}) for h in HOSTS), HOSTS, "ring")
    outputs = [{"rc": 0, "stdout": read_fixture("mlx_lm_benchmark/one_node.txt"), "stderr": ""},
               {"rc": 0, "stdout": read_fixture("mlx_lm_benchmark/pipeline_4_ranks.txt"), "stderr": ""}]
    run = {"id": "20261201T120000Z", "finished": "2026-12-01T12:00:00Z", "playbook": "benchmark.yml",
           "suites": ["generate"]}
    return build_document(run, HOSTS, links_plan({}, HOSTS, 1), [], {}, {}, 15.0, {}, {}, "tb5", None, None,
                          list(zip(runs, outputs)), {"prompt_tokens": 64, "generation_tokens": 16, "trials": 3})
