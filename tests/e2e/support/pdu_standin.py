"""A stand-in smart PDU for the lab: an HTTP server on 127.0.0.1 that records power-cycle requests.

`POST /outlets/<host>/cycle` (with `Authorization: Bearer <token>` when --token is given) answers
204 and appends {"t", "host", "method", "path", "body"} to --record (one JSON line each). `GET
/requests` returns what was recorded. With --power-on, a request also powers the simulated Mac
on (`lab/maclab fault up <host>`), as a real PDU's outlet cycle would boot a Mac that hung.
Stdlib only; started and stopped by the tests and the benchmark, never by the collection."""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MACLAB = os.path.join(REPO, "lab", "maclab")


def make_handler(record, token, power_on):
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _reply(self, status, payload=None):
            body = json.dumps(payload).encode() if payload is not None else b""
            self.send_response(status)
            if body:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path != "/requests":
                return self._reply(404, {"error": "not found"})
            with lock, open(record) as handle:
                return self._reply(200, [json.loads(line) for line in handle if line.strip()])

        def do_POST(self):
            parts = self.path.strip("/").split("/")
            if len(parts) != 3 or parts[0] != "outlets" or parts[2] != "cycle":
                return self._reply(404, {"error": "not found"})
            if token and self.headers.get("Authorization") != "Bearer " + token:
                return self._reply(401, {"error": "bad token"})
            length = int(self.headers.get("Content-Length") or 0)
            entry = {"t": time.time(), "host": parts[1], "method": "POST", "path": self.path,
                     "body": self.rfile.read(length).decode("utf-8", "replace")}
            with lock, open(record, "a") as handle:
                handle.write(json.dumps(entry) + "\n")
            if power_on:
                subprocess.run([sys.executable, MACLAB, "fault", "up", parts[1]], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=60)
            return self._reply(204)

    return Handler


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on stdout)")
    parser.add_argument("--record", required=True, help="JSON-lines file of the requests received")
    parser.add_argument("--token", default="", help="bearer token the requests must carry")
    parser.add_argument("--power-on", action="store_true", help="power the simulated Mac on for real")
    args = parser.parse_args(argv)
    open(args.record, "a").close()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.record, args.token, args.power_on))
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
