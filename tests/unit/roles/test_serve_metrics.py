"""Issue 50: the serving metrics (roles/serve/files/serve_metrics.py) as Prometheus reads them: what each completion,
state, failure and probe adds; GET /metrics on a running leader, open to the API key and to the scrape token only, the
scrape token opening nothing else; and a serving environment without prometheus_client serving on with a 503 that
says why."""
import json
import os
import signal
import sys
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from test_serve_supervisor import leader_factory, request  # noqa: F401 - a fixture

FILES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "serve", "files")
sys.path.insert(0, FILES)
import serve_front  # noqa: E402
import serve_metrics  # noqa: E402


def samples(text):
    """{(name, frozenset(labels)): value} of every sample in Prometheus's text format."""
    return dict(((sample.name, frozenset(sample.labels.items())), sample.value)
                for family in text_string_to_metric_families(text) for sample in family.samples)


def value(found, name, **labels):
    return found.get((name, frozenset(labels.items())))


def test_each_request_counts_by_status_and_code_and_a_success_adds_its_times_and_tokens():
    traffic = serve_front.Traffic()
    metrics = serve_metrics.Metrics("tiny", "ring", traffic)
    metrics.request({"status": 200, "error": None, "seconds": 2.5, "first_token_seconds": 0.5, "prompt_tokens": 7,
                     "completion_tokens": 41})
    metrics.request({"status": 503, "error": "model_not_ready", "seconds": 0.01})
    metrics.request({"status": 200, "error": "stream_incomplete", "seconds": 9.0, "first_token_seconds": 1.0,
                     "completion_tokens": 5})
    found = samples(metrics.render().decode())
    assert value(found, "macops_serve_requests_total", model="tiny", status="200", code="") == 1
    assert value(found, "macops_serve_requests_total", model="tiny", status="503", code="model_not_ready") == 1
    assert value(found, "macops_serve_requests_total", model="tiny", status="200", code="stream_incomplete") == 1
    # Times: both answered streams; tokens a second only for the one that finished: 40 tokens after the first in 2 s.
    assert value(found, "macops_serve_request_seconds_count") == 2
    assert value(found, "macops_serve_time_to_first_token_seconds_sum") == 1.5
    assert value(found, "macops_serve_generation_tokens_per_second_count") == 1
    assert value(found, "macops_serve_generation_tokens_per_second_sum") == 20.0
    assert value(found, "macops_serve_tokens_total", kind="prompt") == 7
    assert value(found, "macops_serve_tokens_total", kind="completion") == 46
    assert value(found, "macops_serve_info", model="tiny", backend="ring") == 1


def test_requests_in_flight_and_those_without_a_token_yet_are_read_when_scraped():
    traffic = serve_front.Traffic()
    metrics = serve_metrics.Metrics("tiny", "ring", traffic)
    first, second = object(), object()
    traffic.begin(first)
    traffic.begin(second)
    traffic.first_token(first)
    found = samples(metrics.render().decode())
    assert value(found, "macops_serve_requests_in_flight") == 2 and value(found, "macops_serve_requests_waiting") == 1
    traffic.end(second)  # answered or cut before its first token: no longer waiting
    traffic.end(first)
    found = samples(metrics.render().decode())
    assert value(found, "macops_serve_requests_in_flight") == 0 and value(found, "macops_serve_requests_waiting") == 0


def test_state_generation_failures_and_probes():
    metrics = serve_metrics.Metrics("tiny", "jaccl", serve_front.Traffic())
    metrics.state("ready", 3)
    metrics.generation_failed("hung")
    metrics.generation_failed("hung")
    metrics.generation_failed("exited")
    metrics.probe_answered(0.25)
    found = samples(metrics.render().decode())
    assert value(found, "macops_serve_ready") == 1 and value(found, "macops_serve_generation") == 3
    assert value(found, "macops_serve_generation_failures_total", reason="hung") == 2
    assert value(found, "macops_serve_generation_failures_total", reason="exited") == 1
    assert value(found, "macops_serve_probe_seconds_count") == 1
    metrics.state("restarting", 3)
    assert value(samples(metrics.render().decode()), "macops_serve_ready") == 0


