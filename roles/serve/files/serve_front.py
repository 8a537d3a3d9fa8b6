"""The leader's HTTP side (serve_supervisor.py): the endpoint clients use, and the control port followers use.

The endpoint (serve_host:serve_port, opened by the firewall to serve_allowed_networks only):
- ``GET /health``: 200 only while the served model answers completions (the leader's last probe), else 503,
  with the supervisor's state; no key needed, for load balancers;
- ``GET /v1/models``: the served model, and only it;
- ``POST /v1/completions``, ``/v1/chat/completions``, ``/chat/completions``: passed to rank 0's server on
  loopback once ``model`` is checked: absent, the served name, its id or ``default_model`` pass (sent on as
  ``default_model``, answered under the served name); any other name is refused with 404, because
  mlx_lm.server would drop the served weights to load it. Runtime exo: chat completions only (exo has no
  /v1/completions), passed to exo's /v1/chat/completions on loopback with ``model`` pinned to the instance's
  model id (exo answers 404 for any other);
- ``GET /macops/v1/status``: the supervisor's status (every rank's generation and heartbeat);
- ``GET /metrics``: the serving metrics in Prometheus's text format (serve_metrics.py); with an API key it takes the key
  or the scrape token (its own file), so Prometheus needs no key that can ask for completions.

What a client meets when something fails is an error in the OpenAI API's shape, never a short answer: a stream
that ends before ``data: [DONE]`` (a rank died, the model's server closed it, no byte came for
``request_idle_timeout`` s) gets an error event and then ``[DONE]``, which OpenAI's SDKs raise as an error; mlx-lm's
own errors (``{"error": "<text>"}``) are given the OpenAI shape; while the ranks restart, or while nothing has moved
for half of ``stall_timeout`` (a hang not yet proven), a request is refused at once with 503 and ``Retry-After``
instead of being accepted to hang; a body over ``max_request_bytes`` is refused with 413. Every request is one line
of the request log (time, path, status, tokens, seconds; never the prompt, the answer or the key).
With an API key (its file, readable by the supervisor's user only), every path but /health needs
``Authorization: Bearer <key>``. Python 3.9; stdlib only but for the metrics (serve_metrics.py, prometheus_client).

The control port (serve_control_port, opened to the cluster's nodes only): ``POST /macops/v1/heartbeat``.
"""
import hmac
import http.client
import http.server
import json
import os
import socket
import threading
import time

import serve_logs  # beside this file: the logs newsyslog rotates
import serve_metrics  # beside this file: what GET /metrics answers

COMPLETION_PATHS = ("/v1/completions", "/v1/chat/completions", "/chat/completions")
DEFAULT_MODEL = "default_model"  # what mlx_lm.server takes for the model it was started with
DONE = b"data: [DONE]"
# A heartbeat is a few hundred bytes.
CONTROL_MAX_BYTES = 65536
# Seconds a client has to send its request, and a slow reader to take each piece of the answer.
CLIENT_TIMEOUT_SECONDS = 120
# The OpenAI error type of each status the endpoint answers with.
ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "invalid_request_error",
               411: "invalid_request_error", 413: "invalid_request_error", 429: "rate_limit_error"}


class ApiKey(object):
    """The key clients must send, from its file, read again whenever the file changes (serve-model.yml writes a
    new key without restarting the ranks); none without a file. A file that cannot be read refuses every
    request rather than opening the endpoint."""

    def __init__(self, path):
        self.path, self.seen, self.key = path, None, None

    def __call__(self):
        if not self.path:
            return None
        try:
            stat = os.stat(self.path)
            seen = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
            if seen != self.seen:
                with open(self.path) as handle:
                    self.key = handle.read().strip() or None
                self.seen = seen
        except OSError:
            self.seen, self.key = None, os.urandom(32).hex()  # no file, no way in
        return self.key


def error_body(message, kind, code):
    """The OpenAI API's error shape."""
    return {"error": {"message": message, "type": kind, "code": code}}


