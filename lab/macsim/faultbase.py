"""What every `maclab fault` shares: its error, the host state it edits and the record `fault
clear` reads (lab.json `faults`: kind, args and what the fault replaced)."""
from . import statefile


class FaultError(RuntimeError):
    pass


def edit_state(paths, host, name="state.json"):
    return statefile.editing(paths.host_file(host, name), paths.host(host))


def record(paths, kind, args, saved=None):
    with statefile.editing(paths.lab_json, paths.root) as lab:
        lab.setdefault("faults", []).append({"kind": kind, "args": list(args), "saved": saved})


def launchd_hostpid(paths, host):
    try:
        with open(paths.host_file(host, "run", "launchd.pid")) as handle:
            return int(handle.read())
    except (OSError, ValueError):
        return None

