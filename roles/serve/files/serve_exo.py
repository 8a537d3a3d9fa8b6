"""macops.cluster's serving supervisor for runtime exo: rank 0's node only (serve_supervisor.py runs it).

exo runs on every node already (the exo role's LaunchDaemon) and starts its own runners; what it lacks
is an instance that outlives exo: instances do not survive an exo restart (its event log is rotated at
start), a worker gives up after five failed runner starts, and its master drops an instance with a node
it has not seen for 30 s. This leader keeps one instance of the served model placed through exo's API
on this node (exo 1.0.71, serve-model.yml's research: `api/main.py`, the exo harness):

- a generation places the instance once exo sees as many nodes as the model was deployed on: POST
  /place_instance {model_id, sharding, instance_meta, min_nodes}, which answers without the instance's
  id, so the new instance is the one /state lists afterwards that it did not list before (instances of
  the model left from earlier are deleted first). A placement exo refuses started no runner, so it is
  tried again later (every 4 s, doubling to 30 s) without counting against the cap;
- it is ready when every runner in the instance's runnerToShard is RunnerReady (exo's /instance/await
  says ready as soon as the instance exists) and a one-token chat completion through exo answers;
- it fails when a runner reports RunnerFailed, when the instance leaves /state (exo restarted, a node
  left), when exo's API does not answer for serve_heartbeat_timeout, or when nothing moves for stall_timeout
  (no byte of any answer through the endpoint, no probe answered: exo's runners are not the collection's); the
  instance is then deleted and placed again, up to serve_restart_limit failed starts in a row. A
  deletion waits until exo no longer has the instance (exo applies it a moment later), so stopping the
  job frees the runners' memory before launchd reports the job gone.

The endpoint (serve_front.py) relays chat completions to exo's /v1/chat/completions with `model`
pinned to the instance's model id (exo answers 404 for any other). Python 3.9, stdlib only.
"""
import http.client
import json
import time

from serve_supervisor import Leader, Probe, log, request_json

API_TIMEOUT_SECONDS = 5.0
FOUND_TIMEOUT_SECONDS = 30.0
# How long a deletion may take to apply; inside the LaunchDaemon's ExitTimeOut (30 s), so stopping the job waits
# for it before launchd reports the job gone.
GONE_TIMEOUT_SECONDS = 15.0
# Stopped right after asking for a placement: how long to look for the instance exo may still make (to delete it).
STOPPED_LOOK_SECONDS = 5.0


def instance_body(instance):
    """The inside of exo's tagged instance ({"MlxRingInstance": {...}} -> {...})."""
    return list(instance.values())[0] if isinstance(instance, dict) and len(instance) == 1 else {}


def nodes_seen(state):
    """How many nodes exo's /state lists: topology.nodes (ids, or objects with nodeId), else nodeIdentities' keys,
    as the exo role's health check counts them."""
    if not isinstance(state, dict):
        return 0
    nodes = (state.get("topology") or {}).get("nodes") if isinstance(state.get("topology"), dict) else None
    return len(nodes) if nodes else len(state.get("nodeIdentities") or {})


def instances_of(state, model_id):
    """{instance id: instance body} of `model_id` in exo's /state."""
    found = {}
    for instance_id, instance in ((state or {}).get("instances") or {}).items():
        body = instance_body(instance)
        if (body.get("shardAssignments") or {}).get("modelId") == model_id:
            found[instance_id] = body
    return found


def readiness(state, instance_id):
    """(kind, detail) of instance `instance_id` in exo's /state: ("gone", ...) when it is not listed, ("failed",
    the runner's error) when a runner failed, ("ready", ...) when every runner is RunnerReady (or RunnerRunning:
    answering a request), else ("loading", the layers loaded so far)."""
    body = instance_body(((state or {}).get("instances") or {}).get(instance_id))
    runners = list(((body.get("shardAssignments") or {}).get("runnerToShard") or {}))
    if not runners:
        return "gone", "exo no longer lists instance %s (exo restarted, or a node left its cluster)" % instance_id
    states = [((state.get("runners") or {}).get(runner) or {}) for runner in runners]
    for runner, runner_state in zip(runners, states):
        if "RunnerFailed" in runner_state:
            return "failed", "exo's runner %s failed: %s" % (runner, (runner_state["RunnerFailed"] or {}).get(
                "errorMessage") or "no message")
    if all("RunnerReady" in s or "RunnerRunning" in s for s in states):
        return "ready", "%d runner(s) ready" % len(runners)
    loaded = [s["RunnerLoading"] for s in states if "RunnerLoading" in s]
    return "loading", "%d of %d runner(s) loading (%d of %d layers)" % (
        len(loaded), len(runners), sum(int(s.get("layersLoaded") or 0) for s in loaded),
        sum(int(s.get("totalLayers") or 0) for s in loaded))


