"""Issue 47: the endpoint as client programs meet it (the `openai` SDK) and the leader's judgement of a busy server
against a hung one, with roles/serve/files/serve_supervisor.py and serve_front.py on loopback in front of a stand-in
for mlx_lm.server that streams in mlx-lm's shapes, marks progress as serve_rank.py does, and can be made slow, hung,
killed mid-stream or failing (its behaviour file, read at every request and every mark).

What a client sees when something fails is an error, never a short answer; a server that streams slowly for longer
than serve_stall_timeout is never restarted; a hung one is, and its streams end with an error event in time."""
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request

import openai
import pytest

from test_serve_supervisor import STANDIN_ANSWERS, free_port, leader_factory, request  # noqa: F401 - a fixture

FILES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "serve", "files")
sys.path.insert(0, FILES)
import serve_front  # noqa: E402
import serve_launch  # noqa: E402
import serve_supervisor  # noqa: E402

STALL = 6
# Stands in for serve_rank.py: mlx_lm.server's streaming and error shapes on the port it is given, its progress
# marked in MACOPS_SERVE_PROGRESS as serve_rank.py marks it. The behaviour file (BEHAVIOUR, JSON): delay between
# tokens, "hang" (no mark, no token: a stopped follower), "die_after" tokens (the rank exits mid-stream), "error"
# (mlx-lm's own error answer), "bind_fails" (mlx-lm's server thread dies on a taken port; the process lives).
FAKE_RANK = r'''
import http.server, json, os, sys, threading, time
def behaviour():
    try:
        return json.load(open(os.environ["BEHAVIOUR"]))
    except (OSError, ValueError):
        return {}
if behaviour().get("bind_fails"):
    sys.stderr.write("Traceback (most recent call last):\nOSError: [Errno 98] Address already in use\n")
    sys.stderr.flush()
    time.sleep(3600)
def mark():
    while True:
        if not behaviour().get("hang") and os.environ.get("MACOPS_SERVE_PROGRESS"):
            os.utime(os.environ["MACOPS_SERVE_PROGRESS"], None) if os.path.exists(os.environ["MACOPS_SERVE_PROGRESS"]) \
                else open(os.environ["MACOPS_SERVE_PROGRESS"], "a").close()
        time.sleep(0.2)
threading.Thread(target=mark, daemon=True).start()
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    # ANSWERS
    def tokens(self, count, say):
        for n in range(count):
            now = behaviour()
            while now.get("hang"):
                time.sleep(0.2)
                now = behaviour()
            if now.get("die_after") is not None and n >= now["die_after"]:
                os._exit(1)
            time.sleep(now.get("delay", 0))
            say(n)
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if behaviour().get("error"):
            self.send(404, {"error": behaviour()["error"]})
            return
        count = body.get("max_tokens") or 4
        chat = "messages" in body
        usage = {"prompt_tokens": 3, "completion_tokens": count, "total_tokens": 3 + count}
        if not body.get("stream"):
            self.tokens(count, lambda n: None)
            choice = {"index": 0, "finish_reason": "length"}
            choice.update({"message": {"role": "assistant", "content": "tok " * count}} if chat else {"text": "tok " * count})
            self.send(200, {"id": "x", "object": "chat.completion" if chat else "text_completion", "created": 1,
                            "model": body["model"], "choices": [choice], "usage": usage})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        def say(n):
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": body["model"],
                     "choices": [{"index": 0, "finish_reason": None, "delta": {"role": "assistant", "content": "tok "}}]}
            self.wfile.write(("data: %s\n\n" % json.dumps(chunk)).encode())
            self.wfile.flush()
        self.tokens(count, say)
        last = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "length", "delta": {"role": "assistant"}}]}
        self.wfile.write(("data: %s\n\n" % json.dumps(last)).encode())
        if (body.get("stream_options") or {}).get("include_usage"):
            self.wfile.write(("data: %s\n\n" % json.dumps({"id": "x", "object": "chat.completion", "created": 1,
                                                          "model": body["model"], "choices": [], "usage": usage})).encode())
        self.wfile.write(b"data: [DONE]\n\n")
class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
'''
FAKE_RANK = FAKE_RANK.replace("    # ANSWERS\n", STANDIN_ANSWERS)
KEY = "sk-front-test"


