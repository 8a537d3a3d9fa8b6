"""Power: shutdown, reboot, halt (through run/power_request and PID 1), pmset."""
import os
import subprocess
import sys
import time

from ..formats import admin
from .registry import command
from .state import Fail, out, require_root


# Runs detached: the caller's ssh session may end before the signal. It signals only a process
# whose name is `launchd`, so a mis-set MACLAB_INIT_PID can never take down a real init.
SIGNALLER = """
import os, signal, sys, time
time.sleep(float(sys.argv[1]))
pid = int(sys.argv[2])
with open("/proc/%d/comm" % pid) as fh:
    if fh.read().strip() == "launchd":
        os.kill(pid, signal.SIGTERM)
"""


def request_power(host, kind, delay):
    run_dir = os.path.join(host.dir, "run")
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "power_request"), "w") as fh:
        fh.write(kind + "\n")
    init_pid = os.environ.get("MACLAB_INIT_PID", "1")
    subprocess.Popen([sys.executable, "-c", SIGNALLER, str(delay), init_pid],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True)


@command("/sbin/shutdown")
def cmd_shutdown(host, args):
    kind = None
    when = None
    for arg in args:
        if arg in ("-r",):
            kind = "reboot"
        elif arg in ("-h", "-s"):
            kind = "halt" if arg == "-h" else "sleep"
        elif arg.startswith("-"):
            continue
        elif when is None:
            when = arg
    if when is None:
        raise Fail(1, "usage: shutdown [-] [-h [-u] [-n] | -r [-n] | -s | -k] time [warning-message ...]\n")
    require_root(admin.SHUTDOWN_NOT_ROOT)
    if when == "now":
        minutes = 0
    elif when.startswith("+") and when[1:].isdigit():
        minutes = int(when[1:])
    else:
        raise Fail(1, "shutdown: bad time format (the lab accepts now and +N)\n")
    now = time.time()
    out(admin.shutdown_message(now + 60 * minutes, now, os.getpid()))
    if kind in ("reboot", "halt"):
        request_power(host, kind, 1 + 60 * minutes)
    return 0


@command("/sbin/reboot")
def cmd_reboot(host, args):
    require_root("reboot: Operation not permitted\n")
    request_power(host, "reboot", 1)
    return 0


@command("/sbin/halt")
def cmd_halt(host, args):
    require_root("halt: Operation not permitted\n")
    request_power(host, "halt", 1)
    return 0


@command("/usr/bin/pmset")
def cmd_pmset(host, args):
    if not args or args[0] == "-g":
        out(admin.pmset_settings(host.state.get("pmset", {})))
        return 0
    if args[0] in ("-a", "-b", "-c", "-u"):
        pairs = args[1:]
        if not pairs or len(pairs) % 2:
            raise Fail(1, "Usage: pmset <-a|-b|-c|-u> <setting> <value> ...\n")
        require_root("pmset: Must be run as root\n")
        with host.mutate():
            settings = host.state.setdefault("pmset", {})
            for key, value in zip(pairs[::2], pairs[1::2]):
                settings[key] = int(value) if value.lstrip("-").isdigit() else value
        return 0
    raise Fail(1, "Usage: pmset -g | pmset <-a|-b|-c|-u> <setting> <value> ...\n")
