"""A three-Mac lab on disk for the shim's unit tests: no namespaces, no runtime.
(Fixtures in conftest.py; this module holds what tests import, under a name no other test
directory uses.)

mac1 (Studio) -- receptacle 2 <-> mac2 (Studio) receptacle 3, TB5, live
mac1 (Studio) -- receptacle 3 <-> mac3 (mini)   receptacle 1, degraded to TB4, live
mac1 (Studio) -- receptacle 4 <-> mac2 (Studio) receptacle 4, cut
States come from the runtime's own generator (macsim.statefile), so the shim is tested against
the schema the lab really writes. The live interfaces of the host under test are a JSON file
behind tests/unit/lab/fake_ip.py, installed as the host's ip(8).
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import time


HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
LAB_DIR = os.path.join(REPO, "lab")
if LAB_DIR not in sys.path:
    sys.path.insert(0, LAB_DIR)

from macsim import netapply, shim, statefile, topology  # noqa: E402

SHIM = os.path.join(LAB_DIR, "macsim", "shim.py")
OS_INFO = {"version": "26.2", "build": "25C56", "darwin": "25.2.0"}
PROFILES = {"mac1": "studio512", "mac2": "studio512", "mac3": "mini64"}
NOBODY = 65534
# The interpreter the runtime runs the shim with inside hosts (outside /root, which `nobody`
# cannot enter either).
HOST_PYTHON = "/usr/bin/python3"


def _cable(number, a, a_port, b, b_port, kind="tb5", state="connected"):
    cable = {"id": number, "state": state, "a": a, "a_port": a_port, "b": b, "b_port": b_port,
             "a_device": "en%d" % (a_port + 1), "b_device": "en%d" % (b_port + 1)}
    topology.set_kind(cable, kind)
    return cable


CABLES = [_cable(1, "mac1", 2, "mac2", 3), _cable(2, "mac1", 3, "mac3", 1, kind="tb4"),
          _cable(3, "mac1", 4, "mac2", 4, state="cut")]


class Result(object):
    def __init__(self, rc, out, err):
        self.rc, self.out, self.err = rc, out, err

    def __repr__(self):
        return "Result(rc=%r, out=%r, err=%r)" % (self.rc, self.out[:500], self.err[:500])


class Lab(object):
    """Paths and helpers of the temporary lab; `host` is the Mac the commands run on."""

    def __init__(self, root):
        self.root = root
        self.world = os.path.join(root, "world")
        self.fs = os.path.join(root, "fs")
        self.linux = os.path.join(root, "linux")
        self.host = "mac1"

    # files
    def host_dir(self, host=None):
        return os.path.join(self.world, "hosts", host or self.host)

    def state(self, host=None):
        with open(os.path.join(self.host_dir(host), "state.json")) as fh:
            return json.load(fh)

    def volatile(self, host=None):
        with open(os.path.join(self.host_dir(host), "volatile.json")) as fh:
            return json.load(fh)

    def edit_state(self, host=None, name="state.json"):
        return statefile.editing(os.path.join(self.host_dir(host), name), self.host_dir(host))

    def lab_json(self):
        with open(os.path.join(self.world, "lab.json")) as fh:
            return json.load(fh)

    def write_lab_json(self, data):
        statefile.write_json(os.path.join(self.world, "lab.json"), data)

    def ip_state(self, host=None):
        return os.path.join(self.root, "ip-%s.json" % (host or self.host))

    def live(self, host=None):
        with open(self.ip_state(host)) as fh:
            return json.load(fh)["interfaces"]

    def set_live(self, device, host=None, **values):
        with open(self.ip_state(host)) as fh:
            data = json.load(fh)
        data["interfaces"][device].update(values)
        with open(self.ip_state(host), "w") as fh:
            json.dump(data, fh)

    def ip_log(self, host=None):
        try:
            with open(self.ip_state(host) + ".log") as fh:
                return fh.read().splitlines()
        except OSError:
            return []

    def env(self, host=None):
        return {"MACLAB_HOST_DIR": self.host_dir(host), "MACLAB_WORLD_DIR": self.world,
                "MACLAB_FS_ROOT": self.fs, "MACLAB_LINUX_DIR": self.linux,
                "FAKE_IP_STATE": self.ip_state(host)}

    # running the shim
    def run(self, command, *args, **kw):
        """In-process call of the shim as `command` (fast; what most tests use)."""
        saved = {k: os.environ.get(k) for k in self.env(kw.get("host"))}
        os.environ.update(self.env(kw.get("host")))
        stdout, stderr = io.StringIO(), io.StringIO()
        stdout.buffer = io.BytesIO()
        try:
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                rc = shim.main(["/usr/bin/" + command] + list(args))
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        text = stdout.getvalue()
        if kw.get("binary"):
            return Result(rc, stdout.buffer.getvalue(), stderr.getvalue())
        return Result(rc, text, stderr.getvalue())

    def run_process(self, command, *args, **kw):
        """The shim as a real process through a symlink named `command` (argv[0] dispatch,
        other uids, binary output)."""
        link_dir = os.path.join(self.root, "bin")
        os.makedirs(link_dir, exist_ok=True)
        link = os.path.join(link_dir, command)
        if not os.path.lexists(link):
            os.symlink(SHIM, link)
        env = dict(os.environ, **self.env(kw.get("host")))
        env.update(kw.get("env", {}))
        uid = kw.get("uid")
        preexec = (lambda: (os.setgid(uid), os.setuid(uid))) if uid is not None else None
        proc = subprocess.run([HOST_PYTHON, link] + list(args), env=env, input=kw.get("input", "").encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=preexec,
                              cwd="/")
        decode = (lambda b: b) if kw.get("binary") else (lambda b: b.decode())
        return Result(proc.returncode, decode(proc.stdout), proc.stderr.decode())


def wait_exit(proc, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    return proc.poll()


def power_request(lab):
    with open(os.path.join(lab.host_dir(), "run", "power_request")) as fh:
        return fh.read().strip()


def _interfaces(state, carriers):
    """Linux-side interfaces of a freshly booted host, before netapply runs."""
    ifaces = {"lo": {"ifname": "lo", "ifindex": 1, "address": "00:00:00:00:00:00", "mtu": 65536,
                     "up": True, "carrier": True, "kind": "loopback", "inet": ["127.0.0.1/8"],
                     "inet6": []},
              "en0": {"ifname": "en0", "ifindex": 2, "address": state["hardware"]["ethernet"]["mac"],
                      "mtu": 1500, "up": True, "carrier": True, "kind": "veth", "inet": [],
                      "inet6": ["fe80::ff:fec6:1200/64"]}}
    for number, port in enumerate(state["hardware"]["tb_ports"], 3):
        cabled = port["device"] in carriers
        ifaces[port["device"]] = {
            "ifname": port["device"], "ifindex": number, "address": port["mac"], "mtu": 1500,
            "up": True, "carrier": cabled, "kind": "veth" if cabled else "dummy", "inet": [],
            "inet6": []}
    return ifaces


def build_lab(root):
    lab = Lab(root)
    for index, (host, profile) in enumerate(sorted(PROFILES.items()), 1):
        os.makedirs(os.path.join(lab.host_dir(host), "log"))
        os.makedirs(os.path.join(lab.host_dir(host), "run"))
        state = statefile.new_host_state("unit", host, index, profile, OS_INFO, 5, CABLES)
        state["boot"]["boottime"] = 1796040000
        statefile.write_json(os.path.join(lab.host_dir(host), "state.json"), state)
        volatile = statefile.new_volatile(1796040000, now=1796040000)
        statefile.write_json(os.path.join(lab.host_dir(host), "volatile.json"), volatile)
    lab.write_lab_json({"name": "unit", "hosts": [{"name": h, "profile": p}
                                                   for h, p in sorted(PROFILES.items())],
                        "cables": CABLES, "pythons": {}})
    os.makedirs(os.path.join(lab.linux, "sbin"))
    with open(os.path.join(lab.linux, "sbin", "ip"), "w") as fh:
        # -sS: a bare interpreter starts several times faster, and the fake needs only stdlib.
        fh.write("#!%s -sS\nimport sys\nsys.path.insert(0, %r)\nimport fake_ip\n"
                 "sys.exit(fake_ip.main(sys.argv[1:]))\n" % (HOST_PYTHON, HERE))
    os.chmod(os.path.join(lab.linux, "sbin", "ip"), 0o755)
    os.makedirs(lab.fs)
    saved = {k: os.environ.get(k) for k in ("MACLAB_LINUX_DIR", "MACLAB_WORLD_DIR",
                                              "FAKE_IP_STATE")}
    try:
        for host in sorted(PROFILES):
            # A cut cable's ends have no carrier: the runtime takes both ends down.
            live_ends = {c[end + "_device"] for c in CABLES if c["state"] != "cut"
                         for end in ("a", "b") if c[end] == host}
            with open(lab.ip_state(host), "w") as fh:
                json.dump({"interfaces": _interfaces(lab.state(host), live_ends)}, fh)
            os.environ.update(lab.env(host))
            netapply.apply(lab.state(host), lab.host_dir(host))
            os.rename(lab.ip_state(host) + ".log", lab.ip_state(host) + ".boot.log")
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class AnsibleModuleStub(object):
    """The two AnsibleModule methods fact collectors use, answered by the shim in-process:
    tests feed our output to ansible's own Darwin parsers."""

    def __init__(self, lab):
        self.lab = lab
        self.calls = []

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return "/usr/sbin/" + name

    def run_command(self, cmd, encoding="utf-8", **kwargs):
        argv = cmd.split() if isinstance(cmd, str) else list(cmd)
        self.calls.append(argv)
        result = self.lab.run(os.path.basename(argv[0]), *argv[1:], binary=encoding is None)
        return result.rc, result.out, result.err

    def error_as_warning(self, *args, **kwargs):
        raise AssertionError("ansible warned: %r" % (args,))

    def warn(self, message):
        raise AssertionError("ansible warned: %s" % message)
