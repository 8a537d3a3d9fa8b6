"""`maclab fault` for serve-model.yml: a node's serving job stopped (its LaunchDaemon booted out, as after
`launchctl bootout` or a job that launchd gave up on: its rank does not run) and a hung rank (its process
stopped with SIGSTOP, alive to every process list while every collective waits on it: mlx #4475, mlx-lm
#1493); another program listening on a port serving needs; memory other programs hold (vm_stat shows it
active); the endpoint's port closed to the controller (serve-client-blocked: the serving anchor as a run from another
controller left it, dropping this one's packets). `undo` is what `fault clear` does for each."""
import json
import signal
import subprocess

from . import layout
from .faultbase import FaultError, edit_state, launchd_hostpid, launchd_request, record, signals_lock

# The serve role's defaults (serve_launchd_label, serve_dir), which the lab's inventory keeps.
SERVE_LABEL = "org.macops.serve"
SERVE_PLIST = "/Library/LaunchDaemons/%s.plist" % SERVE_LABEL
SERVE_STATUS = "/Library/Application Support/macops/serve/run/status.json"


def fault_serve_stopped(paths, host):
    reply = launchd_request(paths, host, {"op": "bootout", "label": SERVE_LABEL})
    if reply["rc"] != 0:
        raise FaultError("%s: bootout of %s failed: %s" % (host, SERVE_LABEL, reply["err"].strip()))
    record(paths, "serve-stopped", [host])
    return "%s: %s booted out (its rank stopped)" % (host, SERVE_LABEL)


def _signal_in_host(paths, host, pid, signum):
    """Signal a process by its pid inside the host (its own pid namespace)."""
    root = launchd_hostpid(paths, host)
    if root is None:
        raise FaultError("%s is not running" % host)
    done = subprocess.run(["nsenter", "-t", str(root), "-p", "-m", "--", "kill", "-%d" % signum, str(pid)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        raise FaultError("%s: kill -%d %s failed: %s" % (host, signum, pid, done.stderr.strip()))


def fault_serve_hung(paths, host):
    try:
        with open(paths.host_file(host, "fs") + SERVE_STATUS) as handle:
            pid = json.load(handle)["rank_pid"]
    except (OSError, ValueError, KeyError) as exc:
        raise FaultError("%s: no serving status to read the rank from: %s" % (host, exc))
    if not pid:
        raise FaultError("%s: its supervisor runs no rank now" % host)
    with signals_lock(paths, host):
        _signal_in_host(paths, host, pid, signal.SIGSTOP)
        record(paths, "serve-hung", [host], pid)
    return "%s: rank process %d stopped (SIGSTOP)" % (host, pid)


# Another program on HOST listening on PORT at every address: it prints its pid (the host's own) once it listens.
_LISTENER = ("import os, socket, sys, time\n"
             "server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
             "server.bind(('0.0.0.0', int(sys.argv[1])))\n"
             "server.listen(1)\n"
             "print(os.getpid(), flush=True)\n"
             "while True:\n"
             "    time.sleep(3600)\n")


def fault_port_taken(paths, host, port):
    if not str(port).isdigit() or not 0 < int(port) < 65536:
        raise FaultError("port-taken: %r is not a TCP port" % port)
    root = launchd_hostpid(paths, host)
    if root is None:
        raise FaultError("%s is not running" % host)
    # The host's own python3 (inside its mount namespace the controller's interpreters may not be there).
    argv = ["nsenter", "-t", str(root), "-n", "-p", "-m", "--", "/usr/bin/python3", "-c", _LISTENER, str(port)]
    listener = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                                start_new_session=True)
    first = listener.stdout.readline().strip()
    if not first.isdigit():
        listener.wait(10)
        raise FaultError("%s: nothing could listen on TCP port %s: %s" % (host, port, listener.stderr.read().strip()))
    record(paths, "port-taken", [host, str(port)], int(first))
    return "%s: another program (python3, pid %s in the host) listens on TCP port %s" % (host, first, port)


def fault_memory_used(paths, host, gigabytes):
    try:
        used = int(float(gigabytes) * 1e9)
    except ValueError:
        raise FaultError("memory-used: %r is not a number of GB" % gigabytes)
    with edit_state(paths, host) as state:
        saved = state.get("memory_used_bytes", 0)
        state["memory_used_bytes"] = used
    record(paths, "memory-used", [host, str(gigabytes)], saved)
    return "%s: %s GB held by other programs (vm_stat: active, not free)" % (host, gigabytes)


# The controller's packets to the endpoint's port dropped in HOST's own network namespace, as pf drops a client
# outside <macops_serve_clients> (serving's anchor written by a run from another controller: AWX on another subnet).
CLIENT_BLOCK_TABLE = "maclab_serve_client_block"


def fault_serve_client_blocked(paths, host, port):
    if not str(port).isdigit() or not 0 < int(port) < 65536:
        raise FaultError("serve-client-blocked: %r is not a TCP port" % port)
    script = ("add table inet {table}\n"
              "add chain inet {table} input {{ type filter hook input priority 0; policy accept; }}\n"
              "add rule inet {table} input ip saddr {controller} tcp dport {port} drop\n").format(
                  table=CLIENT_BLOCK_TABLE, controller=layout.CONTROLLER_IP, port=int(port))
    done = subprocess.run(["ip", "netns", "exec", layout.netns(host), "nft", "-f", "-"], input=script,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        raise FaultError("%s: nft could not add the rule: %s" % (host, done.stderr.strip()))
    record(paths, "serve-client-blocked", [host, str(port)])
    return "%s: TCP %s from the controller (%s) dropped" % (host, port, layout.CONTROLLER_IP)


def undo(paths, kind, host, saved):
    """Put back what fault ``kind`` replaced on ``host``; False for a kind this module does not know."""
    if kind == "serve-stopped":
        launchd_request(paths, host, {"op": "bootstrap", "plist": SERVE_PLIST})
    elif kind == "memory-used":
        with edit_state(paths, host) as state:
            state["memory_used_bytes"] = saved
    elif kind == "port-taken":
        try:
            _signal_in_host(paths, host, saved, signal.SIGTERM)
        except FaultError:
            pass  # the host rebooted meanwhile, which ended it
    elif kind == "serve-client-blocked":
        subprocess.run(["ip", "netns", "exec", layout.netns(host), "nft", "delete", "table", "inet",
                        CLIENT_BLOCK_TABLE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elif kind == "serve-hung":
        try:
            _signal_in_host(paths, host, saved, signal.SIGCONT)
        except FaultError:
            pass  # the supervisor ended the rank meanwhile, or the host rebooted
    else:
        return False
    return True


KINDS = {"serve-stopped": (1, fault_serve_stopped), "serve-hung": (1, fault_serve_hung),
         "port-taken": (2, fault_port_taken), "memory-used": (2, fault_memory_used),
         "serve-client-blocked": (2, fault_serve_client_blocked)}
