"""What every `maclab fault` shares: its error, the host state it edits and the record `fault
clear` reads (lab.json `faults`: kind, args and what the fault replaced)."""
import contextlib
import fcntl
import socket
import subprocess

from . import statefile
from .lineproto import recv_line, send_line


class FaultError(RuntimeError):
    pass


def edit_state(paths, host, name="state.json"):
    return statefile.editing(paths.host_file(host, name), paths.host(host))


def record(paths, kind, args, saved=None):
    with statefile.editing(paths.lab_json, paths.root) as lab:
        lab.setdefault("faults", []).append({"kind": kind, "args": list(args), "saved": saved})


@contextlib.contextmanager
def signals_lock(paths, host):
    """Held by a fault while it stops a host's processes (fault hang, fault serve-hung) and by the throttle of a
    slower build (supervisor.Throttle) around each of its stops and continues: a hang that comes while the
    throttle has the host paused is then recorded before the throttle would continue it, and stays."""
    with open(paths.host_file(host, "run", "signals.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def held_stopped(paths, host):
    """What faults keep stopped on HOST until `fault clear`: (every process, {pid in the host's namespace}),
    from fault hang (all of them) and fault serve-hung (its rank). No other signal may continue those."""
    everything, pids = False, set()
    for fault in statefile.read_json(paths.lab_json, {}).get("faults", []):
        if fault.get("args", [None])[:1] == [host]:
            everything = everything or fault["kind"] == "hang"
            if fault["kind"] == "serve-hung":
                pids.add(fault["saved"])
    return everything, pids


def host_namespace_pid(pid):
    """A root-namespace PID's number inside its host's PID namespace (the last NSpid field), or None once gone."""
    try:
        with open("/proc/%d/status" % pid) as handle:
            for line in handle:
                if line.startswith("NSpid:"):
                    return int(line.split()[-1])
    except OSError:
        return None
    return None


def launchd_hostpid(paths, host):
    try:
        with open(paths.host_file(host, "run", "launchd.pid")) as handle:
            return int(handle.read())
    except (OSError, ValueError):
        return None


def launchd_request(paths, host, request):
    """Talk to the host's launchd like its launchctl shim does (the socket path is shared)."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(15)
    try:
        client.connect(paths.host_file(host, "run", "launchd.sock"))
        send_line(client, request)
        return recv_line(client)
    finally:
        client.close()


def in_host(paths, host, argv, uid=None, gid=None, env=None):
    """Run ARGV inside the running host (its mount and network namespaces: /etc is an overlay there,
    and the host's own paths and addresses apply), as root or as UID:GID. None when the host is not
    up, else the completed process (output captured)."""
    pid = launchd_hostpid(paths, host)
    if pid is None:
        return None
    user = ["-S", str(uid), "-G", str(gid)] if uid is not None else []
    return subprocess.run(["nsenter", "-t", str(pid), "-m", "-n"] + user + ["--"] + list(argv),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env)