@pytest.fixture()
def served(tmp_path, leader_factory):
    """The leader serving 'tiny' through the stand-in; .behave(**kwargs) sets the stand-in's behaviour."""
    launcher, behaviour = tmp_path / "fake_rank.py", tmp_path / "behaviour.json"
    launcher.write_text(FAKE_RANK)
    behaviour.write_text("{}")
    (tmp_path / "api-key").write_text(KEY + "\n")
    internal, endpoint, control = free_port(), free_port(), free_port()
    config = {"version": 1, "model": "tiny", "model_id": "org/tiny", "model_path": "/models/tiny", "rank": 0,
              "ranks": 1, "hosts": ["mac1"], "backend": "ring", "split": None,
              "leader": {"host": "mac1", "control": "127.0.0.1:%d" % control},
              "endpoint": {"host": "127.0.0.1", "port": endpoint}, "control_port": control, "internal_port": internal,
              "wait_for_addresses": ["127.0.0.1"], "python": sys.executable, "launcher": str(launcher),
              "server_args": [str(internal)], "launch": {"ips": ["127.0.0.1"], "rdma": [[]],
                                                         "ports": [[free_port()], [free_port()]]},
              "launch_env": {"MLX_RANK": "0", "BEHAVIOUR": str(behaviour)}, "run_dir": str(tmp_path),
              "api_key_file": str(tmp_path / "api-key"), "ready_timeout": 60, "probe_interval": 600,
              "stall_timeout": STALL, "restart_limit": 3, "heartbeat_timeout": 5, "request_idle_timeout": 60,
              "max_request_bytes": 4096, "log_dir": str(tmp_path)}
    leader = leader_factory(config)
    leader.behave = lambda **kwargs: behaviour.write_text(json.dumps(kwargs))
    leader.client = openai.OpenAI(base_url="http://127.0.0.1:%d/v1" % endpoint, api_key=KEY, max_retries=0,
                                  timeout=60)

    def requests(count=0):
        """The request log once it holds `count` entries, within 10 s: the front writes a request's line after its
        answer is sent, so a client can be done a moment before its line is there."""
        deadline, log = time.time() + 10, tmp_path / "requests.log"
        while True:
            entries = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
            if len(entries) >= count or time.time() > deadline:
                return entries
            time.sleep(0.05)

    leader.requests = requests
    leader.config, leader.tmp_path = config, tmp_path
    leader.wait(lambda s: s["state"] == "ready")
    return leader


def chat(client, **kwargs):
    return client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "Hello"}], **kwargs)


