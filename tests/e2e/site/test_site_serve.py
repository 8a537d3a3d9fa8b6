"""serve-model.yml on the shared converged lab (issue 33): a model deploy-model.yml placed on the four nodes is
served pipelined over the ring backend, each rank under its node's LaunchDaemon, and answers an OpenAI chat
completion from the controller; a second run changes nothing; a request naming another model is refused and
leaves the served one loaded; a killed rank and a stopped (SIGSTOP) one make every rank restart and the endpoint
answer again; a rank that keeps failing stops after the cap and the run says so."""
import json
import os
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from labtools import HOSTS, INVENTORY, REPO, VENV_BIN, ansible_env, maclab, on_host, recap, ssh, valid_report, wait_until

SERVE = os.path.join(REPO, "serve-model.yml")
DEPLOY = os.path.join(REPO, "deploy-model.yml")
SOURCE = "/Users/admin/staging/serve-qwen2"
NAME = "serve-qwen2"
DEST = "/Users/admin/models/" + NAME
# 8 layers over 4 ranks, small enough that every rank loads in seconds on CI's two cores.
MODEL = ["--layers", "8", "--hidden", "128", "--intermediate", "256", "--heads", "4", "--kv-heads", "2", "--shards", "8"]
ENDPOINT = "http://198.18.0.11:8080"
RUN_DIR = "/Library/Application Support/macops/serve/run"
# Short probes so that a hung rank is found within seconds; a low cap so that a failing rank stops soon.
SETTINGS = {"serve_probe_interval": 5, "serve_probe_timeout": 10, "serve_heartbeat_timeout": 10,
            "serve_restart_limit": 2, "serve_ready_timeout": 120}


def post(path, document, timeout=60):
    """(status, JSON body) of a POST to the endpoint from the controller."""
    request = urllib.request.Request(ENDPOINT + path, data=json.dumps(document).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read().decode())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode() or "null")
    except (OSError, ValueError):
        return None, None


def get(path):
    with urllib.request.urlopen(ENDPOINT + path, timeout=10) as response:
        return json.loads(response.read().decode())