def test_without_prometheus_client_every_call_does_nothing_and_render_gives_none(monkeypatch):
    monkeypatch.setattr(serve_metrics, "CONTENT_TYPE", None)
    metrics = serve_metrics.Metrics("tiny", "ring", serve_front.Traffic())
    metrics.request({"status": 200, "seconds": 1.0, "completion_tokens": 3})
    metrics.state("ready", 1)
    metrics.generation_failed("hung")
    metrics.probe_answered(0.1)
    assert metrics.render() is None
    assert "site.yml --tags python_env" in serve_metrics.MISSING


def scrape(port, key=None):
    """(status, text or JSON error) of GET /metrics."""
    headers = {"Authorization": "Bearer " + key} if key else {}
    try:
        with urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%d/metrics" % port, headers=headers),
                                    timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode())


@pytest.fixture()
def scraped_leader(tmp_path, leader_factory):  # noqa: F811 - the fixture imported above
    """The test_serve_supervisor leader (API key s3cret) with a scrape token file."""
    from test_serve_supervisor import FAKE_RANK, free_port
    launcher, mode = tmp_path / "fake_rank.py", tmp_path / "mode"
    launcher.write_text(FAKE_RANK)
    mode.write_text("ok")
    (tmp_path / "api-key").write_text("s3cret\n")
    (tmp_path / "scrape-token").write_text("scrape-only\n")
    internal, endpoint, control = free_port(), free_port(), free_port()
    config = {"version": 1, "model": "tiny", "model_id": "tiny", "model_path": "/models/tiny", "rank": 0, "ranks": 1,
              "hosts": ["mac1"], "backend": "ring", "split": None,
              "leader": {"host": "mac1", "control": "127.0.0.1:%d" % control},
              "endpoint": {"host": "127.0.0.1", "port": endpoint}, "control_port": control, "internal_port": internal,
              "wait_for_addresses": ["127.0.0.1"], "python": sys.executable, "launcher": str(launcher),
              "server_args": [str(internal)],
              "launch": {"ips": ["127.0.0.1"], "rdma": [[]], "ports": [[free_port()], [free_port()]]},
              "launch_env": {"MLX_RANK": "0", "FAKE_MODE": str(mode)}, "run_dir": str(tmp_path),
              "log_dir": str(tmp_path), "api_key_file": str(tmp_path / "api-key"),
              "metrics_token_file": str(tmp_path / "scrape-token"), "ready_timeout": 60, "probe_interval": 1,
              # Wide: a loaded CI machine must not make a slow probe a hang (a restart between the reads
              # below would change the generation they compare).
              "stall_timeout": 60, "restart_limit": 3, "heartbeat_timeout": 30}
    return leader_factory(config)


def test_metrics_take_the_key_or_the_scrape_token_which_opens_nothing_else(scraped_leader):
    ready = scraped_leader.wait(lambda s: s["state"] == "ready")
    port = scraped_leader.port
    status, error = scrape(port)
    assert status == 401 and error["error"]["code"] == "invalid_api_key"
    assert scrape(port, "wrong")[0] == 401
    assert request(port, "/v1/completions", {"prompt": "hi", "max_tokens": 1}, key="s3cret")[0] == 200
    for key in ("s3cret", "scrape-only"):
        status, text = scrape(port, key)
        assert status == 200, text
        found = samples(text)
        assert value(found, "macops_serve_requests_total", model="tiny", status="200", code="") == 1
        assert value(found, "macops_serve_ready") == 1
        assert value(found, "macops_serve_generation") == ready["generation"]
        assert value(found, "macops_serve_probe_seconds_count") >= 1  # readiness is a probe that answered
    # The scrape token is no API key: a completion or the status with it is refused.
    assert request(port, "/v1/completions", {"prompt": "hi"}, key="scrape-only")[0] == 401
    assert request(port, "/macops/v1/status", key="scrape-only")[0] == 401


def test_a_rank_that_dies_counts_a_failed_generation_with_its_reason(scraped_leader):
    first = scraped_leader.wait(lambda s: s["state"] == "ready")
    os.kill(first["rank_pid"], signal.SIGKILL)
    scraped_leader.wait(lambda s: s["state"] == "ready" and s["generation"] > first["generation"])
    found = samples(scrape(scraped_leader.port, "scrape-only")[1])
    reasons = dict((dict(labels)["reason"], count) for (name, labels), count in found.items()
                   if name == "macops_serve_generation_failures_total")
    assert sum(reasons.values()) == 1 and scraped_leader.status()["last_failure"]["kind"] in reasons
    assert value(found, "macops_serve_generation") == first["generation"] + 1
