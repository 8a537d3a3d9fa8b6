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
  run it from a path with exo_install false);
- instances (exo 1.0.71's API, `api/main.py`; serve-model.yml's runtime exo places through it):
  POST /place_instance {model_id, sharding, instance_meta, min_nodes} answers "Command received." with
  no instance id (a client finds it by diffing /state's instances); the instance appears in /state as
  {"MlxRingInstance"|"MlxJacclInstance": {instanceId, shardAssignments: {modelId, runnerToShard,
  nodeToRunner}}} with one runner per node, each RunnerLoading {layersLoaded, totalLayers} for a
  moment, then RunnerReady; GET and DELETE /instance/{id}; POST /v1/chat/completions answers (also
  streamed) only for a model an instance runs (else 404 "No instance found for model X"), waiting
  while its runners load. Differences: the instance lives in the stand-in that placed it (exo
  replicates it through its master); the answer is a fixed text that says it comes from the stand-in
  (no model runs); a model is found only as a complete directory in EXO_MODELS_READ_ONLY_DIRS (the
  stand-in never downloads); the shard's own fields (inside runnerToShard) are not confirmed; a placement
  takes every node it knows (exo takes at least min_nodes, by memory and cycles); a placement and a
  deletion apply COMMAND_DELAY_SECONDS after their answer, as exo's master applies them later. As in
  exo, an instance does not outlive the process, and one whose peer node restarted (its boot token,
  GET /standin/boot, changed) has that runner RunnerFailed. $EXO_HOME/standin-faults.json with
  {"runner_fails": "message"} makes every runner this node places fail so (`maclab fault
  exo-runner-fails`).

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
        self.addresses = {}
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
            self.joined(peer_id, name, (address, port))

    def joined(self, peer_id, name, address=None):
        with self.lock:
            if peer_id not in self.last_seen:
                self.order.append(peer_id)
            self.names[peer_id], self.last_seen[peer_id] = name, _now()
            self.addresses[peer_id] = address

    def members(self):
        """[(node id, its (address, API port) or None for this node)] in the order they joined."""
        with self.lock:
            return [(node, self.addresses.get(node)) for node in self.order]

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


LOAD_SECONDS_PER_LAYER = 0.25
# exo takes a placement and a deletion as commands its master applies a moment later (the answer says "Command
# received."): the stand-in applies them after this long, so a client that does not wait for them shows.
COMMAND_DELAY_SECONDS = 0.5
# exo's master times out a node unseen for 30 s (master/main.py), and deletes the instances it runs.
PEER_TIMEOUT_SECONDS = 30.0
INSTANCE_KINDS = {"MlxRing": "MlxRingInstance", "MlxJaccl": "MlxJacclInstance"}
STANDIN_TEXT = "The macops lab's exo stand-in answers for %s; no model runs here."


def model_directory(model_id, read_only_dirs):
    """The complete directory of `model_id` (<dir>/<org>--<name>, exo's layout) in EXO_MODELS_READ_ONLY_DIRS, or
    None: a config.json and every file its safetensors index names (or at least one .safetensors)."""
    for directory in [d for d in read_only_dirs.split(":") if d]:
        path = os.path.join(directory, model_id.replace("/", "--"))
        try:
            names = os.listdir(path)
            with open(os.path.join(path, "config.json")) as handle:
                config = json.load(handle)
        except (OSError, ValueError):
            continue
        try:
            with open(os.path.join(path, "model.safetensors.index.json")) as handle:
                wanted = set(json.load(handle)["weight_map"].values())
        except (OSError, ValueError, KeyError):
            wanted = set()
        if (wanted and wanted <= set(names)) or (not wanted and any(n.endswith(".safetensors") for n in names)):
            return path, int(config.get("num_hidden_layers") or config.get("n_layers") or 1)
    return None


def first_layer_split(layers, count):
    """[(start, end)] per node, rank 0 the first layers (exo's pipeline; even here: the stand-in knows no memory)."""
    base, extra = divmod(layers, count)
    ranges, start = [], 0
    for rank in range(count):
        end = start + base + (1 if rank < extra else 0)
        ranges.append((start, end))
        start = end
    return ranges


class Instances:
    """The instances this stand-in placed and their runners' states, in exo's shapes."""

    def __init__(self, me, nodes, home):
        self.me, self.nodes, self.home = me, nodes, home  # nodes(): [(node id, (address, port) or None)]
        self.instances, self.runners, self.loading, self.boots, self.unseen = {}, {}, {}, {}, {}
        self.lock = threading.Lock()

    def fault(self):
        try:
            with open(os.path.join(self.home or "", "standin-faults.json")) as handle:
                return json.load(handle).get("runner_fails")
        except (OSError, ValueError, AttributeError):
            return None

    def place(self, request):
        """(status, answer) of POST /place_instance."""
        model_id, meta = str(request.get("model_id") or ""), request.get("instance_meta") or "MlxRing"
        sharding, wanted = request.get("sharding") or "Pipeline", int(request.get("min_nodes") or 1)
        found = model_directory(model_id, os.environ.get("EXO_MODELS_READ_ONLY_DIRS", ""))
        if found is None:
            return 404, {"detail": "No complete model directory for %s (the stand-in never downloads)" % model_id}
        if meta not in INSTANCE_KINDS or sharding not in ("Pipeline", "Tensor"):
            return 400, {"detail": "Unknown sharding %r or instance_meta %r" % (sharding, meta)}
        members = self.nodes()
        if len(members) < wanted:
            return 400, {"detail": "No placement found: %d node(s) for min_nodes %d" % (len(members), wanted)}
        path, layers = found
        threading.Timer(COMMAND_DELAY_SECONDS, self.placed, args=(members, model_id, sharding, meta, layers)).start()
        return 200, {"message": "Command received.", "command_id": secrets.token_hex(8),
                     "model_card": {"model_id": model_id, "n_layers": layers, "path": path}}

    def placed(self, members, model_id, sharding, meta, layers):
        """The placement applied: one runner per member node (every node the stand-in knows, at least min_nodes)."""
        instance_id = secrets.token_hex(8)
        ranges = first_layer_split(layers, len(members)) if sharding == "Pipeline" else [(0, layers)] * len(members)
        to_shard, to_runner, fails, now = {}, {}, self.fault(), time.time()
        boots = dict((node, self.boot_of(address)) for node, address in members)  # asked outside the lock
        with self.lock:
            for rank, ((node, dummy), (start, end)) in enumerate(zip(members, ranges)):
                runner = secrets.token_hex(8)
                to_runner[node], to_shard[runner] = runner, {sharding + "ShardMetadata": {
                    "modelId": model_id, "deviceRank": rank, "worldSize": len(members), "startLayer": start,
                    "endLayer": end, "nLayers": layers}}
                self.loading[runner] = (now, end - start, fails)
                self.boots[(instance_id, node)] = boots[node]
            self.instances[instance_id] = {INSTANCE_KINDS[meta]: {"instanceId": instance_id, "shardAssignments": {
                "modelId": model_id, "runnerToShard": to_shard, "nodeToRunner": to_runner}}}

    @staticmethod
    def boot_of(address):
        if address is None:
            return None
        try:
            answer = build_opener(ProxyHandler({})).open("http://%s:%d/standin/boot" % address, timeout=2).read()
            return json.loads(answer.decode("utf-8"))
        except (OSError, ValueError):
            return None

    def runner_state(self, runner, now):
        started, layers, fails = self.loading[runner]
        loaded = min(layers, int((now - started) / LOAD_SECONDS_PER_LAYER))
        if fails and loaded >= min(1, layers):  # a runner lost with its node fails at once
            return {"RunnerFailed": {"errorMessage": str(fails)}}
        if loaded < layers:
            return {"RunnerLoading": {"layersLoaded": loaded, "totalLayers": layers}}
        return {"RunnerReady": {}}

    def check_peers(self):
        """A member node whose boot token changed has its runner failed; one unseen for PEER_TIMEOUT_SECONDS takes
        its instances down (exo's master deletes them)."""
        addresses = dict(self.nodes())
        for instance_id, node in list(self.boots):
            address = addresses.get(node)
            if node == self.me or address is None:
                continue
            boot = self.boot_of(address)
            with self.lock:
                if (instance_id, node) not in self.boots or instance_id not in self.instances:
                    continue
                if boot is None:
                    first = self.unseen.setdefault((instance_id, node), time.time())
                    if time.time() - first > PEER_TIMEOUT_SECONDS:
                        self.instances.pop(instance_id, None)
                    continue
                self.unseen.pop((instance_id, node), None)
                if boot != self.boots[(instance_id, node)]:
                    runner = self.assignments(instance_id)["nodeToRunner"][node]
                    self.loading[runner] = (0.0, 0, "the runner's node restarted (exo on it was restarted)")

    def watch_peers_forever(self):
        while True:
            time.sleep(1.0)
            self.check_peers()

    def assignments(self, instance_id):
        return list(self.instances[instance_id].values())[0]["shardAssignments"]

    def add_to(self, state):
        now = time.time()
        with self.lock:
            self.boots = dict((key, boot) for key, boot in self.boots.items() if key[0] in self.instances)
            state["instances"] = json.loads(json.dumps(self.instances))
            state["runners"] = dict((runner, self.runner_state(runner, now)) for instance_id in self.instances
                                    for runner in self.assignments(instance_id)["runnerToShard"])
        return state

    def get(self, instance_id):
        with self.lock:
            return self.instances.get(instance_id)

    def delete(self, instance_id):
        with self.lock:
            if instance_id not in self.instances:
                return 404, {"detail": "Instance %s not found" % instance_id}
        threading.Timer(COMMAND_DELAY_SECONDS, self.deleted, args=(instance_id,)).start()
        return 200, {"message": "Command received.", "command_id": secrets.token_hex(8), "instance_id": instance_id}

    def deleted(self, instance_id):
        with self.lock:
            self.instances.pop(instance_id, None)
            self.boots = dict((key, boot) for key, boot in self.boots.items() if key[0] != instance_id)

    def serving(self, model_id, wait_seconds=600.0):
        """(status, detail) for a chat request: 200 once every runner of an instance of `model_id` is ready (the
        request waits meanwhile, as exo queues it), 404 when no instance runs it, 500 when a runner failed."""
        deadline = time.time() + wait_seconds
        while True:
            state = self.add_to({})
            found = [i for i in state["instances"].values() if list(i.values())[0]["shardAssignments"]["modelId"]
                     == model_id]
            if not found:
                return 404, "No instance found for model %s" % model_id
            runners = [state["runners"][r] for r in list(found[0].values())[0]["shardAssignments"]["runnerToShard"]]
            if any("RunnerFailed" in r for r in runners):
                return 500, "A runner of %s failed" % model_id
            if all("RunnerReady" in r for r in runners) or time.time() > deadline:
                return 200, None
            time.sleep(0.1)


def chat_answer(model_id, request):
    """(words, usage) of the stand-in's fixed answer, max_tokens words at most."""
    words = (STANDIN_TEXT % model_id).split()
    count = max(1, min(int(request.get("max_tokens") or len(words)), len(words)))
    prompt = sum(len(str(m.get("content") or "").split()) for m in request.get("messages") or [] if isinstance(m, dict))
    return words[:count], {"prompt_tokens": prompt, "completion_tokens": count, "total_tokens": prompt + count}


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
        current_state = lambda: json.loads(json.dumps(fixed))  # noqa: E731 - the same answer every time
        members = lambda: [(node_id(n), None) for n in nodes]  # noqa: E731
    else:
        me = own_node_id(home) if home else node_id(socket.gethostname())
        namespace = args.namespace or os.environ.get("EXO_ZENOH_NAMESPACE") or exo_version()
        discovery = Discovery(me, socket.gethostname().split(".")[0], namespace, args.api_port)
        for loop in (discovery.listen_forever, discovery.announce_forever):
            threading.Thread(target=loop, daemon=True).start()
        current_state, members = discovery.state, discovery.members
    instances = Instances(me, members, home)
    threading.Thread(target=instances.watch_peers_forever, daemon=True).start()
    ThreadingHTTPServer(("", args.api_port), handler_for(me, current_state, instances)).serve_forever()


def handler_for(me, current_state, instances):
    """The HTTP handler of exo's routes the stand-in answers."""
    boot = secrets.token_hex(8)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def reply(self, status, document):
            payload = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self):
            path = self.path.split("?", 1)[0].rstrip("/")
            if path == "/state":
                self.reply(200, instances.add_to(current_state()))
            elif path == "/node_id":
                self.reply(200, me)
            elif path == "/standin/boot":
                self.reply(200, boot)
            elif path.startswith("/instance/") and instances.get(path[len("/instance/"):]):
                self.reply(200, instances.get(path[len("/instance/"):]))
            else:
                self.reply(404, {"detail": "Not Found"})

        def do_DELETE(self):
            if self.path.startswith("/instance/"):
                self.reply(*instances.delete(self.path[len("/instance/"):]))
            else:
                self.reply(404, {"detail": "Not Found"})

        def do_POST(self):
            try:
                request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode() or "{}")
            except ValueError:
                request = None
            if not isinstance(request, dict):
                self.reply(422, {"detail": "The body is not a JSON object"})
            elif self.path == "/place_instance":
                self.reply(*instances.place(request))
            elif self.path == "/v1/chat/completions":
                self.chat(request)
            else:
                self.reply(404, {"detail": "Not Found"})

        def chat(self, request):
            model_id = str(request.get("model") or "")
            status, detail = instances.serving(model_id)
            if status != 200:
                self.reply(status, {"detail": detail})
                return
            words, usage = chat_answer(model_id, request)
            made, name = int(time.time()), "chatcmpl-" + secrets.token_hex(8)
            if not request.get("stream"):
                self.reply(200, {"id": name, "object": "chat.completion", "created": made, "model": model_id,
                                 "choices": [{"index": 0, "finish_reason": "length" if usage["completion_tokens"]
                                              == request.get("max_tokens") else "stop",
                                              "message": {"role": "assistant", "content": " ".join(words)}}],
                                 "usage": usage})
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for index, word in enumerate(words):
                delta = {"role": "assistant", "content": word if index == 0 else " " + word}
                self.event({"id": name, "object": "chat.completion.chunk", "created": made, "model": model_id,
                            "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
            self.event({"id": name, "object": "chat.completion.chunk", "created": made, "model": model_id,
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage})
            self.wfile.write(b"data: [DONE]\n\n")

        def event(self, document):
            self.wfile.write(b"data: " + json.dumps(document).encode() + b"\n\n")
            self.wfile.flush()

        def log_message(self, *args):
            pass

    return Handler


if __name__ == "__main__":
    main()
