"""Asking exo's API (plugins/module_utils/_exo_probe.py): /state over real HTTP, its nodes counted."""
from ansible_collections.macops.cluster.plugins.module_utils import _exo_probe

from exo_fixture import IDS


def test_ask_state_counts_nodes_of_a_real_http_answer():
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"topology": {"nodes": IDS[:3]}}).encode()
            self.send_response(200 if self.path == "/state" else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        assert _exo_probe.ask_state("http://127.0.0.1:%d/state" % port) == (True, 3)
        assert _exo_probe.ask_state("http://127.0.0.1:%d/other" % port) == (False, 0)
    finally:
        server.shutdown()
        server.server_close()
    assert _exo_probe.ask_state("http://127.0.0.1:%d/state" % port, timeout=1) == (False, 0)
