"""PID 1 of a simulated Mac: private mounts, boot bookkeeping, sshd, LaunchDaemons, the control
socket the `launchctl` shim talks to, supervision and shutdown. See lab/DESIGN.md, "Boot".

Started by the host's supervisor as
    ip netns exec maclab-<h> unshare --uts --pid --fork --mount-proc $MACLAB_ROOT/code/launchd ROOT HOST
Runs on the tools python (stdlib only, Python 3.9 compatible).
"""
import errno
import os
import plistlib
import pwd
import grp
import select
import signal
import socket
import struct
import subprocess
import sys
import time
import traceback

from . import layout, pf, pf_filter, statefile
from .lineproto import recv_line, send_line

STOP_GRACE_SECONDS = 5.0
KEEPALIVE_THROTTLE_SECONDS = 1.0
DEFAULT_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
SSHD_LABEL = "com.openssh.sshd"
MUTATING_OPS = ("bootstrap", "bootout", "kickstart", "stop", "enable", "disable")


class Logger(object):
    def __init__(self, path):
        self.path = path

    def __call__(self, message):
        line = "%s launchd[1]: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), message)
        with open(self.path, "a") as handle:
            handle.write(line)


def _mount(log, *args):
    proc = subprocess.run(["mount"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        raise RuntimeError("mount %s: %s" % (" ".join(args), proc.stderr.strip()))


def _bind(log, src, dest, readonly=False):
    _mount(log, "--bind", src, dest)
    if readonly:
        _mount(log, "-o", "remount,bind,ro", dest)


def setup_mounts(root, host, lab, log):
    """The host's private view of the file system (our mount namespace is private)."""
    hdir = os.path.join(root, "hosts", host)
    fs = os.path.join(hdir, "fs")
    # Real Linux tools, for the shim, before the overlays shadow them.
    _bind(log, "/usr/bin", layout.HOST_LINUX_DIR + "/bin", readonly=True)
    _bind(log, "/usr/sbin", layout.HOST_LINUX_DIR + "/sbin", readonly=True)
    # /root is 0700 but holds the pyenv interpreters (their rpath points there): keep a handle on
    # the original, cover /root with an open tmpfs and bring back only the interpreters, read-only.
    saved_root = os.path.join(root, "mnt", host, "root")
    _bind(log, "/root", saved_root)
    _mount(log, "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/root")
    for prefix in sorted(set(lab["pythons"].values())):
        if prefix.startswith("/root/"):
            os.makedirs(prefix, exist_ok=True)
            _bind(log, saved_root + prefix[len("/root"):], prefix, readonly=True)
    _mount(log, "-t", "tmpfs", "-o", "mode=1777", "tmpfs", "/tmp")
    _mount(log, "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run")
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    _bind(log, hdir, layout.HOST_STATE_DIR)
    _bind(log, root, layout.HOST_WORLD_DIR, readonly=True)
    # The whole of /opt is the host's own (Homebrew, and /opt/macops where roles put a venv).
    # /var/db/softwareupdate: softwareupdated's own state (what declarative management enforces), per host.
    for sub in ("Users", "Library", "opt", "var/log", "var/db/softwareupdate"):
        _bind(log, os.path.join(fs, sub), "/" + sub)
    # /etc is the machine's with the host's fs/etc as writable upper layer: its passwd, sudoers,
    # hosts, pf.conf, pf.anchors/ and whatever a become task writes stay per host, and files can
    # be replaced by rename (Ansible's atomic move), which a bind-mounted file refuses (EBUSY).
    _mount(log, "-t", "overlay", "overlay", "-o", "lowerdir=/etc,upperdir=%s,workdir=%s"
           % (os.path.join(fs, "etc"), os.path.join(hdir, "etc-work")), "/etc")
    # The host's own keys and sshd_config where macOS has them; none of the machine's.
    _bind(log, os.path.join(fs, "ssh"), "/etc/ssh")
    for sub in lab["overlay_dirs"]:
        _mount(log, "-t", "overlay", "overlay", "-o",
               "lowerdir=%s:/%s" % (os.path.join(root, "macroot", sub), sub), "/" + sub)


def _read_text(path):
    with open(path) as handle:
        return handle.read()


def boot_bookkeeping(hdir, log):
    """Mode switch, pending RDMA change, fresh volatile state (DESIGN.md boot steps 2-3)."""
    state_path = os.path.join(hdir, "state.json")
    volatile_path = os.path.join(hdir, "volatile.json")
    with statefile.locked(hdir):
        state = statefile.read_json(state_path)
        boot = state["boot"]
        boot["mode"] = boot.get("next_mode") or "normal"
        boot["next_mode"] = "normal"
        boot["count"] = int(boot.get("count", 0)) + 1
        rdma = state.setdefault("rdma", {"enabled": False, "pending": None})
        if boot["mode"] == "normal" and rdma.get("pending") is not None:
            rdma["enabled"] = rdma["pending"] == "enable" if isinstance(rdma["pending"], str) else bool(rdma["pending"])
            rdma["pending"] = None
        # pf is kernel state: off after every boot, with /etc/pf.conf's rules loaded.
        problem = pf.boot_reset(state.setdefault("pf", pf.default_state()), _read_text)
        if problem:
            log("pf: /etc/pf.conf not loaded: %s" % problem.strip())
        problem = pf_filter.apply(state["pf"])  # off after boot: no packet is filtered until pfctl -E
        if problem:
            log("pf: the packet filter could not be reset: %s" % problem)
        volatile = statefile.new_volatile(boot.get("boottime", 0))
        boot["boottime"] = volatile["boottime"]
        statefile.write_json(state_path, state)
        statefile.write_json(volatile_path, volatile)
    log("boot %d mode=%s session=%s" % (boot["count"], boot["mode"], volatile["boot_session_uuid"]))
    return state


def apply_network(state, log):
    try:
        from . import netapply
    except ImportError:
        log("netapply not available: live links keep the configuration `up` gave them")
        return
    try:
        netapply.apply(state, layout.HOST_STATE_DIR)
        log("network state applied")
    except Exception:  # noqa: BLE001 - a broken apply must not keep the host from booting
        log("netapply failed:\n" + traceback.format_exc())


class Job(object):
    def __init__(self, label, spec, path=None):
        self.label = label
        self.spec = spec
        self.path = path
        self.pid = None
        self.proc = None
        self.runs = 0
        self.last_exit = None
        self.last_start = 0.0
        self.stopping = False

    @property
    def argv(self):
        if self.spec.get("ProgramArguments"):
            return list(self.spec["ProgramArguments"])
        return [self.spec["Program"]]

    @property
    def program(self):
        return self.spec.get("Program") or self.argv[0]

    def wants_restart(self, now):
        keepalive = self.spec.get("KeepAlive", False)
        if self.stopping or self.pid is not None:
            return False
        if now - self.last_start < KEEPALIVE_THROTTLE_SECONDS:
            return False
        if keepalive is True:
            return True
        if isinstance(keepalive, dict):
            if "SuccessfulExit" in keepalive and self.last_exit is not None:
                return (self.last_exit == 0) == bool(keepalive["SuccessfulExit"])
            return bool(keepalive)
        interval = self.spec.get("StartInterval")
        return bool(interval) and now - self.last_start >= float(interval)


def _exit_code(status):
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else status


class Launchd(object):
    def __init__(self, root, host, log):
        self.root = root
        self.host = host
        self.log = log
        self.jobs = {}
        self.hdir = layout.HOST_STATE_DIR
        self.stop_requested = False

    # ---- jobs -------------------------------------------------------------------------------
    def start(self, job):
        spec = job.spec
        env = {"PATH": DEFAULT_PATH}
        env.update({str(k): str(v) for k, v in (spec.get("EnvironmentVariables") or {}).items()})
        user = spec.get("UserName")
        group = spec.get("GroupName")
        pw = pwd.getpwnam(user) if user else None
        gid = grp.getgrnam(group).gr_gid if group else (pw.pw_gid if pw else None)
        if pw:
            env.setdefault("HOME", pw.pw_dir)
            env.setdefault("USER", pw.pw_name)
            env.setdefault("LOGNAME", pw.pw_name)

        def demote():
            os.setsid()
            if pw:
                os.setgroups(os.getgrouplist(pw.pw_name, gid))
                os.setgid(gid)
                os.setuid(pw.pw_uid)
            elif gid is not None:
                os.setgid(gid)

        def output(key):
            path = spec.get(key)
            if not path:
                return subprocess.DEVNULL
            os.makedirs(os.path.dirname(path) or "/", exist_ok=True)
            return open(path, "ab")

        out, err = output("StandardOutPath"), output("StandardErrorPath")
        try:
            job.proc = subprocess.Popen(job.argv, executable=job.program, env=env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err, cwd=spec.get("WorkingDirectory") or "/",
                                        preexec_fn=demote, close_fds=True)
            job.pid = job.proc.pid
            job.runs += 1
            self.log("started %s pid %d: %s" % (job.label, job.pid, " ".join(job.argv)))
        except OSError as exc:
            job.last_exit = 78  # EX_CONFIG, as launchd reports for an unrunnable program
            self.log("cannot start %s: %s" % (job.label, exc))
        finally:
            job.last_start = time.time()
            for handle in (out, err):
                if hasattr(handle, "close"):
                    handle.close()

    def stop(self, job, wait=True):
        if job.pid is None:
            return
        job.stopping = True
        self._signal(job, signal.SIGTERM)
        deadline = time.time() + STOP_GRACE_SECONDS
        while wait and job.pid is not None and time.time() < deadline:
            self.reap()
            time.sleep(0.05)
        if job.pid is not None and wait:
            self._signal(job, signal.SIGKILL)
            while job.pid is not None:
                self.reap()
                time.sleep(0.05)

    def _signal(self, job, signum):
        for target in (-job.pid, job.pid):  # its session first, then the job if it left it
            try:
                os.kill(target, signum)
            except OSError:
                pass

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            for job in self.jobs.values():
                if job.pid == pid:
                    job.last_exit = _exit_code(status)
                    job.pid = None
                    job.proc.returncode = job.last_exit  # keep Popen from waiting on a reaped pid
                    job.proc = None
                    self.log("%s pid %d exited %s" % (job.label, pid, job.last_exit))

    def supervise(self):
        now = time.time()
        for job in list(self.jobs.values()):
            if job.wants_restart(now):
                self.start(job)

    # ---- boot -------------------------------------------------------------------------------
    def load_daemon_plist(self, path):
        with open(path, "rb") as handle:
            spec = plistlib.load(handle)
        if "Label" not in spec or not (spec.get("Program") or spec.get("ProgramArguments")):
            raise ValueError("%s: Label and Program or ProgramArguments are required" % path)
        return Job(spec["Label"], spec, path)

    def disabled_labels(self):
        state = statefile.read_json(os.path.join(self.hdir, "state.json"))
        return set(state.get("launchd_disabled", []))

    def boot_services(self, mode):
        if mode != "recovery":
            sshd = Job(SSHD_LABEL, {
                "Label": SSHD_LABEL,
                "ProgramArguments": ["/usr/sbin/sshd", "-D", "-f", self.hdir + "/fs/ssh/sshd_config",
                                     "-E", self.hdir + "/log/sshd.log"],
                "KeepAlive": True, "RunAtLoad": True})
            self.jobs[sshd.label] = sshd
            self.start(sshd)
        else:
            self.log("recovery mode: no Remote Login, no LaunchDaemons")
            return
        disabled = self.disabled_labels()
        daemon_dir = "/Library/LaunchDaemons"
        for name in sorted(os.listdir(daemon_dir)):
            if not name.endswith(".plist"):
                continue
            try:
                job = self.load_daemon_plist(os.path.join(daemon_dir, name))
            except Exception as exc:  # noqa: BLE001 - one bad plist must not stop the boot
                self.log("skipping %s: %s" % (name, exc))
                continue
            if job.label in disabled or job.spec.get("Disabled"):
                self.log("%s is disabled" % job.label)
                continue
            self.jobs[job.label] = job
            if job.spec.get("RunAtLoad"):
                self.start(job)

    # ---- control socket ---------------------------------------------------------------------
    def handle(self, request, peer_uid):
        op = request.get("op")
        label = request.get("label")
        if op in MUTATING_OPS and peer_uid != 0:
            verb = {"bootstrap": "Bootstrap", "bootout": "Boot-out"}.get(op, op.capitalize())
            return {"rc": 1, "out": "", "err": "%s failed: 1: Operation not permitted\n" % verb}
        if op == "list":
            return self.op_list(label)
        if op == "print":
            return self.op_print(label)
        if op == "bootstrap":
            return self.op_bootstrap(request.get("plist", ""))
        if op == "bootout":
            job = self.jobs.get(label)
            if job is None:
                # Unconfirmed wording; real launchctl returns 113 for an unknown service.
                return {"rc": 113, "out": "", "err": "Boot-out failed: 113: Could not find specified service\n"}
            self.stop(job)
            del self.jobs[label]
            self.log("bootout %s" % label)
            return {"rc": 0, "out": "", "err": ""}
        if op == "kickstart":
            job = self.jobs.get(label)
            if job is None:
                return {"rc": 113, "out": "", "err": "Could not find service \"%s\" in domain for system\n" % label}
            if request.get("kill"):
                self.stop(job)
            job.stopping = False
            if job.pid is None:
                self.start(job)
            return {"rc": 0, "out": "", "err": ""}
        if op == "stop":
            # `launchctl stop`: signal the job; KeepAlive brings it back, as on macOS.
            job = self.jobs.get(label)
            if job is None:
                return {"rc": 113, "out": "", "err": "Could not find service \"%s\" in domain for system\n" % label}
            if job.pid is not None:
                self._signal(job, signal.SIGTERM)
            return {"rc": 0, "out": "", "err": ""}
        if op in ("enable", "disable"):
            with statefile.editing(os.path.join(self.hdir, "state.json"), self.hdir) as state:
                disabled = set(state.get("launchd_disabled", []))
                (disabled.discard if op == "enable" else disabled.add)(label)
                state["launchd_disabled"] = sorted(disabled)
            return {"rc": 0, "out": "", "err": ""}
        return {"rc": 64, "out": "", "err": "Unrecognized subcommand: %s\n" % op}

    def op_bootstrap(self, path):
        if not os.path.exists(path):
            return {"rc": 5, "out": "", "err": "Bootstrap failed: 5: Input/output error\n"}
        try:
            job = self.load_daemon_plist(path)
        except Exception:  # noqa: BLE001
            return {"rc": 5, "out": "", "err": "Bootstrap failed: 5: Input/output error\n"}
        if job.label in self.jobs:
            # Unconfirmed: recent macOS prints this for an already loaded service.
            return {"rc": 5, "out": "", "err": "Bootstrap failed: 5: Input/output error\n"}
        if job.label in self.disabled_labels():
            return {"rc": 119, "out": "", "err": "Bootstrap failed: 119: Service is disabled\n"}
        self.jobs[job.label] = job
        self.log("bootstrap %s" % job.label)
        if job.spec.get("RunAtLoad") or job.spec.get("KeepAlive"):
            self.start(job)
        return {"rc": 0, "out": "", "err": ""}

    def op_list(self, label):
        if label:
            job = self.jobs.get(label)
            if job is None:
                return {"rc": 113, "out": "", "err": "Could not find service \"%s\" in domain for system\n" % label}
            lines = ["{", '\t"LimitLoadToSessionType" = "System";', '\t"Label" = "%s";' % job.label,
                     '\t"OnDemand" = %s;' % ("false" if job.spec.get("KeepAlive") else "true"),
                     '\t"LastExitStatus" = %d;' % (job.last_exit or 0)]
            if job.pid is not None:
                lines.append('\t"PID" = %d;' % job.pid)
            lines.append('\t"Program" = "%s";' % job.program)
            lines.append('\t"ProgramArguments" = (')
            lines.extend('\t\t"%s";' % arg for arg in job.argv)
            lines.extend(["\t);", "};"])
            return {"rc": 0, "out": "\n".join(lines) + "\n", "err": ""}
        lines = ["PID\tStatus\tLabel"]
        for job in sorted(self.jobs.values(), key=lambda j: j.label):
            lines.append("%s\t%d\t%s" % (job.pid if job.pid is not None else "-", job.last_exit or 0, job.label))
        return {"rc": 0, "out": "\n".join(lines) + "\n", "err": ""}

    def op_print(self, label):
        job = self.jobs.get(label)
        if job is None:
            return {"rc": 113, "out": "", "err": "Could not find service \"%s\" in domain for system\n" % label}
        # Shape of `launchctl print system/<label>`; a real one prints many more keys.
        env = job.spec.get("EnvironmentVariables") or {}
        lines = ["system/%s = {" % job.label,
                 "\tactive count = %d" % (1 if job.pid is not None else 0),
                 "\tpath = %s" % (job.path or "(submitted by launchd)"),
                 "\ttype = LaunchDaemon",
                 "\tstate = %s" % ("running" if job.pid is not None else "not running"),
                 "", "\tprogram = %s" % job.program, "\targuments = {"]
        lines.extend("\t\t%s" % arg for arg in job.argv)
        lines.append("\t}")
        if job.spec.get("WorkingDirectory"):
            lines.append("\tworking directory = %s" % job.spec["WorkingDirectory"])
        for key, name in (("StandardOutPath", "stdout path"), ("StandardErrorPath", "stderr path")):
            if job.spec.get(key):
                lines.append("\t%s = %s" % (name, job.spec[key]))
        if env:
            lines.extend(["", "\tenvironment = {"] + ["\t\t%s => %s" % kv for kv in sorted(env.items())] + ["\t}"])
        lines.extend(["", "\tdomain = system", "\tusername = %s" % job.spec.get("UserName", "root"),
                      "\truns = %d" % job.runs])
        if job.pid is not None:
            lines.append("\tpid = %d" % job.pid)
        lines.append("\tlast exit code = %s" % ("(never exited)" if job.last_exit is None else job.last_exit))
        lines.append("}")
        return {"rc": 0, "out": "\n".join(lines) + "\n", "err": ""}

    def serve_one(self, server):
        conn, _ = server.accept()
        try:
            conn.settimeout(5)
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", creds)
            try:
                reply = self.handle(recv_line(conn, default={}), uid)
            except Exception:  # noqa: BLE001 - a bad request gets an error reply, launchd lives on
                reply = {"rc": 1, "out": "", "err": traceback.format_exc()}
            send_line(conn, reply)
        except OSError as exc:
            self.log("control socket: %s" % exc)
        finally:
            conn.close()

    # ---- main loop --------------------------------------------------------------------------
    def shutdown(self):
        self.log("shutdown: stopping %d jobs" % len([j for j in self.jobs.values() if j.pid]))
        for job in self.jobs.values():
            if job.pid is not None:
                job.stopping = True
                self._signal(job, signal.SIGTERM)
        deadline = time.time() + STOP_GRACE_SECONDS
        while time.time() < deadline and any(j.pid is not None for j in self.jobs.values()):
            self.reap()
            time.sleep(0.05)
        try:
            os.kill(-1, signal.SIGKILL)  # whatever is left (ssh sessions, orphans)
        except OSError:
            pass
        self.log("shutdown complete")

    def run(self, server):
        def on_term(signum, frame):
            self.stop_requested = True
        signal.signal(signal.SIGTERM, on_term)
        signal.signal(signal.SIGINT, on_term)
        while not self.stop_requested:
            try:
                ready, _, _ = select.select([server], [], [], 0.25)
            except (InterruptedError, OSError) as exc:
                if getattr(exc, "errno", errno.EINTR) != errno.EINTR:
                    raise
                ready = []
            if ready and not self.stop_requested:
                self.serve_one(server)
            self.reap()
            self.supervise()
        self.shutdown()


def main(argv):
    root, host = argv[0], argv[1]
    hdir = os.path.join(root, "hosts", host)
    log = Logger(os.path.join(hdir, "log", "launchd.log"))
    try:
        lab = statefile.read_json(os.path.join(root, "lab.json"))
        socket.sethostname(host)
        setup_mounts(root, host, lab, log)
        state = boot_bookkeeping(layout.HOST_STATE_DIR, log)
        apply_network(state, log)
        sock_path = layout.LAUNCHD_SOCKET
        if os.path.exists(sock_path):
            os.unlink(sock_path)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(sock_path)
        os.chmod(sock_path, 0o666)
        server.listen(32)
        daemon = Launchd(root, host, log)
        daemon.boot_services(state["boot"]["mode"])
        with open(os.path.join(layout.HOST_STATE_DIR, "run", "booted"), "w") as handle:
            handle.write(state["boot"].get("mode", "normal") + "\n")
        log("boot complete")
        daemon.run(server)
        return 0
    except Exception:  # noqa: BLE001 - the supervisor reads the reason in launchd.log
        log("fatal:\n" + traceback.format_exc())
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
