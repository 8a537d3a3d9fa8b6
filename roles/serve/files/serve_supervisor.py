"""macops.cluster's serving supervisor: one per node, run by the node's LaunchDaemon (roles/serve).

Why not `mlx.launch` under launchd: it exits 0 whatever happened to its ranks (launchd's restart on
failure never fires), it has no SIGTERM handler (stopping it can orphan remote ranks that keep their GPU
memory), and it needs SSH from the node to every node, itself included. Here each node runs its own rank
with MLX_RANK and the backend's files, as mlx.launch would set them, and the supervisors agree over
HTTP on the management network:

- rank 0's supervisor is the **leader**: it runs rank 0, counts generations (one start of every rank
  together), proves readiness with a real one-token completion (mlx-lm's /health answers 200 while the
  model loads and during some hangs), probes again every ``probe_interval`` seconds, and is the endpoint:
  a front that checks the API key, answers /v1/models with the served model only, refuses a request that
  names another model (mlx-lm would drop the served weights and try to download it) and passes the rest
  to rank 0's server on loopback;
- every other supervisor is a **follower**: it waits for its Thunderbolt addresses, then sends a heartbeat
  every second to the leader's control port and runs its rank for the generation the leader names.

A rank that exits, a heartbeat that stops, an unhealthy server or a generation in which nothing moves for
``stall_timeout`` seconds (a hung rank, SIGSTOP included) ends the generation: every rank stops (SIGCONT, SIGTERM,
then SIGKILL) and the next generation starts them all again, after a pause that grows with each failure in a row.
"Nothing moves" is judged by load, not by one probe's latency: rank 0's launcher marks every generation step (and
every idle poll, which waits on every rank), the endpoint marks every byte of every answer, and a one-token probe
goes out only while no request is in flight, so a server that streams, however slowly and however long its queue,
is never taken for a hung one. Once nothing has moved for half of ``stall_timeout`` the endpoint answers 503 at once
instead of taking requests that would hang; when the generation ends, every stream in flight ends with an error.

A generation fails "in a row" when it never became ready, or was ready for less than STABLE_SECONDS. After
``restart_limit`` such failures the leader stops every rank and says so in its status (state ``failed``) instead
of looping: on JACCL every failed start leaks an RDMA protection domain that only a reboot frees. A reboot, or
serve-model.yml with serve_state=restarted, starts again. Rank 0's own start failures (its load, its port) show
in its log at once and end the generation then, not at ``ready_timeout``.

Each supervisor writes its state to <run_dir>/status.json (doctor.yml and serve-model.yml read it).
Python 3.9, stdlib only but for the metrics (serve_metrics.py, prometheus_client). Usage: serve_supervisor.py CONFIG.json
"""
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import serve_front  # beside this file (the script's directory is first on sys.path); the leader's HTTP side
import serve_logs  # beside this file: the logs newsyslog rotates
import serve_metrics  # beside this file: the series the leader's endpoint exports
from serve_launch import addresses_up, launch_files, start_blockers  # beside this file: what a start needs
STOP_GRACE_SECONDS = 10.0
# A generation ready this long before it fails starts a new row of failures (the cap counts failures in a row).
STABLE_SECONDS = 300.0
# The pause before the next generation after the n-th failure in a row: 2, 4, 8, ... seconds, at most this.
BACKOFF_MAX_SECONDS = 60.0
ERROR_LINE = re.compile(r"^[A-Za-z_.]*(Error|Exception): ")
PEER_LOST = "connection to a peer was lost"
HEALTH_EVERY_SECONDS = 2.0
# status.json is written when something in it changes, else this often (its updated_at says the supervisor lives).
STATUS_EVERY_SECONDS = 5.0


def log(message):
    """A line of this supervisor's log: serve.log in the log directory once main() named it, else stdout."""
    if log.file is not None:
        log.file.write(serve_logs.stamped(message))
    else:
        sys.stdout.write(serve_logs.stamped(message))
        sys.stdout.flush()


