"""A stand-in for exo, for the lab (which cannot run exo: no Metal, no macmon). Not exo.

`maclab up` packs this file into the `exo` distribution the lab's package index serves
(lab/macsim/exo_dist.py), at the collection's pinned exo version and one other, so the exo role's
pinned pip install, an upgrade and a version split between nodes are real; what runs is this.

What it does as exo 1.0.x does (exo-explore/exo at b5375f8: README, `src/exo/api/main.py` for
`/state` and `/node_id`, `worker/main.py` for the socket edges), and where it differs:
- GET /state in exo's documented camelCase shape and GET /node_id (a JSON string);
- its node id is kept in $EXO_HOME/node_zid, made at the first start: a new file, a new id;
- its namespace is --namespace, else EXO_ZENOH_NAMESPACE, else its version, so nodes on different
  exo versions never meet;
- discovery: every second it announces the magic EXO, its namespace, id and API port on UDP 52413
  (exo's discovery port). exo multicasts on IPv6 link-local, which the lab's namespaces keep quiet;
  the stand-in sends an IPv4 broadcast on each interface instead, only inside the lab's
  198.18.0.0/15. A peer of its namespace joins /state once GET /node_id at the address it came from
  returns the id it announced, as exo confirms its socket edges;
- a peer it has seen stays in /state after the peer is gone or has a new id, until this node
  restarts (exo #2194's stale node ids, which block RDMA placement);
- with --nodes a,b,c there is no discovery and /state lists exactly those (the role tests, which
  run it from a path with exo_install false).

It also writes $EXO_HOME/standin.json with its argv, uid and environment, so tests can check what
the LaunchDaemon passed. Python 3.9, stdlib only; Linux (the lab's hosts)."""
import argparse
import fcntl
import ipaddress
import json
import os
import secrets
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.request import ProxyHandler, build_opener

DISCOVERY_PORT = 52413
MAGIC = b"EXO"
ANNOUNCE_SECONDS = 1.0
# Announcements leave only toward the lab's own networks (its rule: nothing outside 198.18.0.0/15).
LAB_NETWORK = ipaddress.ip_network("198.18.0.0/15")
SIOCGIFADDR, SIOCGIFNETMASK = 0x8915, 0x891b


def node_id(name):
    return "12D3KooW" + name


def exo_version():
    """The installed distribution's version (the lab's index builds it per version); a stand-in run
    from a path has none."""
    try:
        from importlib import metadata
        return metadata.version("exo")
    except Exception:  # not installed as a distribution: any lookup error means the same
        return "0+standin"


def own_node_id(home):
    """The id kept in $EXO_HOME/node_zid, as exo keeps its own; made (and kept) when missing."""
    path = os.path.join(home, "node_zid")
    try:
        with open(path) as handle:
            found = handle.read().strip()
        if found:
            return found
    except OSError:
        pass
    made = "12D3KooW" + secrets.token_hex(16)
    with open(path, "w") as handle:
        handle.write(made + "\n")
    return made


def state_for(ids, names, last_seen):
    return {
        "instances": {}, "runners": {}, "downloads": {}, "tasks": {},
        "lastSeen": dict((i, last_seen.get(i, "2026-01-01T00:00:00Z")) for i in ids),
        # exo lists its socket and RDMA edges here; their shape is not confirmed, so none are listed.
        "topology": {"nodes": list(ids), "connections": []},
        "nodeIdentities": dict((i, {"modelId": "Mac15,14", "chipId": "Apple M3 Ultra", "friendlyName": names.get(i, i),
                                    "osVersion": "26.2", "osBuildVersion": "25C56"}) for i in ids),
        "nodeMemory": {}, "nodeNetwork": {}, "nodeThunderbolt": {}, "nodeThunderboltBridge": {},
        "nodeRdmaCtl": {}, "nodeBackends": {}, "thunderboltBridgeCycles": [],
    }


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _ioctl_address(sock, request, name):
    packed = fcntl.ioctl(sock.fileno(), request, struct.pack("256s", name.encode()[:15]))
    return socket.inet_ntoa(packed[20:24])


def broadcast_addresses(sock):
    """The IPv4 broadcast address of every interface (from its address and netmask: an address
    added without `brd` has none of its own), inside the lab's networks only."""
    found = []
    for dummy, name in socket.if_nameindex():
        try:
            address = _ioctl_address(sock, SIOCGIFADDR, name)
            netmask = _ioctl_address(sock, SIOCGIFNETMASK, name)
        except OSError:  # no IPv4 address on it
            continue
        broadcast = str(ipaddress.ip_network("%s/%s" % (address, netmask), strict=False).broadcast_address)
        if ipaddress.ip_address(broadcast) in LAB_NETWORK and broadcast not in found:
            found.append(broadcast)
    return found


