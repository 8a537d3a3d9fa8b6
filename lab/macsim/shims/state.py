"""The shim's view of its host: state files, failures, output, root checks, Thunderbolt links.

Everything a command knows comes from the host's state (env MACLAB_HOST_DIR, default
/var/db/maclab), the world (env MACLAB_WORLD_DIR, default /var/db/maclab-world: lab.json and
every host's state), and the live interfaces (netapply.live_interfaces). macOS paths the shim
reads or writes (plists, /opt/homebrew) are taken under env MACLAB_FS_ROOT (default "/")."""
import contextlib
import fcntl
import json
import os
import sys

# netapply (subprocess, ipaddress), hashlib (OpenSSL) and uuid (platform) are imported where they
# are used: every shim call is a new process, and most commands need none of them.


TB5_SPEED = "80 Gb/s"


class Fail(Exception):
    """A command's failure: what it prints and its exit code."""

    def __init__(self, rc, stderr="", stdout=""):
        Exception.__init__(self, stderr or stdout)
        self.rc, self.stderr, self.stdout = rc, stderr, stdout


def out(text):
    sys.stdout.write(text)


def err(text):
    sys.stderr.write(text)


def is_root():
    return os.geteuid() == 0


class Host:
    """One simulated Mac as seen from inside it."""

    def __init__(self):
        self.dir = os.environ.get("MACLAB_HOST_DIR", "/var/db/maclab")
        self.world_dir = os.environ.get("MACLAB_WORLD_DIR", "/var/db/maclab-world")
        self.fs_root = os.environ.get("MACLAB_FS_ROOT", "/")
        self._state = self._volatile = self._world = self._live = None
        self._peers = {}

    # reading
    def _read(self, path, default=None):
        try:
            with open(path) as fh:
                return json.load(fh)
        except (OSError, ValueError):
            if default is not None:
                return default
            raise

    @property
    def state(self):
        if self._state is None:
            self._state = self._read(os.path.join(self.dir, "state.json"))
        return self._state

    @property
    def volatile(self):
        if self._volatile is None:
            self._volatile = self._read(os.path.join(self.dir, "volatile.json"), {})
        return self._volatile

    @property
    def world(self):
        if self._world is None:
            self._world = self._read(os.path.join(self.world_dir, "lab.json"), {})
        return self._world

    @property
    def live(self):
        if self._live is None:
            from .. import netapply

            self._live = netapply.live_interfaces()
        return self._live

    def peer_state(self, name):
        if name not in self._peers:
            path = os.path.join(self.world_dir, "hosts", name, "state.json")
            self._peers[name] = self._read(path, {}) or None
        return self._peers[name]

    def fs(self, path):
        """A macOS path on this host's file system (relative paths stay relative to the cwd)."""
        if not path.startswith("/"):
            return path
        return os.path.join(self.fs_root, path.lstrip("/"))

    @property
    def boottime(self):
        return int(self.volatile.get("boottime") or self.state["boot"]["boottime"])

    @property
    def boot_mode(self):
        return self.volatile.get("mode") or self.state["boot"].get("mode", "normal")

    # writing
    @contextlib.contextmanager
    def mutate(self):
        """Exclusive flock on state.lock, fresh copies of both files, atomic write-back."""
        fd = os.open(os.path.join(self.dir, "state.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._state = self._volatile = None
            before = (json.dumps(self.state, sort_keys=True), json.dumps(self.volatile, sort_keys=True))
            yield self
            if json.dumps(self.state, sort_keys=True) != before[0]:
                self._write("state.json", self.state)
            if json.dumps(self.volatile, sort_keys=True) != before[1]:
                self._write("volatile.json", self.volatile)
        finally:
            os.close(fd)

    def _write(self, name, data):
        path = os.path.join(self.dir, name)
        tmp = path + ".tmp.{}".format(os.getpid())
        with open(tmp, "w") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)

    def apply_network(self, devices=None):
        """Put the changed state on the live links; the prefs are already saved, so a failing
        ip(8) leaves the change for the next boot, as configd would."""
        from .. import netapply

        try:
            netapply.apply(self.state, self.dir, devices=devices, world=self.world)
        except (OSError, ValueError) as exc:
            err("maclab: could not apply network state: {}\n".format(exc))
        self._live = None

    # helpers shared by commands
    def tb_port(self, key, value):
        for port in self.state["hardware"].get("tb_ports", []):
            if port.get(key) == value:
                return port
        return None

    def linux_name(self, name):
        return "lo" if name == "lo0" else name

    def mac_name(self, name):
        return "lo0" if name == "lo" else name


def require_root(message, rc=1):
    if not is_root():
        raise Fail(rc, message)


def _derived_uuid(*parts):
    import hashlib
    import uuid

    return str(uuid.UUID(hashlib.sha256("/".join(parts).encode()).hexdigest()[:32])).upper()


def tb_links(host):
    """{receptacle: link or None}. A link needs a cable in lab.json that is not cut, the
    peer's state, and carrier on our end of the veth (the supervisor sets a halted or rebooting
    host's links down, so peers see the cable go dark)."""
    me = host.state["name"]
    links = {}
    for port in host.state["hardware"].get("tb_ports", []):
        link = None
        for cable in host.world.get("cables", []):
            if cable.get("state") == "cut":
                continue
            if cable.get("a") == me and int(cable.get("a_port")) == port["receptacle"]:
                peer, peer_receptacle = cable["b"], int(cable["b_port"])
            elif cable.get("b") == me and int(cable.get("b_port")) == port["receptacle"]:
                peer, peer_receptacle = cable["a"], int(cable["a_port"])
            else:
                continue
            live = host.live.get(port["device"])
            if host.live and (live is None or not live["carrier"]):
                continue
            peer_state = host.peer_state(peer)
            if not peer_state:
                continue
            peer_port = next((p for p in peer_state["hardware"].get("tb_ports", [])
                              if p["receptacle"] == peer_receptacle), None)
            if peer_port is None:
                continue
            link = {"peer": peer, "peer_state": peer_state, "peer_port": peer_port,
                    "speed": cable.get("speed", TB5_SPEED), "tb5": cable.get("kind", "tb5") == "tb5"}
        links[port["receptacle"]] = link
    return links


def hostname():
    return os.uname().nodename
