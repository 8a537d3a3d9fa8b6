"""roles/serve/files/serve_exo.py (runtime exo) on loopback against the lab's exo stand-in, which answers exo
1.0.71's placement and state API in exo's shapes: the leader places the instance, is ready once every runner is
and a chat completion answers, relays chat completions with the model pinned to the instance's id, places the
instance again after exo restarts, and stops after the cap when exo's runners keep failing."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from test_serve_supervisor import FILES, free_port, leader_factory, request  # noqa: F401 - leader_factory: a fixture

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
STANDIN = os.path.join(REPO, "lab", "macsim", "exo_standin.py")
sys.path.insert(0, FILES)
import serve_exo  # noqa: E402


def tagged(runners, model_id="org/tiny"):
    """exo's /state with one MlxRingInstance "i1" whose runners are in `runners` ({runner id: state})."""
    return {"instances": {"i1": {"MlxRingInstance": {"instanceId": "i1", "shardAssignments": {
        "modelId": model_id, "runnerToShard": dict((r, {}) for r in runners), "nodeToRunner": {}}}}},
        "runners": runners}


@pytest.mark.parametrize("runners, kind, words", [
    ({"r1": {"RunnerReady": {}}, "r2": {"RunnerRunning": {}}}, "ready", "2 runner(s) ready"),
    ({"r1": {"RunnerReady": {}}, "r2": {"RunnerLoading": {"layersLoaded": 3, "totalLayers": 8}}}, "loading",
     "1 of 2 runner(s) loading (3 of 8 layers)"),
    ({"r1": {"RunnerLoading": {}}, "r2": {"RunnerFailed": {"errorMessage": "RDMA errno 22"}}}, "failed",
     "exo's runner r2 failed: RDMA errno 22"),
    ({"r1": {}}, "loading", "0 of 1 runner(s) loading"),  # listed before its runner reports
])
def test_readiness_is_every_runner_ready_and_a_failed_runner_fails(runners, kind, words):
    found = serve_exo.readiness(tagged(runners), "i1")
    assert found[0] == kind and words in found[1]


def test_an_instance_exo_no_longer_lists_is_gone_and_instances_are_found_by_model():
    assert serve_exo.readiness({"instances": {}, "runners": {}}, "i1")[0] == "gone"
    assert serve_exo.readiness(tagged({"r1": {"RunnerReady": {}}}), "i2")[0] == "gone"
    assert list(serve_exo.instances_of(tagged({"r1": {}}), "org/tiny")) == ["i1"]
    assert serve_exo.instances_of(tagged({"r1": {}}), "org/other") == {} == serve_exo.instances_of(None, "x")


def test_nodes_seen_counts_exos_topology_else_its_identities():
    assert serve_exo.nodes_seen({"topology": {"nodes": ["a", {"nodeId": "b"}]}, "nodeIdentities": {"a": {}}}) == 2
    assert serve_exo.nodes_seen({"topology": {"nodes": []}, "nodeIdentities": {"a": {}, "b": {}, "c": {}}}) == 3
    assert serve_exo.nodes_seen(None) == 0 == serve_exo.nodes_seen({"topology": None})


