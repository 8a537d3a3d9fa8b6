"""The serve suite: roles/benchmark/files/serve_bench.py run for real against a stand-in of the served endpoint
on loopback (mlx_lm.server's streamed chat completions: SSE chunks, a usage chunk, [DONE]), its JSON turned into
one result per concurrency level, failed requests as bench_serve_failed, a skipped suite with its reason, all in
a document valid against the schema, shown in the report with its plot."""
import http.server
import json
import os
import subprocess
import sys
import threading
import time

import pytest
from report_schema import benchmark_schema

from benchmark_pages import benchmark_pages

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_plan import links_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_results import build_document
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_section import benchmark_section
from ansible_collections.macops.cluster.plugins.plugin_utils._bench_serve import (
    ServeBenchError,
    parse_serve_bench,
    serve_results,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CLIENT = os.path.join(ROOT, "roles", "benchmark", "files", "serve_bench.py")
HOSTS = ["mac1", "mac2", "mac3", "mac4"]
TOKENS = 6
KEY = "sk-bench-unit-secret"


class Endpoint(http.server.BaseHTTPRequestHandler):
    """Streams TOKENS chunks of text 10 ms apart for the served model `tiny`, with the key KEY."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])).decode())
        if self.headers.get("Authorization") != "Bearer " + KEY:
            return self.send_error(401)
        if body.get("model") != "tiny" or not body.get("stream"):
            return self.send_error(404)
        self.server.prompts.append(body["messages"][0]["content"])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        time.sleep(0.02)  # the prompt
        for index in range(TOKENS):
            chunk = {"choices": [{"index": 0, "delta": {"content": "w%d " % index}, "finish_reason": None}]}
            self.wfile.write(("data: %s\n\n" % json.dumps(chunk)).encode())
            self.wfile.flush()
            time.sleep(0.01)
        if (body.get("stream_options") or {}).get("include_usage"):
            usage = {"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": TOKENS, "total_tokens": 46}}
            self.wfile.write(("data: %s\n\n" % json.dumps(usage)).encode())
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture(scope="module")
def endpoint():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
    server.prompts = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run_client(server, key=KEY, extra=()):
    argv = [sys.executable, CLIENT, "--url", "http://127.0.0.1:%d" % server.server_address[1], "--model", "tiny",
            "--concurrency", "1,3", "--requests", "2", "--max-tokens", "16", "--prompt-words", "8", "--timeout", "10",
            "--key-on-stdin"] + list(extra)
    proc = subprocess.run(argv, input=key + "\n", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)
    return {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


def test_each_level_measures_the_first_token_and_the_rate_of_every_request(endpoint):
    output = run_client(endpoint)
    assert output["rc"] == 0, output["stderr"]
    assert KEY not in output["stdout"] + output["stderr"]  # the key is nowhere in what it prints
    results, problems = serve_results(output, "mac1")
    assert problems == []
    assert [(r["concurrency"], r["requests"], r["answered"]) for r in results] == [(1, 2, 2), (3, 6, 6)]
    for result in results:
        assert all(r["tokens"] == TOKENS for r in result["repeats"])  # the usage chunk's count
        assert 0.015 < result["ttft_s"] <= result["ttft_s_p90"] < 5
        # 5 tokens after the first, 10 ms apart: about 100 tokens/s, well below 1000
        assert 20 < result["generation_tps"] < 1000 and result["throughput_tps"] > 0
    # Every request's prompt differs from the others' from its first words on (no prompt cache hit).
    assert len(set(prompt[:20] for prompt in endpoint.prompts)) == len(endpoint.prompts) == 1 + 2 + 6


def test_requests_that_fail_are_an_error_naming_the_level_and_the_cause(endpoint):
    output = run_client(endpoint, key="wrong")
    assert output["rc"] == 1
    results, problems = serve_results(output, "mac1")
    assert [r["answered"] for r in results] == [0, 0] and {p["code"] for p in problems} == {"bench_serve_failed"}
    assert "2 of 2 requests at concurrency 1" in problems[0]["message"] and "HTTP 401" in problems[0]["message"]
    assert problems[0]["host"] == "mac1" and problems[0]["details"]["concurrency"] == 1


def test_an_endpoint_that_is_not_there_or_output_that_is_not_the_clients_is_an_error():
    results, problems = serve_results({"rc": 2, "stdout": "", "stderr": "Traceback\nOSError: boom"}, "mac1")
    assert results == [] and "measured nothing" in problems[0]["message"] and "OSError: boom" in problems[0]["message"]
    with pytest.raises(ServeBenchError):
        parse_serve_bench('{"endpoint": "x"}')


def document(serve):
    run = {"id": "20261204T120000Z", "finished": "2026-12-04T12:00:00Z", "playbook": "benchmark.yml",
           "suites": ["serve"]}
    return build_document(run, HOSTS, links_plan({}, HOSTS, 1), [], {}, {}, 15.0, {}, {}, "tb5", serve=serve)


def test_the_suite_in_the_document_valid_against_the_schema_in_the_report_and_plotted(endpoint, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    pytest.importorskip("matplotlib")
    settings = {"url": "http://198.18.0.11:8080", "model": "tiny", "host": "mac2", "concurrency": [1, 3],
                "requests": 2, "max_tokens": 16, "prompt_words": 8, "warmup": 1, "mode": "tensor", "ranks": 2,
                "backend": "ring"}
    ran = document({"output": run_client(endpoint), "settings": settings})
    jsonschema.validate(json.loads(json.dumps(ran)), benchmark_schema())
    assert {m["name"] for m in ran["measurements"]} == {"serve_ttft_s", "serve_generation_tps", "serve_throughput_tps"}
    assert {m["subject"] for m in ran["measurements"]} == {"tiny concurrency 1", "tiny concurrency 3"}
    images, page, _markdown = benchmark_pages(str(tmp_path), ran, [])
    assert ("serve.png" in [name for name, _caption in images]) and (tmp_path / "serve.png").stat().st_size > 5000
    assert "<h3>Serving (through the endpoint)</h3>" in page and "tiny (tensor over 2 ranks, ring) through http://198.18.0.11:8080" in page
    failed = document({"output": run_client(endpoint, key="wrong"), "settings": settings})
    assert [p["host"] for p in failed["problems"]] == ["mac2", "mac2"]  # rank 0's node, not the first node
    skipped = document({"skipped": "nothing is served", "settings": settings})
    jsonschema.validate(json.loads(json.dumps(skipped)), benchmark_schema())
    assert skipped["suites"]["serve"]["results"] == [] and skipped["problems"] == []
    assert "Serving (through the endpoint): skipped: nothing is served" in benchmark_section(skipped)["notes"]
