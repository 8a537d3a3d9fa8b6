"""roles/serve/files/serve_supervisor.py and serve_front.py on loopback, with a stand-in for mlx_lm.server (a rank
that answers /health and completions, or exits at once): the leader proves readiness with a completion, pins
the model field, checks the API key, starts a new generation when its rank dies, and stops after the cap."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

FILES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "serve", "files")
sys.path.insert(0, FILES)
import serve_front  # noqa: E402

# Stands in for serve_rank.py: mlx_lm.server's routes on the port it is given; exits 1 at once when the file
# named by FAKE_MODE says crash (a rank whose load fails).
FAKE_RANK = r'''
import http.server, json, os, sys
if open(os.environ["FAKE_MODE"]).read().strip() == "crash":
    sys.exit(1)
class Handler(http.server.BaseHTTPRequestHandler):
    # ANSWERS
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        assert body["model"] == "default_model", body
        self.send(200, {"model": body["model"], "choices": [{"text": "hi"}], "usage": {"completion_tokens": 1}})
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
'''
# The stand-ins' JSON answers and /health, as mlx_lm.server gives them (here and in test_serve_front.py).
STANDIN_ANSWERS = '''    def log_message(self, *args):
        pass
    def send(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.send(200, {"status": "ok"})
'''
FAKE_RANK = FAKE_RANK.replace("    # ANSWERS\n", STANDIN_ANSWERS)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(port, path, document=None, key=None, method=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = "Bearer " + key
    data = json.dumps(document).encode() if document is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data,
                                                           headers=headers, method=method), timeout=10) as response:
            return response.status, json.loads(response.read().decode())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode())


@pytest.fixture()
def leader(tmp_path, leader_factory):
    launcher, mode = tmp_path / "fake_rank.py", tmp_path / "mode"
    launcher.write_text(FAKE_RANK)
    mode.write_text("ok")
    internal, endpoint, control = free_port(), free_port(), free_port()
    key_file = tmp_path / "api-key"
    key_file.write_text("s3cret\n")
    config = {"version": 1, "model": "tiny", "model_id": "tiny", "model_path": "/models/tiny", "rank": 0, "ranks": 1,
              "hosts": ["mac1"], "backend": "ring", "split": None, "leader": {"host": "mac1",
                                                                             "control": "127.0.0.1:%d" % control},
              "endpoint": {"host": "127.0.0.1", "port": endpoint}, "control_port": control, "internal_port": internal,
              "wait_for_addresses": ["127.0.0.1"], "python": sys.executable, "launcher": str(launcher),
              "server_args": [str(internal)],
              "launch": {"ips": ["127.0.0.1"], "rdma": [[]], "ports": [[free_port()], [free_port()]]},
              "launch_env": {"MLX_RANK": "0", "FAKE_MODE": str(mode)}, "run_dir": str(tmp_path),
              "log_dir": str(tmp_path),
              "api_key_file": str(key_file), "ready_timeout": 20, "probe_interval": 5, "stall_timeout": 10,
              "restart_limit": 2, "heartbeat_timeout": 5}
    leader = leader_factory(config)
    leader.mode, leader.key_file = mode, key_file
    return leader


@pytest.fixture()
def leader_factory(tmp_path):
    """run(config): serve_supervisor.py running `config` (its run_dir: tmp_path), stopped after the test."""
    started = []

    def run(config):
        (tmp_path / "serve.json").write_text(json.dumps(config))
        proc = subprocess.Popen([sys.executable, os.path.join(FILES, "serve_supervisor.py"),
                                 str(tmp_path / "serve.json")],
                                stdout=open(str(tmp_path / "serve.log"), "w"), stderr=subprocess.STDOUT)
        started.append(proc)

        def status():
            try:
                return json.loads((tmp_path / "status.json").read_text())
            except (OSError, ValueError):
                return {}

        def wait(predicate, timeout=30):
            deadline = time.time() + timeout
            while time.time() < deadline:
                current = status()
                if current and predicate(current):
                    return current
                time.sleep(0.2)
            raise AssertionError("timed out; status %s; log:\n%s" % (status(), (tmp_path / "serve.log").read_text()))

        leader = type("Leader", (), {})()
        leader.proc, leader.status, leader.wait, leader.port = proc, status, wait, config["endpoint"]["port"]
        return leader

    yield run
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(30)


def test_ready_means_a_completion_and_the_endpoint_pins_the_model_and_checks_the_key(leader):
    ready = leader.wait(lambda s: s["state"] == "ready")
    assert ready["generation"] == 1 and ready["time_to_ready"] is not None
    assert request(leader.port, "/health")[0] == 200  # no key needed
    assert request(leader.port, "/v1/models")[0] == 401
    assert request(leader.port, "/v1/models", key="wrong")[0] == 401
    status, models = request(leader.port, "/v1/models", key="s3cret")
    assert status == 200 and [m["id"] for m in models["data"]] == ["tiny"]
    status, body = request(leader.port, "/v1/completions", {"model": "tiny", "prompt": "x"}, key="s3cret")
    assert status == 200 and body["model"] == "tiny"  # sent on as default_model, answered under its name
    status, body = request(leader.port, "/v1/completions", {"model": "other/model", "prompt": "x"}, key="s3cret")
    assert status == 404 and body["error"]["code"] == "model_not_found"
    assert leader.status()["generation"] == 1


def test_a_new_key_in_the_file_takes_over_without_a_restart_and_an_unreadable_one_opens_nothing(leader):
    leader.wait(lambda s: s["state"] == "ready")
    leader.key_file.write_text("n3w-key-that-is-longer\n")  # serve-model.yml writes a new key, the config unchanged
    assert request(leader.port, "/v1/models", key="s3cret")[0] == 401
    assert request(leader.port, "/v1/models", key="n3w-key-that-is-longer")[0] == 200
    leader.key_file.unlink()
    assert request(leader.port, "/v1/models", key="n3w-key-that-is-longer")[0] == 401
    assert request(leader.port, "/v1/models")[0] == 401
    assert leader.status()["generation"] == 1


def test_a_rank_that_dies_starts_a_new_generation_and_one_that_keeps_failing_stops_after_the_cap(leader):
    first = leader.wait(lambda s: s["state"] == "ready")
    os.kill(first["rank_pid"], signal.SIGKILL)
    second = leader.wait(lambda s: s["state"] == "ready" and s["generation"] == 2)
    assert second["last_failure"]["kind"] == "exited" and second["restarts"] == 1
    # Ready again, but a failure soon after that is one more in the row: the cap counts failures in a row.
    assert second["consecutive_failures"] == 1 and second["rank_pid"] != first["rank_pid"]
    leader.mode.write_text("crash")
    os.kill(second["rank_pid"], signal.SIGKILL)
    failed = leader.wait(lambda s: s["state"] == "failed")
    assert failed["consecutive_failures"] == 2 and failed["rank_pid"] is None
    assert "serve_state=restarted" in failed["detail"]
    status, body = request(leader.port, "/v1/completions", {"prompt": "x"}, key="s3cret")
    assert status == 503 and body["state"] == "failed"
    assert request(leader.port, "/health")[0] == 503
    leader.proc.terminate()
    assert leader.proc.wait(30) == 0 and leader.status()["state"] == "stopped"


def test_the_model_field_passes_only_for_the_served_model():
    served = ["tiny", "org/tiny", "/models/tiny"]
    assert serve_front.pinned_model({"prompt": "x"}, served) == ({"prompt": "x", "model": "default_model"}, None)
    for name in served + ["default_model", ""]:
        assert serve_front.pinned_model({"model": name}, served)[0] == {"model": "default_model"}
    body, refused = serve_front.pinned_model({"model": "Kimi-K2"}, served)
    assert body is None and "'Kimi-K2'" in refused and "'tiny'" in refused


def test_a_streamed_line_is_answered_under_the_served_name():
    line = b'data: {"model": "default_model", "choices": []}\n'
    assert json.loads(serve_front.rename_stream_line(line, "tiny")[6:])["model"] == "tiny"
    assert serve_front.rename_stream_line(line, "tiny").endswith(b"\n")
    for other in (b"data: [DONE]\n", b"\n", b"data: {not json\n"):
        assert serve_front.rename_stream_line(other, "tiny") == other


def test_a_follower_counts_as_there_only_when_heard_from_since_the_last_generation_ended(tmp_path):
    """A node whose job was booted out sent its last heartbeat just before the generation ended: the next
    generation waits for it (waiting_ranks) instead of starting without it and failing a second time."""
    import serve_supervisor
    config = {"ranks": 3, "rank": 0, "hosts": ["mac1", "mac2", "mac3"], "heartbeat_timeout": 10,
              "wait_for_addresses": [], "run_dir": str(tmp_path), "log_dir": str(tmp_path)}
    leader = serve_supervisor.Leader(config)
    now = time.time()
    leader.followers = {1: {"seen": now - 1}, 2: {"seen": now - 3}}
    assert leader.missing_followers(now) == []
    assert leader.missing_followers(now, since=now - 2) == ["mac3"]  # heard before the end only
    assert leader.missing_followers(now + 8.5, since=now - 5) == ["mac3"]  # heard since, but not lately
    assert leader.missing_followers(now, since=now) == ["mac2", "mac3"]