log.file = None


def write_json(path, document):
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "w") as handle:
        json.dump(document, handle, indent=2, sort_keys=True)
    os.rename(temporary, path)


class Rank(object):
    """This node's rank process: mlx_lm.server through the collection's launcher (serve_rank.py)."""

    def __init__(self, config):
        self.config = config
        self.proc = None
        self.generation = self.boot = None
        self.exit_code = None
        self.output = serve_logs.LogFile(os.path.join(config["log_dir"], "rank.log"))
        self.errors, self.pump = [], None
        self.exited_at = None

    def start(self, generation, boot=None):
        """Start this node's rank for `generation` of the leader's run `boot`."""
        run_dir = self.config["run_dir"]
        files, env = launch_files(self.config, generation)
        environment = dict(os.environ, **self.config["launch_env"])
        environment.update(env)
        environment["MACOPS_SERVE_SPLIT"] = json.dumps(self.config["split"]) if self.config["split"] else ""
        environment["MACOPS_SERVE_PROGRESS"] = self.progress_path() or ""
        for variable, content in files.items():
            path = os.path.join(run_dir, variable.lower() + ".json")
            with open(path, "w") as handle:
                handle.write(content + "\n")
            environment[variable] = path
        if self.progress_path() and os.path.exists(self.progress_path()):
            os.remove(self.progress_path())  # the last generation's steps prove nothing of this one
        self.output.write(serve_logs.stamped("generation %d of run %s: rank %d starts" % (
            generation, boot, self.config["rank"])))
        self.proc = subprocess.Popen([self.config["python"], self.config["launcher"]] + self.config["server_args"],
                                     env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, cwd=run_dir)
        errors = self.errors = []  # this generation's Python error lines, as they come
        self.pump = threading.Thread(target=serve_logs.pump, args=(self.proc.stdout, self.output, lambda line: (
            errors.append(line.strip()[:300]) if ERROR_LINE.match(line) else None)), daemon=True)
        self.pump.start()
        self.generation, self.boot, self.exit_code, self.exited_at = generation, boot, None, None
        threading.Thread(target=self._note_exit, args=(self.proc,), daemon=True).start()
        log("generation %d: rank %d started, pid %d" % (generation, self.config["rank"], self.proc.pid))

    def progress_path(self):
        """The file rank 0's launcher touches at every generation step (serve_rank.py); none on other ranks."""
        return os.path.join(self.config["run_dir"], "progress") if self.config["rank"] == 0 else None

    def last_progress(self):
        """When this generation's rank 0 last took a generation step or an idle poll (0: not yet, no rank 0, or none
        started here: exo's runners leave no mark, and an mlx-lm rank 0 that ran before leaves its last one)."""
        path = self.progress_path()
        try:
            return os.stat(path).st_mtime if path and self.proc is not None and self.exit_code is None else 0.0
        except OSError:
            return 0.0

    def _note_exit(self, proc):
        """When the rank ended, to the moment: of the ranks of a generation, the first to end is the one that failed
        (its ring peers abort or exit 0 after it)."""
        proc.wait()
        if proc is self.proc:
            self.exited_at = time.time()

    def alive(self):
        if self.proc is None:
            return False
        code = self.proc.poll()
        if code is not None and self.exit_code is None:
            self.exit_code = code
            log("generation %s: rank %d exited %d" % (self.generation, self.config["rank"], code))
        return code is None

    def stop(self):
        """SIGCONT first: a stopped (hung) rank must run to act on SIGTERM; SIGKILL after the grace."""
        if not self.alive():
            return
        for signum in (signal.SIGCONT, signal.SIGTERM):
            self.proc.send_signal(signum)
        try:
            self.proc.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.alive()

    def last_error(self):
        """The last Python error line this generation's rank printed ('RuntimeError: [load_safetensors] ...'), or
        None; once it exited, after the rest of its output was read."""
        if self.pump is not None and self.exit_code is not None:
            self.pump.join(2.0)
        return self.errors[-1] if self.errors else None

    @property
    def pid(self):
        return self.proc.pid if self.alive() else None