class Discovery:
    """The peers of this node's namespace, confirmed over HTTP; never forgotten while it runs."""

    def __init__(self, me, name, namespace, api_port):
        self.me, self.namespace, self.api_port = me, namespace, api_port
        self.names = {me: name}
        self.last_seen = {me: _now()}
        self.order = [me]
        self.pending = set()
        self.lock = threading.Lock()

    def announcement(self):
        return MAGIC + json.dumps({"namespace": self.namespace, "nodeId": self.me, "apiPort": self.api_port,
                                   "friendlyName": self.names[self.me]}).encode()

    def announce_forever(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        while True:
            for address in broadcast_addresses(sock):
                try:
                    sock.sendto(self.announcement(), (address, DISCOVERY_PORT))
                except OSError:  # an interface going down between the listing and the send
                    pass
            with self.lock:
                self.last_seen[self.me] = _now()
            time.sleep(ANNOUNCE_SECONDS)

    def listen_forever(self):
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("", DISCOVERY_PORT))
        while True:
            data, (address, dummy) = sock.recvfrom(4096)
            self.heard(data, address)

    def heard(self, data, address):
        if not data.startswith(MAGIC):
            return
        try:
            peer = json.loads(data[len(MAGIC):].decode("utf-8"))
            peer_id, port = str(peer["nodeId"]), int(peer["apiPort"])
        except (ValueError, KeyError, TypeError):
            return
        if peer.get("namespace") != self.namespace or peer_id == self.me:
            return
        name = str(peer.get("friendlyName") or peer_id)
        with self.lock:
            if peer_id in self.last_seen:
                self.names[peer_id], self.last_seen[peer_id] = name, _now()
                return
            if (peer_id, address) in self.pending:
                return
            self.pending.add((peer_id, address))
        # Asked beside the listener, as exo polls its peers apart from discovery: an address that never
        # answers (a blocked port, an address gone) must not hold up the announcements behind it.
        threading.Thread(target=self.confirm, args=(peer_id, name, address, port), daemon=True).start()

    def confirm(self, peer_id, name, address, port):
        try:
            ok = self.confirmed(address, port, peer_id)
        finally:
            with self.lock:
                self.pending.discard((peer_id, address))
        if ok:
            self.joined(peer_id, name)

    def joined(self, peer_id, name):
        with self.lock:
            if peer_id not in self.last_seen:
                self.order.append(peer_id)
            self.names[peer_id], self.last_seen[peer_id] = name, _now()

    @staticmethod
    def confirmed(address, port, peer_id):
        try:
            answer = build_opener(ProxyHandler({})).open("http://%s:%d/node_id" % (address, port), timeout=2).read()
            return json.loads(answer.decode("utf-8")) == peer_id
        except (OSError, ValueError):
            return False

    def state(self):
        with self.lock:
            return state_for(list(self.order), dict(self.names), dict(self.last_seen))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="", help="comma-separated node names /state lists (no discovery)")
    parser.add_argument("--api-port", type=int, default=52415)
    parser.add_argument("--namespace", default="")
    parser.add_argument("--offline", action="store_true")
    args, _ = parser.parse_known_args(argv)
    nodes = [n for n in args.nodes.split(",") if n]
    home = os.environ.get("EXO_HOME")
    if home:
        os.makedirs(home, exist_ok=True)
        with open(os.path.join(home, "standin.json"), "w") as handle:
            json.dump({"argv": sys.argv, "uid": os.getuid(), "env": dict(os.environ)}, handle)
    if nodes:
        # This node is the listed name its host has (the lab's hosts have their own hostnames).
        here = socket.gethostname().split(".")[0]
        me = node_id(here if here in nodes else nodes[0])
        fixed = state_for([node_id(n) for n in nodes], dict((node_id(n), n) for n in nodes), {})
        current_state = lambda: fixed  # noqa: E731 - the same answer every time
    else:
        me = own_node_id(home) if home else node_id(socket.gethostname())
        namespace = args.namespace or os.environ.get("EXO_ZENOH_NAMESPACE") or exo_version()
        discovery = Discovery(me, socket.gethostname().split(".")[0], namespace, args.api_port)
        for loop in (discovery.listen_forever, discovery.announce_forever):
            threading.Thread(target=loop, daemon=True).start()
        current_state = discovery.state
    me_body = json.dumps(me).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.rstrip("/") == "/state":
                payload = json.dumps(current_state()).encode()
            elif self.path == "/node_id":
                payload = me_body
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