class ExoLeader(Leader):
    """Generations of one exo instance instead of ranks: begin places it, end deletes it."""

    def __init__(self, config):
        Leader.__init__(self, config)
        self.exo = config["exo"]
        self.instance_id = None
        self.probe_request = ("/v1/chat/completions", {"model": self.exo["model_id"], "max_tokens": 1,
                                                       "messages": [{"role": "user", "content": "Hello"}]})

    def status(self):
        document = Leader.status(self)
        document["exo"] = {"instance_id": self.instance_id, "api_port": self.exo["api_port"],
                           "model_id": self.exo["model_id"], "instance_meta": self.exo["instance_meta"]}
        return document

    def api(self, method, path, document=None):
        return request_json("127.0.0.1:%d" % self.exo["api_port"], path, document, API_TIMEOUT_SECONDS, method)

    def exo_state(self):
        """exo's /state, or None when its API does not answer."""
        try:
            status, state = self.api("GET", "/state")
        except (OSError, http.client.HTTPException):
            return None
        return state if status == 200 and isinstance(state, dict) else None

    def prepare(self, ended):  # noqa: ARG002 - no followers: exo's own API is what a generation waits for
        """Place the instance once exo answers and sees as many nodes as the model was deployed on (after a reboot
        nodes join one by one). A placement exo refuses started no runner (no RDMA resource leaked), so it is tried
        again, less often each time, without counting against the cap. False when the supervisor stops first."""
        attempt = 0
        while not self.stopping.is_set():
            state = self.exo_state()
            seen = nodes_seen(state)
            if state is None:
                why = "waiting for exo's API on port %d" % self.exo["api_port"]
            elif seen < self.exo["min_nodes"]:
                why = "exo sees %d of the %d nodes the model was deployed on" % (seen, self.exo["min_nodes"])
            else:
                placed, why = self.place(state)
                if placed:
                    self.instance_id = placed
                    return True
                attempt += 1
            delay = min(30.0, 2.0 * 2 ** min(attempt, 4))
            self.publish("waiting_exo", "%s; trying again in %d s" % (why, delay) if attempt else why)
            self.stopping.wait(delay if attempt else 2.0)
        return False

    def place(self, state):
        """(the new instance's id, None) or (None, why not): any instance of the model left from before deleted (and
        gone), then POST /place_instance; exo's answer has no id, so the new instance is the one of the model /state
        lists afterwards that it did not before. Stopped meanwhile, the new instance is still found, so end()
        deletes it."""
        for left in instances_of(state, self.exo["model_id"]):
            self.delete(left)
        state = self.exo_state()
        if state is None:
            return None, "exo's /state did not answer before the placement"
        before = set(state.get("instances") or {})
        request = dict((key, self.exo[key]) for key in ("model_id", "sharding", "instance_meta", "min_nodes"))
        try:
            status, answer = self.api("POST", "/place_instance", request)
        except (OSError, http.client.HTTPException) as exc:
            status, answer = None, str(exc)
        if status != 200:
            return None, "exo refused to place %s (HTTP %s): %s" % (
                self.exo["model_id"], status, json.dumps(answer)[:300])
        asked = time.time()
        while time.time() - asked < FOUND_TIMEOUT_SECONDS:
            new = [i for i in instances_of(self.exo_state(), self.exo["model_id"]) if i not in before]
            if new:
                log("exo placed instance %s of %s" % (new[0], self.exo["model_id"]))
                return new[0], None
            if self.stopping.is_set() and time.time() - asked > STOPPED_LOOK_SECONDS:
                break  # stopped: looked long enough for an instance to delete
            time.sleep(0.5)
        return None, "exo took the placement of %s but listed no new instance within %d s" % (
            self.exo["model_id"], FOUND_TIMEOUT_SECONDS)

    def begin(self):
        log("generation %d: instance %s of %s" % (self.generation, self.instance_id, self.exo["model_id"]))

    def delete(self, instance_id):
        """DELETE /instance/<id> and wait until exo no longer has it (exo applies the command a moment later; until
        then its runners hold their memory)."""
        try:
            self.api("DELETE", "/instance/%s" % instance_id)
        except (OSError, http.client.HTTPException) as exc:
            log("could not delete exo instance %s: %s" % (instance_id, exc))
            return
        deadline = time.time() + GONE_TIMEOUT_SECONDS
        while time.time() < deadline:
            try:
                if self.api("GET", "/instance/%s" % instance_id)[0] == 404:
                    return
            except (OSError, http.client.HTTPException):
                return  # exo went away: so did its instances
            time.sleep(0.25)
        log("exo still lists instance %s %d s after its deletion" % (instance_id, GONE_TIMEOUT_SECONDS))

    def end(self):
        if self.instance_id:
            self.delete(self.instance_id)
        self.instance_id = None

    def watch(self):
        """Until this generation fails (its failure) or the supervisor stops (None)."""
        config, started = self.config, time.time()
        probe, last_probe, last_answer = None, 0.0, time.time()
        port = self.exo["api_port"]
        while not self.stopping.wait(0.5):
            now = time.time()
            state = self.exo_state()
            if state is None:
                if now - last_answer > config["heartbeat_timeout"]:
                    return self.failure("lost", "exo's API on port %d did not answer for %d s" % (
                        port, config["heartbeat_timeout"]))
                continue
            last_answer = now
            kind, detail = readiness(state, self.instance_id)
            if kind in ("gone", "failed"):
                return self.failure("exited", detail)
            if probe is not None and probe.result is not None:
                failed = self.judge(probe, now, " through exo's instance %s" % self.instance_id)
                probe, last_probe = None, now
                if failed:
                    return failed
            if self.state == "starting":
                if probe is not None and probe.overdue():
                    return self.failure("not_ready", "no one-token completion from exo within %d s" % probe.timeout)
                if now - started > config["ready_timeout"]:
                    return self.failure("not_ready", "not ready within serve_ready_timeout (%d s): %s" % (
                        config["ready_timeout"], detail))
                if kind == "ready" and probe is None and now - last_probe >= 1.0:
                    probe = Probe(port, max(1, config["ready_timeout"] - (now - started)), self.probe_request)
                self.publish(detail="generation %d: %s" % (self.generation, detail))
            else:
                self.keep_row(now)
                stalled = self.stalled(now, probe)
                if stalled:
                    return stalled
                if probe is None and not self.traffic.busy() and now - last_probe >= config["probe_interval"]:
                    probe = Probe(port, config["stall_timeout"], self.probe_request)
                self.publish()
        return None