def request_json(address, path, document=None, timeout=5.0, method="POST"):
    """(status, parsed body or None) of a request with a JSON body (none: `document` None) to "host:port"; raises
    OSError (and http.client's errors) when unreachable."""
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        body = json.dumps(document).encode() if document is not None else None
        connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw.decode() or "null")
        except ValueError:
            return response.status, None
    finally:
        connection.close()


# The one-token request that proves every rank answers: mlx_lm.server's own completion with the model it started with.
MLX_PROBE = ("/v1/completions", {"model": serve_front.DEFAULT_MODEL, "prompt": "Hello", "max_tokens": 1,
                                 "temperature": 0.0})


def probe_completion(port, timeout, request=MLX_PROBE):
    """(ok, seconds, error): a one-token completion from the server on loopback `port` (request: path and body)."""
    started = time.time()
    try:
        status, body = request_json("127.0.0.1:%d" % port, request[0], request[1], timeout)
    except (OSError, http.client.HTTPException) as exc:
        return False, time.time() - started, "%s: %s" % (type(exc).__name__, exc)
    if status == 200 and isinstance(body, dict) and body.get("choices"):
        return True, time.time() - started, None
    return False, time.time() - started, "HTTP %s: %s" % (status, json.dumps(body)[:300])


class Probe(object):
    """One probe in a thread of its own, so the watch loop sees rank exits while a probe waits."""

    def __init__(self, port, timeout, request=MLX_PROBE):
        self.started, self.result, self.timeout = time.time(), None, timeout
        self.thread = threading.Thread(target=self._run, args=(port, timeout, request), daemon=True)
        self.thread.start()

    def _run(self, port, timeout, request):
        self.result = probe_completion(port, timeout + 5, request)

    def overdue(self):
        return self.result is None and time.time() - self.started > self.timeout


class Supervisor(object):
    def __init__(self, config):
        self.config = config
        self.rank = Rank(config)
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.state, self.detail = "waiting_network", "waiting for the Thunderbolt addresses %s" % ", ".join(
            config["wait_for_addresses"])
        self.generation = 0
        self.failures, self.restarts, self.last_failure = 0, 0, None
        self.started_at = self.ready_since = self.time_to_ready = None
        self.followers = {}
        self.written, self.written_at = None, 0.0
        # This supervisor's run: a follower restarts a rank of an earlier run's generation of the same number.
        self.boot = os.urandom(4).hex()
        self.traffic = serve_front.Traffic()
        self.metrics = serve_metrics.Metrics(config.get("model"), config.get("backend"), self.traffic)
        self.quiet_since = None  # a ready generation in which nothing moved since then, for half of stall_timeout
        self.last_answer = 0.0  # the last probe answered

    # ---- status ----------------------------------------------------------------------------------
    def status(self):
        with self.lock:
            return {
                "state": self.state, "detail": self.detail, "host": self.config["hosts"][self.config["rank"]],
                "rank": self.config["rank"], "ranks": self.config["ranks"], "model": self.config["model"],
                "backend": self.config["backend"], "generation": self.generation, "rank_pid": self.rank.pid,
                "consecutive_failures": self.failures, "restarts": self.restarts,
                "restart_limit": self.config["restart_limit"], "last_failure": self.last_failure,
                "started_at": self.started_at, "ready_since": self.ready_since, "time_to_ready": self.time_to_ready,
                "followers": dict((str(rank), info) for rank, info in sorted(self.followers.items())),
                "endpoint": self.config.get("endpoint"), "supervisor_pid": os.getpid(), "updated_at": time.time(),
                "boot": self.boot, "in_flight": self.traffic.in_flight, "quiet_since": self.quiet_since,
            }

    def unavailable(self):
        """None while the endpoint takes requests; else why not ({state, detail, retry_after}): not ready (starting,
        restarting, failed), or ready but nothing moved for half of stall_timeout (a hang not yet proven)."""
        with self.lock:
            if self.state == "ready" and self.quiet_since is None:
                return None
            if self.state == "ready":
                return {"state": "stalled", "retry_after": 10, "detail": "nothing has moved for %d s" % (
                    time.time() - self.quiet_since)}
            return {"state": self.state, "detail": self.state, "retry_after": 30 if self.state == "failed" else 5}

    def publish(self, state=None, detail=None):
        """Write status.json; with `state`, enter it (logged when it is new); with `detail` alone, say it."""
        with self.lock:
            if state is not None and state != self.state:
                log("%s%s" % (state, ": " + detail if detail else ""))
            if state is not None:
                self.state = state
            if detail is not None or state is not None:
                self.detail = detail
            self.metrics.state(self.state, self.generation)
        status = self.status()
        # What changed, leaving out the clocks that move every heartbeat.
        meaningful = dict(status, updated_at=None, in_flight=None, followers=dict(
            (rank, dict(info, seen=None)) for rank, info in status["followers"].items()))
        if meaningful != self.written or time.time() - self.written_at >= STATUS_EVERY_SECONDS:
            write_json(os.path.join(self.config["run_dir"], "status.json"), status)
            self.written, self.written_at = meaningful, time.time()

    def wait_for_addresses(self):
        while not self.stopping.is_set() and not addresses_up(self.config["wait_for_addresses"]):
            self.stopping.wait(1.0)

    def shutdown(self, *signal_args):  # noqa: ARG002 - a signal handler's (signum, frame)
        self.stopping.set()


