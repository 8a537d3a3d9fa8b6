"""A stand-in for exo's HTTP API, for the lab (which cannot run exo: no Metal, no macmon).

It answers GET /state in exo 1.0.x's documented shape (camelCase keys, see
shared/research/macos-commands.md section 13) listing the nodes it is told about, and GET
/node_id. The exo role starts it as `exo_program` exactly as it would start exo, so the
LaunchDaemon, its UserName, environment and KeepAlive are exercised for real; only the
cluster membership is given (--nodes) instead of discovered. Python 3.9, stdlib only.

It also writes $EXO_HOME/standin.json with its argv, uid and environment, so tests can check
what the LaunchDaemon passed."""
import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def node_id(name):
    return "12D3KooW" + name


def state_for(nodes):
    ids = [node_id(n) for n in nodes]
    return {
        "instances": {}, "runners": {}, "downloads": {}, "tasks": {},
        "lastSeen": {i: "2026-01-01T00:00:00Z" for i in ids},
        "topology": {"nodes": ids, "connections": []},
        "nodeIdentities": {node_id(n): {"modelId": "Mac15,14", "chipId": "Apple M3 Ultra", "friendlyName": n,
                                        "osVersion": "26.2", "osBuildVersion": "25C56"} for n in nodes},
        "nodeMemory": {}, "nodeNetwork": {}, "nodeThunderbolt": {}, "nodeThunderboltBridge": {},
        "nodeRdmaCtl": {}, "nodeBackends": {}, "thunderboltBridgeCycles": [],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="", help="comma-separated node names /state lists")
    parser.add_argument("--api-port", type=int, default=52415)
    parser.add_argument("--namespace", default="")
    parser.add_argument("--offline", action="store_true")
    args, _ = parser.parse_known_args(argv)
    nodes = [n for n in args.nodes.split(",") if n]
    home = os.environ.get("EXO_HOME")
    if home:
        with open(os.path.join(home, "standin.json"), "w") as handle:
            json.dump({"argv": sys.argv, "uid": os.getuid(), "env": dict(os.environ)}, handle)
    body = json.dumps(state_for(nodes)).encode()
    me = json.dumps(node_id(nodes[0] if nodes else "none")).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.rstrip("/") == "/state":
                payload = body
            elif self.path == "/node_id":
                payload = me
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("", args.api_port), Handler).serve_forever()


if __name__ == "__main__":
    main()
