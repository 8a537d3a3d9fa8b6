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
- ``GET /macops/v1/status``: the supervisor's status (every rank's generation and heartbeat).
With an API key (its file, readable by the supervisor's user only), every path but /health needs
``Authorization: Bearer <key>``. Python 3.9, stdlib only.

The control port (serve_control_port, opened to the cluster's nodes only): ``POST /macops/v1/heartbeat``.
"""
import hmac
import http.client
import http.server
import json
import os
import threading
import time

COMPLETION_PATHS = ("/v1/completions", "/v1/chat/completions", "/chat/completions")
DEFAULT_MODEL = "default_model"  # what mlx_lm.server takes for the model it was started with
HOP_HEADERS = ("connection", "keep-alive", "transfer-encoding", "content-length", "server", "date")


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

    def log_message(self, fmt, *args):  # the requests' prompts stay out of the logs; only errors are logged
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

    def authorized(self):
        key = self.server.api_key()
        if not key:
            return True
        given = self.headers.get("Authorization", "")
        if given.startswith("Bearer ") and hmac.compare_digest(given[7:].strip().encode(), key.encode()):
            return True
        self.reply(401, error_body("A valid API key is needed (Authorization: Bearer <key>).",
                                   "invalid_request_error", "invalid_api_key"))
        return False

    def read_json(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            document = json.loads(self.rfile.read(length).decode() or "{}")
        except ValueError:
            document = None
        return document if isinstance(document, dict) else None


class EndpointHandler(Handler):
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        status = self.supervisor.status()
        if path == "/health":
            ready = status["state"] == "ready"
            self.reply(200 if ready else 503, {"status": "ok" if ready else "unavailable", "state": status["state"],
                                               "detail": status["detail"]})
        elif not self.authorized():
            return
        elif path == "/v1/models":
            self.reply(200, {"object": "list", "data": [{"id": self.server.served[0], "object": "model",
                                                         "created": int(status["started_at"] or time.time()),
                                                         "owned_by": "macops.cluster"}]})
        elif path == "/macops/v1/status":
            self.reply(200, status)
        else:
            self.reply(404, error_body("No such path: %s" % path, "invalid_request_error", "not_found"))

    def do_POST(self):
        path = self.path.split("?", 1)[0]
        if not self.authorized():
            return
        if path not in self.server.upstream_paths:
            why = "No such path: %s" % path if path not in COMPLETION_PATHS else \
                "%s is not served: exo answers chat completions only (POST /v1/chat/completions)." % path
            self.reply(404, error_body(why, "invalid_request_error", "not_found"))
            return
        body = self.read_json()
        if body is None:
            self.reply(400, error_body("The body is not a JSON object.", "invalid_request_error", "invalid_json"))
            return
        forward, refused = pinned_model(body, self.server.served, self.server.upstream_model)
        if refused:
            self.reply(404, error_body(refused, "invalid_request_error", "model_not_found"))
            return
        state = self.supervisor.status()["state"]
        if state != "ready":
            self.reply(503, dict(error_body("The model is not ready (%s); try again shortly." % state, "server_error",
                                            "model_not_ready"), state=state), {"Retry-After": "5"})
            return
        self.relay(self.server.upstream_paths[path], forward)

    def relay(self, path, body):
        upstream = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port)
        try:
            upstream.request("POST", path, body=json.dumps(body).encode(),
                             headers={"Content-Type": "application/json"})
            response = upstream.getresponse()
            streaming = "text/event-stream" in (response.getheader("Content-Type") or "")
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in HOP_HEADERS:
                    self.send_header(name, value)
            if streaming:
                self.end_headers()
                for line in iter(response.readline, b""):
                    self.wfile.write(rename_stream_line(line, self.server.served[0]))
                    self.wfile.flush()
                return
            raw = response.read()
            try:
                raw = json.dumps(renamed(json.loads(raw.decode()), self.server.served[0])).encode()
            except ValueError:
                pass
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except (OSError, http.client.HTTPException) as exc:
            self.reply(502, error_body("The model's server did not answer: %s" % exc, "server_error", "upstream_failed"))
        finally:
            upstream.close()


class ControlHandler(Handler):
    def do_POST(self):
        message = self.read_json() if self.path == "/macops/v1/heartbeat" else None
        if message is None or "rank" not in message:
            self.reply(400, {"error": "POST /macops/v1/heartbeat with a JSON object that has rank"})
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
    server.serve_forever(poll_interval=0.5)


def start(supervisor, config):
    """The endpoint and (mlx-lm's followers send heartbeats) the control port, each in a daemon thread."""
    listeners = [((config["endpoint"]["host"], config["endpoint"]["port"]), EndpointHandler)]
    if config.get("leader"):
        control = config["leader"]["control"].rpartition(":")
        listeners.append(((control[0], int(control[2])), ControlHandler))
    for address, handler in listeners:
        threading.Thread(target=_serve, args=(address, handler, supervisor, config), daemon=True).start()