class Leader(Supervisor):
    """Rank 0: generations, readiness and the control state (the endpoint and the control port: serve_front.py)."""

    def failure(self, kind, message, rank=0):
        return {"kind": kind, "message": message, "rank": rank, "host": self.config["hosts"][rank],
                "generation": self.generation, "at": time.time()}

    def run(self):
        self.publish()
        self.wait_for_addresses()
        ended = 0.0
        while not self.stopping.is_set():
            if not self.prepare(ended):
                break
            with self.lock:
                self.generation += 1
                self.started_at, self.ready_since, self.quiet_since, self.last_answer = time.time(), None, None, 0.0
            self.begin()
            self.publish("starting", "generation %d: loading %s on %d rank(s)" % (
                self.generation, self.config["model"], self.config["ranks"]))
            failure = self.watch()
            if failure is not None:  # no client waits for a stream that will not finish: it gets the error now
                self.publish("restarting", failure["message"])
                self.traffic.abort(failure["message"])
            self.end()
            ended = time.time()
            if failure is None:
                break
            with self.lock:
                self.failures += 1
                self.restarts += 1
                self.last_failure = failure
            self.metrics.generation_failed(failure["kind"])
            log("generation %d failed: %s" % (self.generation, failure["message"]))
            if self.failures >= self.config["restart_limit"]:
                self.publish("failed", "%d failed start(s) in a row, the last: %s. Every rank is stopped; reboot "
                             "the nodes or run serve-model.yml with serve_state=restarted." % (
                                 self.failures, failure["message"]))
                self.stopping.wait()
                break
            pause = min(BACKOFF_MAX_SECONDS, 2.0 ** self.failures)
            self.publish("restarting", "%s; the next start in %d s" % (failure["message"], pause))
            self.stopping.wait(pause)
        self.publish("stopped", "the supervisor was stopped")

    def prepare(self, ended):
        """Wait until a generation can start: every follower's supervisor heard from since the last one `ended`, and
        no rank, this one included, with a reason it cannot start (start_blockers)."""
        return self.wait_for_followers(ended)

    def begin(self):
        self.rank.start(self.generation, self.boot)

    def end(self):
        self.rank.stop()

    def watch(self):
        """Until this generation fails (its failure) or the supervisor stops (None)."""
        config, started = self.config, time.time()
        probe, last_probe, last_health, last_log = None, 0.0, time.time(), 0.0
        while not self.stopping.wait(0.5):
            now = time.time()
            if not self.rank.alive():
                return self.failure("exited", "rank 0 (%s) exited with status %s" % (
                    config["hosts"][0], self.rank.exit_code))
            lost = self.follower_failure(now, started)
            if lost:
                return lost
            if probe is not None and probe.result is not None:
                failed = self.judge(probe, now)
                probe, last_probe = None, now
                if failed:
                    return self.settle(failed)
            if self.state == "starting":
                if now - started > config["ready_timeout"]:
                    return self.failure("not_ready", "not ready within serve_ready_timeout (%d s)" %
                                        config["ready_timeout"])
                if now - last_log >= 1.0:  # a load or a bind that failed leaves rank 0 alive without a server
                    last_log, error = now, self.rank.last_error()
                    # A peer's loss is its failure, not rank 0's: its own report names it (settle).
                    if error and PEER_LOST not in error:
                        return self.settle(self.failure("start_failed", "rank 0 (%s) failed to start: %s" % (
                            config["hosts"][0], error)))
                if probe is not None and probe.overdue():
                    return self.failure("not_ready", "no one-token completion within %d s" % probe.timeout)
                if probe is None and now - last_probe >= 1.0:
                    probe = Probe(config["internal_port"], max(1, config["ready_timeout"] - (now - started)))
            else:
                if now - last_health >= HEALTH_EVERY_SECONDS:
                    last_health = now
                    if not self.server_healthy():
                        # Rank 0 learns of a dead peer through its ring; the peer's own report says which.
                        return self.settle(self.failure(
                            "unhealthy", "rank 0's server lost its generation thread (/health 503: a peer's "
                            "connection was lost)"))
                self.keep_row(now)
                stalled = self.stalled(now, probe)
                if stalled:
                    return stalled
                if probe is None and not self.traffic.busy() and now - last_probe >= config["probe_interval"]:
                    probe = Probe(config["internal_port"], config["stall_timeout"])
            self.publish()
        return None

    def keep_row(self, now):
        """A generation ready for STABLE_SECONDS ends the row of failures: the cap counts failures in a row, and a
        generation that fails soon after it became ready (under load, say) is one more in the row."""
        if self.failures and now - (self.ready_since or now) >= STABLE_SECONDS:
            with self.lock:
                self.failures = 0

    def stalled(self, now, probe):
        """The failure of a ready generation in which nothing moved for stall_timeout (None while something does);
        past half of it the endpoint already refuses new requests (unavailable). What moves: a generation step or
        idle poll of rank 0 (its launcher's mark; an idle poll waits on every rank), a byte of any answer, a probe's
        answer. Where nothing marks idle polls (exo's runners), an idle model is judged by its probe alone."""
        marked = self.rank.last_progress()
        if not (marked or probe or self.traffic.busy()):
            with self.lock:
                self.quiet_since = None
            return None
        since = max(marked, self.traffic.last_progress, self.last_answer, self.ready_since or 0.0,
                    0.0 if marked or probe is None else probe.started)
        quiet, limit = now - since, self.config["stall_timeout"]
        with self.lock:
            self.quiet_since = since if quiet >= limit / 2.0 else None
        if quiet < limit:
            return None
        return self.failure("hung", "nothing moved for %d s with %d request(s) in flight: no generation step on "
                            "rank 0, no byte of any answer, no probe answered (a rank is hung)" % (
                                quiet, self.traffic.in_flight))

    def judge(self, probe, now, through=""):
        """A finished probe: a starting generation is ready at its first answer (its failures in a row reset); a
        ready one that stops answering has failed (its failure, else None)."""
        ok, seconds, error = probe.result
        if ok:
            self.last_answer = now
            self.metrics.probe_answered(seconds)
        if ok and self.state == "starting":
            with self.lock:
                self.ready_since, self.quiet_since = now, None
                self.time_to_ready = round(now - self.started_at, 2)
            self.publish("ready", "generation %d answered a completion%s %.1f s after its start" % (
                self.generation, through, self.time_to_ready))
        elif not ok and self.state == "ready":
            return self.failure("unanswered", "a one-token completion%s failed: %s" % (through, error))
        return None

    def missing_followers(self, now, since=0.0):
        """The hosts whose supervisor was not heard from lately, or not since `since` (the end of the last
        generation: a supervisor that stopped then, its job booted out, must not count as there)."""
        missing = []
        for rank in range(1, self.config["ranks"]):
            seen = self.followers.get(rank, {}).get("seen", 0)
            if now - seen > self.config["heartbeat_timeout"] or seen <= since:
                missing.append(self.config["hosts"][rank])
        return missing

    def blocked_ranks(self):
        """["host: why", ...] of the ranks that say they cannot start now, this one's own checked here."""
        blocked = ["%s: %s" % (self.config["hosts"][0], why) for why in start_blockers(self.config)]
        with self.lock:
            for rank, info in sorted(self.followers.items()):
                blocked.extend("%s: %s" % (info.get("host"), why) for why in info.get("blockers") or [])
        return blocked

    def wait_for_followers(self, since=0.0):
        """Every rank's supervisor heard from lately and since `since` (a node still booting, or whose job was
        stopped, is waited for, not counted as a failed start), and every rank able to start (its addresses up,
        its RDMA devices active): False when the supervisor stops meanwhile."""
        while not self.stopping.is_set():
            missing = self.missing_followers(time.time(), since)
            blocked = [] if missing else self.blocked_ranks()
            if not missing and not blocked:
                return True
            self.publish("waiting_ranks", "waiting for the supervisors of %s" % ", ".join(missing) if missing else
                         "waiting until every rank can start: %s" % "; ".join(blocked))
            self.stopping.wait(1.0)
        return False

    def follower_failure(self, now, started):
        timeout = self.config["heartbeat_timeout"]
        if self.exited_followers():
            return self.settle(None)
        for rank in range(1, self.config["ranks"]):
            info = self.followers.get(rank)
            if now - (info["seen"] if info else started) > timeout:
                return self.failure("lost", "no heartbeat from rank %d (%s) for %d s" % (
                    rank, self.config["hosts"][rank], timeout), rank)
        return None

    def settle(self, seen_here):
        """The failure to report once every rank had a moment to say how it ended: a rank that dies takes its ring
        peers down with it (they abort on "connection to a peer was lost", or exit 0 when their generation thread
        ends: a rank whose load fails exits 0 too), so the rank named is the one with an error of its own, else the
        one a signal ended, else the first to end; `seen_here` (rank 0's own view) when no follower ended."""
        self.stopping.wait(1.5)

        def blame(item):
            info = item[1]
            error, code = info.get("error") or "", info.get("exit_code")
            own_error = bool(error) and PEER_LOST not in error
            killed = isinstance(code, int) and code < 0 and code != -signal.SIGABRT
            return (not own_error, not killed, info.get("exited_at") or float("inf"))

        exited = sorted(self.exited_followers(own_errors=True), key=blame)
        if not exited:
            return seen_here
        rank, info = exited[0]
        how = "exited with status %s" % info.get("exit_code") if info.get("rank_state") == "exited" else "failed"
        return self.failure("exited", "rank %d (%s) %s%s" % (
            rank, info["host"], how, ": %s" % info["error"] if info.get("error") else ""), rank)

    def exited_followers(self, own_errors=False):
        """The followers whose rank of this generation exited; with `own_errors`, also those whose running rank
        printed an error of its own (a load that failed in its generation thread leaves the process alive)."""
        with self.lock:
            return [(rank, dict(info)) for rank, info in sorted(self.followers.items())
                    if (info["generation"], info["boot"]) == (self.generation, self.boot) and
                    (info["rank_state"] == "exited" or own_errors and info.get("error") and
                     PEER_LOST not in info["error"])]

    def server_healthy(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.config["internal_port"], timeout=5)
        try:
            connection.request("GET", "/health")
            return connection.getresponse().status == 200
        except (OSError, http.client.HTTPException):
            return False
        finally:
            connection.close()

    def heartbeat(self, message):
        """A follower's heartbeat: remember it, answer with the generation to run (or none)."""
        rank = int(message["rank"])
        with self.lock:
            self.followers[rank] = {"host": message.get("host"), "generation": message.get("generation"),
                                    "boot": message.get("boot"), "rank_state": message.get("rank_state"),
                                    "exit_code": message.get("exit_code"), "exited_at": message.get("exited_at"),
                                    "error": message.get("error"), "blockers": message.get("blockers") or [],
                                    "seen": time.time()}
            run = self.state in ("starting", "ready")
            return {"generation": self.generation if run else None, "boot": self.boot, "state": self.state}