class Exo(object):
    """The lab's exo stand-in on a loopback port (two nodes listed, no discovery), restartable."""

    def __init__(self, tmp_path):
        self.port, self.home, self.models = free_port(), tmp_path / "exo-home", tmp_path / "models"
        model = self.models / "org--tiny"
        model.mkdir(parents=True)
        (model / "config.json").write_text(json.dumps({"num_hidden_layers": 8}))
        (model / "model.safetensors").write_bytes(b"\0" * 16)
        self.log, self.proc = tmp_path / "exo.log", None
        self.start()

    def start(self):
        env = dict(os.environ, EXO_HOME=str(self.home), EXO_MODELS_READ_ONLY_DIRS=str(self.models))
        self.proc = subprocess.Popen([sys.executable, STANDIN, "--nodes", "mac1,mac2", "--api-port", str(self.port)],
                                     env=env, stdout=open(str(self.log), "a"), stderr=subprocess.STDOUT)

    def stop(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


def exo_config(tmp_path, api_port, endpoint, min_nodes=2):
    return {"version": 1, "runtime": "exo", "model": "tiny", "model_id": "org/tiny", "model_path": "/models/tiny",
            "rank": 0, "ranks": min_nodes, "hosts": ["mac%d" % (n + 1) for n in range(min_nodes)], "backend": "ring",
            "endpoint": {"host": "127.0.0.1", "port": endpoint, "url": "http://127.0.0.1:%d" % endpoint},
            "wait_for_addresses": [], "run_dir": str(tmp_path),
            "log_dir": str(tmp_path), "api_key_file": None, "ready_timeout": 20,
            "probe_interval": 2, "stall_timeout": 10, "restart_limit": 2, "heartbeat_timeout": 5,
            "exo": {"api_port": api_port, "model_id": "org/tiny", "sharding": "Pipeline", "instance_meta": "MlxRing",
                    "min_nodes": min_nodes}}


@pytest.fixture()
def exo_leader(tmp_path, leader_factory):
    exo = Exo(tmp_path)
    config = exo_config(tmp_path, exo.port, free_port())
    leader = leader_factory(config)
    leader.exo = exo
    leader.restart = lambda: leader_factory(config).proc
    yield leader
    exo.stop()


def exo_state(exo):
    return request(exo.port, "/state")[1]


def test_the_instance_is_placed_ready_when_every_runner_is_and_answers_chat_with_the_model_pinned(exo_leader):
    ready = exo_leader.wait(lambda s: s["state"] == "ready")
    state = exo_state(exo_leader.exo)
    [instance] = state["instances"].values()
    assigned = instance["MlxRingInstance"]["shardAssignments"]
    assert ready["exo"]["instance_id"] == instance["MlxRingInstance"]["instanceId"]
    assert assigned["modelId"] == "org/tiny" and len(assigned["runnerToShard"]) == 2
    assert all("RunnerReady" in state["runners"][r] for r in assigned["runnerToShard"])
    status, answer = request(exo_leader.port, "/v1/chat/completions", {
        "model": "tiny", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4})
    assert status == 200 and answer["model"] == "tiny" and answer["usage"]["completion_tokens"] == 4
    assert answer["choices"][0]["message"]["content"] == "The macops lab's exo"  # the stand-in says what it is
    assert request(exo_leader.port, "/v1/chat/completions", {"model": "org/other", "messages": []})[0] == 404
    status, refused = request(exo_leader.port, "/v1/completions", {"prompt": "Hello"})
    assert status == 404 and "chat completions only" in refused["error"]["message"]
    assert request(exo_leader.port, "/health")[0] == 200


def test_a_placement_waits_until_exo_sees_every_deployed_node(tmp_path, leader_factory):
    exo = Exo(tmp_path)
    try:
        endpoint = free_port()
        leader = leader_factory(exo_config(tmp_path, exo.port, endpoint, min_nodes=3))
        waiting = leader.wait(lambda s: s["state"] == "waiting_exo" and "sees 2 of the 3" in (s["detail"] or ""))
        time.sleep(3)
        assert leader.status()["generation"] == 0 and waiting["consecutive_failures"] == 0
        assert exo_state(exo)["instances"] == {}  # nothing placed, nothing counted against the cap
    finally:
        exo.stop()


def test_after_exo_restarts_the_instance_is_placed_again(exo_leader):
    first = exo_leader.wait(lambda s: s["state"] == "ready")
    exo_leader.exo.stop()
    exo_leader.exo.start()  # a new exo: no instances (its event log starts afresh)
    again = exo_leader.wait(lambda s: s["state"] == "ready" and s["generation"] > first["generation"], timeout=40)
    assert again["exo"]["instance_id"] != first["exo"]["instance_id"] and again["restarts"] == 1
    assert "exo no longer lists instance" in again["last_failure"]["message"] or "did not answer" in \
        again["last_failure"]["message"]
    assert list(exo_state(exo_leader.exo)["instances"]) == [again["exo"]["instance_id"]]


def test_runners_that_keep_failing_stop_after_the_cap(exo_leader):
    first = exo_leader.wait(lambda s: s["state"] == "ready")
    (exo_leader.exo.home / "standin-faults.json").write_text(json.dumps({"runner_fails": "errno 22"}))
    request(exo_leader.exo.port, "/instance/" + first["exo"]["instance_id"], method="DELETE")
    failed = exo_leader.wait(lambda s: s["state"] == "failed", timeout=40)
    assert failed["consecutive_failures"] == 2 and "errno 22" in failed["last_failure"]["message"]
    time.sleep(1)
    assert exo_state(exo_leader.exo)["instances"] == {}  # the failed instance deleted, none left placed


def test_stopping_a_ready_leader_deletes_its_instance_before_the_supervisor_exits(exo_leader):
    exo_leader.wait(lambda s: s["state"] == "ready")
    assert len(exo_state(exo_leader.exo)["instances"]) == 1
    exo_leader.proc.terminate()
    assert exo_leader.proc.wait(30) == 0
    # exo applies a deletion a moment later (the stand-in too): a supervisor that did not wait would leave it.
    assert exo_state(exo_leader.exo)["instances"] == {}


def test_a_placement_exo_refuses_is_tried_again_without_counting_against_the_cap(tmp_path, exo_leader):
    exo_leader.proc.terminate()
    exo_leader.proc.wait(30)
    model = exo_leader.exo.models / "org--tiny"
    model.rename(model.with_name("aside"))  # no complete copy: exo refuses the placement
    exo_leader.proc = exo_leader.restart()
    refused = exo_leader.wait(lambda s: s["state"] == "waiting_exo" and "refused" in (s["detail"] or ""))
    assert "trying again in 4 s" in refused["detail"] and refused["consecutive_failures"] == 0
    model.with_name("aside").rename(model)
    ready = exo_leader.wait(lambda s: s["state"] == "ready", timeout=40)
    assert (ready["generation"], ready["restarts"]) == (1, 0)


def test_stopped_while_exo_places_its_new_instance_is_still_found_and_deleted(tmp_path):
    leader = serve_exo.ExoLeader(exo_config(tmp_path, 52415, free_port()))
    placed, calls = {}, []

    def api(method, path, document=None):
        calls.append((method, path))
        name = path.rsplit("/", 1)[1]
        if path == "/state":
            return 200, dict(tagged({}), topology={"nodes": ["mac1", "mac2"]}, instances=dict(placed))
        if path == "/place_instance":
            leader.stopping.set()  # SIGTERM while exo takes the command
            placed["i9"] = tagged({"r1": {}})["instances"]["i1"]
            return 200, {"message": "Command received."}
        if method == "DELETE":
            placed.pop(name, None)
            return 200, {"message": "Command received."}
        return (200 if name in placed else 404), {}

    leader.api = api
    leader.run()
    assert placed == {} and ("DELETE", "/instance/i9") in calls
    assert (leader.failures, leader.restarts, leader.status()["state"]) == (0, 0, "stopped")


def test_an_idle_exo_instance_stays_open_beside_the_mark_an_earlier_mlx_lm_rank_0_left(tmp_path, leader_factory):
    """exo's runners leave no mark; the mark file an mlx-lm rank 0 served before left on the node is no sign of
    anything: idle and unprobed for longer than half of stall_timeout, the endpoint still answers in the same
    generation (it used to answer 503 "stalled", then restart exo's instance as hung)."""
    exo = Exo(tmp_path)
    try:
        (tmp_path / "progress").write_text("")
        os.utime(str(tmp_path / "progress"), (time.time() - 3600, time.time() - 3600))
        leader = leader_factory(dict(exo_config(tmp_path, exo.port, free_port()), probe_interval=600, stall_timeout=10))
        ready = leader.wait(lambda s: s["state"] == "ready")
        time.sleep(10 * 0.5 + 2)
        status, answer = request(leader.port, "/v1/chat/completions", {
            "model": "tiny", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4})
        assert status == 200, answer
        assert leader.status()["generation"] == ready["generation"] and leader.status()["quiet_since"] is None
    finally:
        exo.stop()