def upstream_error(status, raw):
    """(status, OpenAI-shaped body) for an error answer of the model's server. mlx-lm answers
    ``{"error": "<text>"}``, with 404 for a request its generator refused (a bad parameter, a prompt too long):
    that is the client's mistake, so 400 here; an answer already in OpenAI's shape (exo's) keeps its body."""
    try:
        document = json.loads(raw.decode("utf-8", "replace") or "null")
    except ValueError:
        document = None
    error = document.get("error") if isinstance(document, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return status, document
    message = error if isinstance(error, str) and error else (raw.decode("utf-8", "replace").strip()[:500] or
                                                              "HTTP %d without a body" % status)
    if status == 404:
        status = 400
    if status >= 500:
        return status, error_body("The model's server failed: %s" % message, "server_error", "upstream_error")
    return status, error_body(message, ERROR_TYPES.get(status, "invalid_request_error"), "invalid_request")


def stream_error_event(message, code):
    """The event that ends a stream the model's server did not finish (then ``data: [DONE]``): OpenAI's SDKs raise
    an error for a ``data:`` event with an ``error`` object instead of taking the stream as a complete answer."""
    return b"data: " + json.dumps(error_body(message, "server_error", code)).encode() + b"\n\n" + DONE + b"\n\n"


class Traffic(object):
    """The requests in flight through the endpoint and when any of their answers last moved (a byte of a stream, an
    answer): the leader tells a busy server from a hung one by it, and sends no probe while requests are in flight."""

    def __init__(self):
        self.lock = threading.Lock()
        self.in_flight, self.last_progress = 0, 0.0
        self.upstreams = {}  # each request's connection to the model's server: why it was cut, or None
        self.tokenless = set()  # the requests that have no token yet (queued behind others, or in their prefill)

    @property
    def waiting(self):
        return len(self.tokenless)

    def begin(self, upstream):
        with self.lock:
            self.in_flight += 1
            self.upstreams[upstream] = None
            self.tokenless.add(upstream)
            self.last_progress = max(self.last_progress, time.time())  # a new request has not had time to move

    def progress(self):
        self.last_progress = time.time()

    def first_token(self, upstream):
        with self.lock:
            self.tokenless.discard(upstream)

    def end(self, upstream):
        """The request is answered; why its connection was cut (None: it was not)."""
        with self.lock:
            self.in_flight -= 1
            self.tokenless.discard(upstream)
            return self.upstreams.pop(upstream, None)

    def cut(self, upstream):
        with self.lock:
            return self.upstreams.get(upstream)

    def abort(self, reason):
        """The generation ended: cut every request's connection, so each client gets its error now (a hung rank 0
        would keep them open until it is killed)."""
        with self.lock:
            for upstream in self.upstreams:
                self.upstreams[upstream] = reason
                if upstream.sock is not None:
                    try:
                        upstream.sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

    def busy(self):
        return self.in_flight > 0


class RequestLog(object):
    """One JSON line per request in requests.log (time, path, status, stream, tokens, seconds, error code): never the
    prompt, the answer or the key. None: no log."""

    def __init__(self, path):
        self.file = serve_logs.LogFile(path) if path else None

    def write(self, entry):
        if self.file is not None:
            self.file.write(json.dumps(entry, sort_keys=True) + "\n")


def pinned_model(body, served, upstream_model=DEFAULT_MODEL):
    """(body to send on, None) or (None, error message) for a request body that names `model`."""
    wanted = body.get("model")
    if wanted in (None, "", DEFAULT_MODEL) or wanted in served:
        return dict(body, model=upstream_model), None
    return None, "The model %r is not served here: this endpoint serves %r only (another model would unload it)." % (
        wanted, served[0])


def renamed(document, name):
    """A response's JSON with the served name as its model (mlx-lm echoes the name it was sent)."""
    if isinstance(document, dict) and "model" in document:
        document["model"] = name
    return document


def rename_stream_line(line, name):
    """One line of a server-sent event stream with the served name as its model."""
    if not line.startswith(b"data: {"):
        return line
    try:
        document = json.loads(line[6:].decode())
    except ValueError:
        return line
    end = b"\r\n" if line.endswith(b"\r\n") else (b"\n" if line.endswith(b"\n") else b"")
    return b"data: " + json.dumps(renamed(document, name)).encode() + end


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "macops-serve"
    protocol_version = "HTTP/1.0"
    timeout = CLIENT_TIMEOUT_SECONDS

    def log_message(self, fmt, *args):  # the requests' prompts stay out of the logs: the request log says what ran
        pass

    @property
    def supervisor(self):
        return self.server.supervisor

    def reply(self, status, document, headers=None):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.outcome = {"status": status, "error": (document.get("error") or {}).get("code")
                        if isinstance(document.get("error"), dict) else None}

    def refuse(self, status, message, code, headers=None, **extra):
        kind = "server_error" if status >= 500 else ERROR_TYPES.get(status, "invalid_request_error")
        self.reply(status, dict(error_body(message, kind, code), **extra), headers)

    def authorized(self, scrape=False):
        """Without an API key every request passes; with one, only the key, or for /metrics (``scrape``) the key or
        the scrape token."""
        key = self.server.api_key()
        if not key:
            return True
        given = self.headers.get("Authorization", "")
        token = self.server.metrics_token() if scrape else None
        if given.startswith("Bearer ") and any(hmac.compare_digest(given[7:].strip().encode(), secret.encode())
                                               for secret in (key, token) if secret):
            return True
        self.refuse(401, "A valid %s is needed (Authorization: Bearer <key>)." % (
            "API key or scrape token" if scrape else "API key"), "invalid_api_key")
        return False

    def read_json(self, limit=None):
        """The body's JSON object; None after refusing a body that is too large, has no length or is no object."""
        try:
            length = int(self.headers.get("Content-Length") or -1)
        except ValueError:
            length = -1
        if length < 0:
            self.refuse(411, "A request body needs a Content-Length.", "length_required")
            return None
        if limit and length > limit:
            self.refuse(413, "The request body is %d bytes; this endpoint takes at most %d (serve_max_request_bytes)."
                        % (length, limit), "request_too_large")
            return None
        try:
            document = json.loads(self.rfile.read(length).decode() or "{}")
        except ValueError:
            document = None
        if not isinstance(document, dict):
            self.refuse(400, "The body is not a JSON object.", "invalid_json")
            return None
        return document


class EndpointHandler(Handler):
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        status = self.supervisor.status()
        if path == "/health":
            ready = status["state"] == "ready"
            self.reply(200 if ready else 503, {"status": "ok" if ready else "unavailable", "state": status["state"],
                                               "detail": status["detail"]})
        elif path == "/metrics":
            if self.authorized(scrape=True):
                self.send_metrics()
        elif not self.authorized():
            return
        elif path == "/v1/models":
            self.reply(200, {"object": "list", "data": [{"id": self.server.served[0], "object": "model",
                                                         "created": int(status["started_at"] or time.time()),
                                                         "owned_by": "macops.cluster"}]})
        elif path == "/macops/v1/status":
            self.reply(200, status)
        else:
            self.refuse(404, "No such path: %s" % path, "not_found")

    def send_metrics(self):
        body = self.supervisor.metrics.render()
        if body is None:
            self.refuse(503, serve_metrics.MISSING, "metrics_unavailable")
            return
        self.send_response(200)
        self.send_header("Content-Type", serve_metrics.CONTENT_TYPE)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.started, self.outcome, self.tokens = time.time(), {"status": None, "error": None}, {}
        path = self.path.split("?", 1)[0]
        body = None
        try:
            body = self.answer(path)
        finally:
            entry = {"at": round(self.started, 3), "path": path, "client": self.client_address[0],
                     "stream": bool(body and body.get("stream")), "seconds": round(time.time() - self.started, 3)}
            entry.update(self.outcome)
            entry.update(self.tokens)
            self.server.request_log.write(entry)
            self.supervisor.metrics.request(entry)

    def answer(self, path):
        """Answer one POST; the request's body once it was read (for the request log), else None."""
        if not self.authorized():
            return None
        if path not in self.server.upstream_paths:
            why = "No such path: %s" % path if path not in COMPLETION_PATHS else \
                "%s is not served: exo answers chat completions only (POST /v1/chat/completions)." % path
            self.refuse(404, why, "not_found")
            return None
        body = self.read_json(self.server.limits["max_request_bytes"])
        if body is None:
            return None
        forward, refused = pinned_model(body, self.server.served, self.server.upstream_model)
        if refused:
            self.refuse(404, refused, "model_not_found")
            return body
        unavailable = self.supervisor.unavailable()
        if unavailable:
            self.refuse(503, "The model is not answering now (%s); try again shortly." % unavailable["detail"],
                        "model_not_ready", {"Retry-After": str(unavailable["retry_after"])},
                        state=unavailable["state"])
            return body
        self.relay(self.server.upstream_paths[path], forward)
        return body

    def relay(self, path, body):
        """Pass the request to the model's server on loopback and its answer back, its progress counted."""
        traffic = self.supervisor.traffic
        asked_usage = bool((body.get("stream_options") or {}).get("include_usage")) if body.get("stream") else True
        if body.get("stream"):  # the usage comes back always (the request log's tokens), to the client only if asked
            body = dict(body, stream_options=dict(body.get("stream_options") or {}, include_usage=True))
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port,
                                              timeout=self.server.limits["request_idle_timeout"])
        traffic.begin(upstream)
        try:
            upstream.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
            response = upstream.getresponse()
            traffic.progress()
            if response.status == 200 and "text/event-stream" in (response.getheader("Content-Type") or ""):
                self.stream_back(upstream, response, asked_usage)
                return
            raw = response.read()
            traffic.progress()
            if response.status != 200:
                self.reply(*upstream_error(response.status, raw))
                return
            try:
                document = renamed(json.loads(raw.decode()), self.server.served[0])
            except ValueError:
                self.refuse(502, "The model's server answered with no JSON.", "upstream_failed")
                return
            self.tokens = usage_of(document)
            # The request's own time to the millisecond (a client's clock may count only whole seconds: Ansible's uri).
            self.reply(200, document, {"X-Macops-Seconds": "%.3f" % (time.time() - self.started)})
        except socket.timeout:
            self.refuse(504, "The model's server sent nothing for %d s (serve_request_idle_timeout)." %
                        self.server.limits["request_idle_timeout"], "upstream_timeout")
        except (OSError, http.client.HTTPException) as exc:
            cut = traffic.cut(upstream)
            self.refuse(502, "The model's server did not answer: %s" % (cut or exc),
                        "generation_failed" if cut else "upstream_failed")
        finally:
            traffic.end(upstream)
            upstream.close()

    def stream_back(self, upstream, response, asked_usage):
        """Relay a stream event by event; one the model's server does not finish ends with an error event and
        ``[DONE]``. A usage event the client did not ask for is kept for the request log only."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.outcome = {"status": 200, "error": None}
        traffic, name = self.supervisor.traffic, self.server.served[0]
        failure = None
        try:
            for line in iter(response.readline, b""):
                traffic.progress()
                if line.startswith(DONE):
                    self.send_to_client(line + (b"" if line.endswith(b"\n\n") else b"\n"))
                    return
                if line.startswith(b"data: {"):
                    document = event_document(line)
                    if document is not None and "usage" in document and not document.get("choices"):
                        self.tokens.update(usage_of(document))
                        if not asked_usage:
                            continue
                    elif document is not None and "first_token_seconds" not in self.tokens:
                        # From the request's arrival, as its client waits: a queue behind other requests counts.
                        self.tokens["first_token_seconds"] = round(time.time() - self.started, 3)
                        traffic.first_token(upstream)
                    line = rename_stream_line(line, name)
                self.send_to_client(line)
            failure = ("The model's server ended the stream before it was complete (a rank failed; the ranks "
                       "restart).", "stream_incomplete")
        except socket.timeout:
            failure = ("The model's server sent nothing for %d s (serve_request_idle_timeout)." %
                       self.server.limits["request_idle_timeout"], "upstream_timeout")
        except ClientGone:
            self.outcome = {"status": 200, "error": "client_closed"}
            return
        except (OSError, http.client.HTTPException) as exc:
            failure = ("The model's server failed mid-stream: %s" % exc, "stream_incomplete")
        cut = traffic.cut(upstream)
        if cut:
            failure = ("The ranks serving this request failed and restart: %s" % cut, "generation_failed")
        self.outcome = {"status": 200, "error": failure[1]}
        try:
            self.send_to_client(stream_error_event(*failure))
        except ClientGone:
            pass

    def send_to_client(self, data):
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError as exc:
            raise ClientGone(exc)


class ClientGone(Exception):
    """The client closed its connection while its answer streamed."""


def event_document(line):
    try:
        document = json.loads(line[6:].decode())
    except ValueError:
        return None
    return document if isinstance(document, dict) else None


def usage_of(document):
    """The request log's token counts from an answer's usage."""
    usage = document.get("usage") if isinstance(document, dict) else None
    if not isinstance(usage, dict):
        return {}
    return {"prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens")}


class ControlHandler(Handler):
    def do_POST(self):
        if self.path != "/macops/v1/heartbeat":
            self.refuse(404, "No such path: %s" % self.path, "not_found")
            return
        message = self.read_json(CONTROL_MAX_BYTES)
        if message is None:
            return
        if "rank" not in message:
            self.refuse(400, "POST /macops/v1/heartbeat with a JSON object that has rank", "invalid_heartbeat")
            return
        self.reply(200, self.supervisor.heartbeat(message))


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def _serve(address, handler, supervisor, config):
    """Bind (again every 2 s while the address is not up yet), then serve for the supervisor's life."""
    while not supervisor.stopping.is_set():
        try:
            server = Server(address, handler)
            break
        except OSError as exc:
            supervisor.publish(detail="cannot listen on %s:%d yet: %s" % (address[0], address[1], exc))
            supervisor.stopping.wait(2.0)
    else:
        return
    server.supervisor = supervisor
    exo = config.get("exo")
    if exo:  # exo's own OpenAI API, on this node's loopback
        server.upstream_port, server.upstream_model = exo["api_port"], exo["model_id"]
        server.upstream_paths = {"/v1/chat/completions": "/v1/chat/completions",
                                 "/chat/completions": "/v1/chat/completions"}
    else:  # rank 0's mlx_lm.server
        server.upstream_port, server.upstream_model = config["internal_port"], DEFAULT_MODEL
        server.upstream_paths = dict((path, path) for path in COMPLETION_PATHS)
    server.served = [config["model"], config.get("model_id") or config["model"], config["model_path"]]
    server.api_key = ApiKey(config.get("api_key_file"))
    server.metrics_token = ApiKey(config.get("metrics_token_file"))
    server.limits = {"max_request_bytes": config.get("max_request_bytes") or 0,
                     "request_idle_timeout": config.get("request_idle_timeout") or 600}
    server.request_log = RequestLog(os.path.join(config["log_dir"], "requests.log") if config.get("log_dir") else None)
    server.serve_forever(poll_interval=0.5)


def start(supervisor, config):
    """The endpoint and (mlx-lm's followers send heartbeats) the control port, each in a daemon thread."""
    listeners = [((config["endpoint"]["host"], config["endpoint"]["port"]), EndpointHandler)]
    if config.get("leader"):
        control = config["leader"]["control"].rpartition(":")
        listeners.append(((control[0], int(control[2])), ControlHandler))
    for address, handler in listeners:
        threading.Thread(target=_serve, args=(address, handler, supervisor, config), daemon=True).start()
