"""The multi-call entry: argv[0]'s basename (or, for `shim.py COMMAND ARGS...`, the first
argument) picks a command from the registry; every call appends a line to log/shim.log."""
import json
import os
import sys
import time

from . import registry
from .state import Fail, Host, err, out


def log_call(host, argv, rc):
    try:
        log_dir = os.path.join(host.dir, "log")
        os.makedirs(log_dir, exist_ok=True)
        path = os.path.join(log_dir, "shim.log")
        line = json.dumps({"t": round(time.time(), 3), "argv": list(argv), "uid": os.getuid(),
                           "rc": rc}) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            if os.fstat(fd).st_uid == os.geteuid():
                # Every user's calls are logged: undo the umask on the shared log.
                os.fchmod(fd, 0o666)
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        # A user who cannot write the log must still get the command's answer.
        pass


REPLAY_FILE = "replay.json"


def replay_key(name, args):
    """A command as the replay file keys it: its name (not its directory: the bundle's node found it where macOS
    keeps it, the lab may answer from another) and its arguments."""
    return json.dumps([name] + list(args))


def replay_answer(host, name, args):
    """{rc, stdout, stderr} a support bundle recorded for this command on this host, or None (no replay, or a
    command the bundle did not record: the lab's own answer)."""
    path = os.path.join(host.dir, REPLAY_FILE)
    if not os.path.exists(path):
        return None
    try:
        with open(path) as handle:
            return json.load(handle).get(replay_key(name, args))
    except (OSError, ValueError):
        return None


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    name = os.path.basename(argv[0])
    args = argv[1:]
    handler = registry.find(name)
    if handler is None and args:
        handler = registry.find(args[0])
        if handler is not None:
            name, args = args[0], args[1:]
            argv = argv[1:]
    if handler is None:
        err("macsim shim: unknown command {}; known: {}\n".format(name, " ".join(sorted(registry.commands()))))
        return 127
    host = Host()
    replayed = replay_answer(host, name, args)
    if replayed is not None:  # `maclab replay`: what a real node printed for this command, from its support bundle
        out(replayed["stdout"])
        err(replayed["stderr"])
        sys.stdout.flush()
        log_call(host, argv, replayed["rc"])
        return replayed["rc"]
    try:
        rc = handler(host, args)
    except Fail as failure:
        out(failure.stdout)
        err(failure.stderr)
        rc = failure.rc
    sys.stdout.flush()
    log_call(host, argv, rc)
    return rc