def answers():
    return post("/v1/chat/completions", {"messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4},
                timeout=30)[0] == 200


def node_status(host):
    with open(on_host(host, RUN_DIR + "/status.json")) as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def served(converged, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("serve"))
    maclab("model", "--host", "mac1", "--path", SOURCE, *MODEL)

    def playbook(path, *extra, check=True):
        proc = subprocess.run([os.path.join(VENV_BIN, "ansible-playbook"), "-i", INVENTORY, path] + list(extra),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              env=ansible_env(tmp_dir), timeout=900, cwd=tmp_dir)
        if check:
            assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
        return proc

    def serve(*extra, check=True):
        return playbook(SERVE, "-e", json.dumps(dict(SETTINGS, serve_model_name=NAME)), *extra, check=check)

    playbook(DEPLOY, "-e", "deploy_model_source=%s" % SOURCE, "-e", "deploy_model_source_host=mac1",
             "-e", "deploy_model_report_dir=%s" % os.path.join(tmp_dir, "deploy"))
    serve.first = serve()
    serve.report_dir, serve.tmp_dir, serve.playbook = os.path.join(tmp_dir, "artifacts", "serve"), tmp_dir, playbook
    yield serve
    serve("-e", "serve_state=stopped", check=False)
    for host in HOSTS:
        subprocess.run(["rm", "-rf", on_host(host, DEST), on_host(host, os.path.dirname(SOURCE))], check=True)


def generation_after(previous, timeout):
    """The leader's status once a generation after `previous` answers a completion."""
    return wait_until(lambda: (lambda s: s if s["generation"] > previous and s["state"] == "ready" else None)(
        get("/macops/v1/status")), timeout, interval=0.5, message="a new generation ready")


def test_a_chat_completion_from_the_controller_returns_text_and_a_second_run_changes_nothing(served):
    [section] = [s for s in valid_report(served.report_dir)["sections"] if s["operation"] == "serve"]
    data = section["data"]
    assert data["ready"] and data["model"] == NAME and data["backend"] == "ring" and len(data["ranks"]) == 4
    assert [r["host"] for r in data["ranks"]] == HOSTS and data["measured"]["tokens_per_second"] > 0
    status, body = post("/v1/chat/completions", {"model": NAME, "messages": [{"role": "user", "content": "Hello"}],
                                                 "max_tokens": 8})
    assert status == 200 and body["model"] == NAME
    assert body["choices"][0]["message"]["content"] and body["usage"]["completion_tokens"] > 0
    # Every rank runs under its node's LaunchDaemon, in the same generation.
    assert all(node_status(host)["generation"] == 1 for host in HOSTS)
    second = served()
    assert all(counts["changed"] == 0 for counts in recap(second.stdout).values()), second.stdout[-3000:]


def test_a_request_naming_another_model_is_refused_and_the_served_one_stays_loaded(served):
    before = get("/macops/v1/status")
    status, body = post("/v1/chat/completions", {"model": "mlx-community/Kimi-K2-Instruct-4bit",
                                                 "messages": [{"role": "user", "content": "Hi"}]})
    assert status == 404 and body["error"]["code"] == "model_not_found"
    assert [m["id"] for m in get("/v1/models")["data"]] == [NAME]
    assert answers()
    after = get("/macops/v1/status")
    assert (after["generation"], after["restarts"]) == (before["generation"], before["restarts"])


@pytest.mark.parametrize("signal_name", ["KILL", "STOP"])
def test_a_killed_or_stopped_rank_makes_every_rank_restart_and_the_endpoint_answers_again(served, signal_name):
    before = get("/macops/v1/status")
    load = before["time_to_ready"]
    victim = "mac3" if signal_name == "KILL" else "mac2"
    old_pids = dict((host, node_status(host)["rank_pid"]) for host in HOSTS)
    started = time.time()
    ssh(victim, "kill -%s %d" % (signal_name, old_pids[victim]))
    # A killed rank is found at once; a stopped one when a probe waits serve_probe_timeout past its interval.
    found_within = 2 * load + 15 + (SETTINGS["serve_probe_interval"] + SETTINGS["serve_probe_timeout"]
                                    if signal_name == "STOP" else 0)
    after = generation_after(before["generation"], found_within + 30)
    assert answers()
    elapsed = time.time() - started
    assert elapsed <= found_within, "answering again took %.1f s (load %.1f s)" % (elapsed, load)
    failure = after["last_failure"]
    assert failure["kind"] == ("exited" if signal_name == "KILL" else "hung"), failure
    if signal_name == "KILL":
        assert failure["host"] == victim and "-9" in failure["message"], failure
    # Every rank restarted: a new process on every node, each in the new generation.
    for host in HOSTS:
        status = node_status(host)
        assert status["generation"] == after["generation"] and status["rank_pid"] != old_pids[host], (host, status)


def test_a_rank_that_keeps_failing_stops_after_the_cap_and_the_run_says_so(served):
    weights = on_host("mac4", DEST + "/model-00001-of-00008.safetensors")
    with open(weights, "r+b") as handle:  # same size, a header MLX refuses: every load on mac4 fails
        handle.write(b"\xff" * 16)
    ssh("mac4", "kill -KILL %d" % node_status("mac4")["rank_pid"])
    leader = wait_until(lambda: (lambda s: s if s["state"] == "failed" else None)(get("/macops/v1/status")), 120,
                        interval=0.5, message="the leader to give up")
    assert leader["consecutive_failures"] == SETTINGS["serve_restart_limit"] + 1
    assert "restarted" in leader["detail"] and leader["last_failure"]["host"] in ("mac4",), leader
    assert "Invalid json header" in leader["last_failure"]["message"]  # the failing rank's own error
    # Every rank stops (the others at their next heartbeat), and the endpoint says why instead of answering.
    wait_until(lambda: all(node_status(host)["rank_pid"] is None for host in HOSTS[1:]), 30, interval=0.5,
               message="every rank stopped")
    status, body = post("/v1/completions", {"prompt": "Hi", "max_tokens": 1})
    assert status == 503 and body["state"] == "failed"
    # serve-model.yml says so too (serve_not_ready, the leader's last failure) and fails.
    failed = served("-e", "serve_state=restarted", check=False)
    assert failed.returncode != 0 and "serve_not_ready" in failed.stdout, failed.stdout[-3000:]
    # deploy-model.yml puts the file back (its sha256 differs); the model is served again.
    served.playbook(DEPLOY, "-e", "deploy_model_source=%s" % SOURCE, "-e", "deploy_model_source_host=mac1",
                    "-e", "deploy_model_report_dir=%s" % os.path.join(served.tmp_dir, "deploy"))
    served("-e", "serve_state=restarted")
    assert answers()