def test_the_openai_sdk_lists_completes_and_streams_with_usage_only_when_asked(served):
    assert [model.id for model in served.client.models.list()] == ["tiny"]
    answer = chat(served.client, max_tokens=3)
    assert answer.model == "tiny" and answer.choices[0].message.content == "tok tok tok "
    assert answer.usage.completion_tokens == 3
    # The answer's own time, to the millisecond (serve-model.yml's first tokens/s: Ansible's uri counts whole seconds).
    raw = served.client.chat.completions.with_raw_response.create(
        model="tiny", messages=[{"role": "user", "content": "Hello"}], max_tokens=1)
    assert 0 < float(raw.headers["x-macops-seconds"]) < 30
    chunks = list(chat(served.client, max_tokens=3, stream=True, stream_options={"include_usage": True}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "tok tok tok "
    assert chunks[-1].usage.completion_tokens == 3 and all(c.model == "tiny" for c in chunks)
    # Without include_usage the client sees no usage chunk, but the request log has the tokens all the same.
    plain = list(chat(served.client, max_tokens=2, stream=True))
    assert all(c.choices for c in plain) and not any(c.usage for c in plain)
    logged = served.requests(4)
    assert [(e["status"], e["stream"], e["completion_tokens"]) for e in logged] == [
        (200, False, 3), (200, False, 1), (200, True, 3), (200, True, 2)]
    assert all("first_token_seconds" in e for e in logged[2:]) and not any("Hello" in json.dumps(e) for e in logged)


def test_a_wrong_key_is_an_authentication_error_and_concurrent_clients_all_finish(served):
    stranger = openai.OpenAI(base_url=served.client.base_url, api_key="sk-wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        chat(stranger, max_tokens=1)
    served.behave(delay=0.05)
    results = []
    threads = [threading.Thread(target=lambda: results.append(
        "".join(c.choices[0].delta.content or "" for c in chat(served.client, max_tokens=8, stream=True)
                if c.choices))) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results == ["tok " * 8] * 6


def test_a_rank_that_dies_mid_stream_is_an_error_to_the_client_never_a_short_answer(served):
    served.behave(die_after=3, delay=0.05)
    before = len(served.requests())
    with pytest.raises(openai.APIError) as raised:
        for _ in chat(served.client, max_tokens=50, stream=True):
            pass
    assert "restart" in str(raised.value) or "before it was complete" in str(raised.value)
    served.behave()
    again = served.wait(lambda s: s["state"] == "ready" and s["generation"] == 2)
    assert again["last_failure"]["kind"] == "exited"
    assert served.requests(before + 1)[-1]["error"] in ("stream_incomplete", "generation_failed")


def test_errors_are_in_openai_s_shape_and_a_body_too_large_is_refused(served):
    served.behave(error="Prompt is too long")
    with pytest.raises(openai.BadRequestError) as raised:
        chat(served.client, max_tokens=1)
    assert raised.value.body["message"] == "Prompt is too long"  # mlx-lm's {"error": "<text>"}, reshaped
    served.behave()
    with pytest.raises(openai.APIStatusError) as raised:
        served.client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "x" * 5000}])
    assert raised.value.status_code == 413 and raised.value.body["code"] == "request_too_large"
    with pytest.raises(openai.NotFoundError):
        served.client.chat.completions.create(model="Kimi-K2", messages=[{"role": "user", "content": "x"}])


def test_a_server_that_streams_slowly_for_longer_than_the_stall_timeout_is_never_restarted(served):
    """mlx-lm serves a seeded request alone and queues the rest; a probe would wait behind it. Tokens that keep
    coming, and a rank 0 that keeps stepping, are a busy server."""
    served.behave(delay=0.5)
    started = time.time()
    streamed = "".join(c.choices[0].delta.content or "" for c in chat(served.client, max_tokens=4 * STALL, stream=True,
                                                                       seed=7) if c.choices)
    long_answer = chat(served.client, max_tokens=3 * STALL)  # not streamed: rank 0's marks alone show it works
    assert time.time() - started > 3 * STALL
    assert streamed == "tok " * 4 * STALL and long_answer.usage.completion_tokens == 3 * STALL
    status = served.status()
    assert (status["state"], status["generation"], status["restarts"]) == ("ready", 1, 0)


def test_a_hung_rank_is_refused_new_requests_then_restarted_and_its_streams_end_with_an_error(served):
    served.behave(delay=0.1)
    outcome = {}

    def stream():
        try:
            for _ in chat(served.client, max_tokens=200, stream=True):
                pass
            outcome["error"] = None
        except openai.APIError as exc:
            outcome["error"], outcome["at"] = str(exc), time.time()

    thread = threading.Thread(target=stream)
    thread.start()
    time.sleep(1)
    hung_at = time.time()
    served.behave(hang=True)
    served.wait(lambda s: s["quiet_since"] is not None, timeout=STALL)
    refused = urllib.request.Request("http://127.0.0.1:%d/v1/chat/completions" % served.port, headers={
        "Authorization": "Bearer " + KEY, "Content-Type": "application/json"}, data=json.dumps(
        {"messages": [{"role": "user", "content": "x"}]}).encode())
    status, body = request_raw(refused)
    assert status[0] == 503 and status[1]["Retry-After"] and body["state"] == "stalled"
    thread.join(STALL + 10)
    assert outcome.get("error") and outcome["at"] - hung_at <= STALL + 5, outcome
    served.behave()
    after = served.wait(lambda s: s["state"] == "ready" and s["generation"] == 2, timeout=30)
    assert after["last_failure"]["kind"] == "hung" and "nothing moved" in after["last_failure"]["message"]


def request_raw(req):
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return (response.status, dict(response.headers)), json.loads(response.read().decode())
    except urllib.error.HTTPError as exc:
        return (exc.code, dict(exc.headers)), json.loads(exc.read().decode())


def test_rank_0_that_cannot_bind_its_port_fails_its_start_in_seconds_not_at_the_ready_timeout(served):
    served.behave(bind_fails=True)
    started = time.time()
    os.kill(served.status()["rank_pid"], signal.SIGKILL)
    failed = served.wait(lambda s: s["last_failure"] and s["last_failure"]["kind"] == "start_failed", timeout=20)
    assert time.time() - started < 15 and "Address already in use" in failed["last_failure"]["message"]
    assert "the next start in" in failed["detail"] or failed["state"] in ("starting", "restarting", "failed")


def test_a_leaders_restart_is_not_blamed_on_a_follower_still_running_its_last_run(tmp_path):
    """The leader's generations count from 1 again after its supervisor restarts: a follower's rank of the earlier
    run's generation 1 (its boot differs) is not this run's, so its exit is no failure of this run's generation."""
    config = {"ranks": 2, "rank": 0, "hosts": ["mac1", "mac2"], "heartbeat_timeout": 10, "wait_for_addresses": [],
              "run_dir": str(tmp_path), "log_dir": str(tmp_path)}
    leader = serve_supervisor.Leader(config)
    leader.generation, leader.state = 1, "starting"
    answer = leader.heartbeat({"rank": 1, "host": "mac2", "generation": 1, "boot": "0ld0ld00",
                               "rank_state": "exited", "exit_code": -15})
    assert answer == {"generation": 1, "boot": leader.boot, "state": "starting"}
    assert leader.exited_followers() == []
    leader.heartbeat({"rank": 1, "host": "mac2", "generation": 1, "boot": leader.boot, "rank_state": "exited",
                      "exit_code": 1})
    assert [rank for rank, info in leader.exited_followers()] == [1]


def test_stream_error_events_and_upstream_errors_are_shaped_for_openai_clients():
    event = serve_front.stream_error_event("a rank failed", "stream_incomplete")
    first, done = event.split(b"\n\n")[:2]
    assert json.loads(first[6:])["error"] == {"message": "a rank failed", "type": "server_error",
                                              "code": "stream_incomplete"}
    assert done == b"data: [DONE]"
    assert serve_front.upstream_error(404, b'{"error": "bad top_k"}') == (400, serve_front.error_body(
        "bad top_k", "invalid_request_error", "invalid_request"))
    status, body = serve_front.upstream_error(500, b"")
    assert status == 500 and body["error"]["type"] == "server_error"
    shaped = {"error": {"message": "exo says no", "type": "x", "code": None}}
    assert serve_front.upstream_error(404, json.dumps(shaped).encode()) == (404, shaped)


FAKE_IBV_DEVINFO = """#!/bin/sh
# ibv_devinfo -v -d DEVICE as Apple TN3205 prints it; the port's state and GID from files named by the device.
state=$(cat "$FAKE_RDMA/$3.state" 2>/dev/null) || { echo "Failed to get IB devices list"; exit 1; }
printf 'hca_id:\\t%s\\n\\ttransport:\\t\\t\\tThunderbolt (100)\\n\\t\\tport:\\t1\\n\\t\\t\\tstate:\\t\\t\\t%s\\n' "$3" "$state"
cat "$FAKE_RDMA/$3.gids" 2>/dev/null
"""


def test_a_jaccl_rank_starts_only_with_its_rdma_devices_active_and_addressed(tmp_path, monkeypatch):
    """Issue 47: every failed JACCL start may leak an RDMA protection domain only a reboot frees, so a rank waits
    (not counted as a failure) until its devices are PORT_ACTIVE with an IPv4-mapped GID, and its address is up."""
    (tmp_path / "ibv_devinfo").write_text(FAKE_IBV_DEVINFO)
    (tmp_path / "ibv_devinfo").chmod(0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (tmp_path, os.environ["PATH"]))
    monkeypatch.setenv("FAKE_RDMA", str(tmp_path))
    config = {"backend": "jaccl", "rank": 1, "wait_for_addresses": ["127.0.0.1"],
              "launch": {"rdma": [[None, "rdma_en3", "rdma_en4"], ["rdma_en3", None, "rdma_en5"], [None, None, None]]}}
    (tmp_path / "rdma_en3.state").write_text("PORT_DOWN (1)")
    (tmp_path / "rdma_en3.gids").write_text("\t\t\tGID[  0]:\t\tfe80::345e:bff:fe41:7c02\n")
    assert serve_launch.start_blockers(config) == [
        "RDMA device rdma_en3 is PORT_DOWN", "RDMA device rdma_en5 is not listed"]
    (tmp_path / "rdma_en3.state").write_text("PORT_ACTIVE (4)")
    (tmp_path / "rdma_en5.state").write_text("PORT_ACTIVE (4)")
    (tmp_path / "rdma_en5.gids").write_text("\t\t\tGID[  1]:\t\t::ffff:169.254.0.2\n")
    assert serve_launch.start_blockers(config) == [
        "RDMA device rdma_en3 has no IPv4 address (JACCL needs an IPv4-mapped GID)"]
    (tmp_path / "rdma_en3.gids").write_text("\t\t\tGID[  1]:\t\t::ffff:169.254.0.1\n")
    assert serve_launch.start_blockers(config) == []
    assert serve_launch.start_blockers(dict(config, wait_for_addresses=["198.18.255.254"])) == [
        "address 198.18.255.254 is not up"]
    assert serve_launch.start_blockers(dict(config, backend="ring", rank=2)) == []


def test_the_leader_waits_for_a_rank_that_cannot_start_without_counting_a_failure(tmp_path):
    config = {"ranks": 2, "rank": 0, "hosts": ["mac1", "mac2"], "heartbeat_timeout": 10, "backend": "ring",
              "wait_for_addresses": ["127.0.0.1"], "run_dir": str(tmp_path),
              "log_dir": str(tmp_path), "model": "tiny", "restart_limit": 3}
    leader = serve_supervisor.Leader(config)
    leader.heartbeat({"rank": 1, "host": "mac2", "generation": None, "rank_state": "none",
                      "blockers": ["RDMA device rdma_en3 is PORT_DOWN"]})
    assert leader.blocked_ranks() == ["mac2: RDMA device rdma_en3 is PORT_DOWN"]
    leader.publish()
    threading.Timer(1.5, lambda: leader.heartbeat({"rank": 1, "host": "mac2", "rank_state": "none"})).start()
    started = time.time()
    threading.Timer(0.5, lambda: waiting.append(leader.status()["detail"])).start()
    waiting = []
    assert leader.wait_for_followers()
    assert waiting == ["waiting until every rank can start: mac2: RDMA device rdma_en3 is PORT_DOWN"]
    assert 1 <= time.time() - started < 5 and leader.failures == 0


def test_the_rank_blamed_is_the_one_with_an_error_of_its_own_even_while_its_process_lives(tmp_path):
    """A follower whose load failed in its generation thread lives on (its error printed) while its ring peer aborts
    on the lost connection: the peer's exit is not the cause. Rank 0's own "peer lost" error is no start failure."""
    config = {"ranks": 3, "rank": 0, "hosts": ["mac1", "mac2", "mac3"], "heartbeat_timeout": 10, "backend": "ring",
              "wait_for_addresses": [], "run_dir": str(tmp_path),
              "log_dir": str(tmp_path), "model": "tiny", "restart_limit": 3}
    leader = serve_supervisor.Leader(config)
    leader.generation = 1
    common = {"generation": 1, "boot": leader.boot}
    leader.heartbeat(dict(common, rank=1, host="mac2", rank_state="exited", exit_code=-6, exited_at=1.0,
                          error="RuntimeError: [ring] connection to a peer was lost"))
    leader.heartbeat(dict(common, rank=2, host="mac3", rank_state="running",
                          error="ValueError: Invalid json header length"))
    failure = leader.settle(None)
    assert (failure["rank"], failure["host"]) == (2, "mac3") and "Invalid json header" in failure["message"]
    assert failure["message"].startswith("rank 2 (mac3) failed: ")
    assert [rank for rank, _info in leader.exited_followers()] == [1]  # only an exit ends the generation by itself