class Follower(Supervisor):
    def run(self):
        self.publish()
        self.wait_for_addresses()
        self.publish("waiting_leader", "waiting for rank 0's supervisor at %s" % self.config["leader"]["control"])
        leader_seen = time.time()
        while not self.stopping.wait(1.0):
            alive = self.rank.alive()
            rank_state = "running" if alive else ("exited" if self.rank.generation else "none")
            try:
                status, answer = request_json(self.config["leader"]["control"], "/macops/v1/heartbeat", {
                    "rank": self.config["rank"], "host": self.config["hosts"][self.config["rank"]],
                    "generation": self.rank.generation, "boot": self.rank.boot, "rank_state": rank_state,
                    "exit_code": self.rank.exit_code, "exited_at": self.rank.exited_at,
                    "error": self.rank.last_error() if rank_state != "none" else None,
                    # Checked only while no rank runs: what would keep the next start from working.
                    "blockers": [] if alive else start_blockers(self.config)}, timeout=5)
            except (OSError, http.client.HTTPException) as exc:
                status, answer = None, {"error": str(exc)}
            if status != 200 or not isinstance(answer, dict):
                if time.time() - leader_seen > self.config["heartbeat_timeout"] and self.rank.alive():
                    log("rank 0's supervisor is gone (%s): stopping this rank" % answer)
                    self.rank.stop()
                    self.publish("waiting_leader", "rank 0's supervisor does not answer: %s" % answer)
                continue
            leader_seen = time.time()
            wanted = answer.get("generation")
            with self.lock:
                self.generation = wanted or self.generation
            if wanted is None:
                if self.rank.alive():
                    self.rank.stop()
                self.publish(answer.get("state") or "waiting_leader", "rank 0 says %s" % answer.get("state"))
            elif (wanted, answer.get("boot")) != (self.rank.generation, self.rank.boot):
                # A new generation, or the same number from a leader that restarted: this rank is not part of it.
                self.rank.stop()
                self.rank.start(wanted, answer.get("boot"))
                self.publish("running", "generation %d" % wanted)
            else:
                self.publish()
        self.rank.stop()
        self.publish("stopped", "the supervisor was stopped")


def main(argv):
    with open(argv[1]) as handle:
        config = json.load(handle)
    # The same file as launchd's StandardOutPath, opened again when newsyslog rotates it.
    log.file = serve_logs.LogFile(os.path.join(config["log_dir"], "serve.log"), standard_streams=True)
    if config.get("runtime") == "exo":
        import serve_exo  # beside this file: rank 0's node places the instance through exo's API
        supervisor = serve_exo.ExoLeader(config)
    else:
        supervisor = (Leader if config["rank"] == 0 else Follower)(config)
    signal.signal(signal.SIGTERM, supervisor.shutdown)
    signal.signal(signal.SIGINT, supervisor.shutdown)
    if config["rank"] == 0:  # only the leader serves HTTP
        serve_front.start(supervisor, config)
    supervisor.run()


if __name__ == "__main__":
    # serve_exo imports this file as serve_supervisor: the same module, not a second copy of it.
    sys.modules.setdefault("serve_supervisor", sys.modules[__name__])
    main(sys.argv)
