"""Loaded by a simulated Mac's /usr/bin/python3 (through PYTHONPATH set by its wrapper).

* os.uname() reports Darwin, so platform.system()/release()/machine() and Ansible's facts see a
  Mac; everything else stays the Linux interpreter.
* Every subprocess a module starts is logged to /var/db/maclab/log/exec.log, for tests.
* PYTHONPATH is removed from os.environ: pythons this one starts (for example a venv the roles
  create for MLX) must run as plain Linux pythons.
Python 3.9 compatible, stdlib only.
"""
import json
import os
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_STATE = "/var/db/maclab/state.json"
_EXEC_LOG = "/var/db/maclab/log/exec.log"


def _drop_from_pythonpath():
    value = os.environ.get("PYTHONPATH")
    if value is None:
        return
    rest = [p for p in value.split(os.pathsep) if p and os.path.abspath(p) != _HERE]
    if rest:
        os.environ["PYTHONPATH"] = os.pathsep.join(rest)
    else:
        del os.environ["PYTHONPATH"]


def _darwin_release():
    try:
        with open(_STATE) as handle:
            return json.load(handle)["os"]["darwin"]
    except Exception:  # noqa: BLE001 - facts must not break because state is unreadable
        return "25.2.0"


_real_uname = os.uname


def _darwin_uname():
    real = _real_uname()
    release = _darwin_release()
    version = ("Darwin Kernel Version %s: Tue Nov 18 21:07:51 PST 2025; "
               "root:xnu-12377.61.12~1/RELEASE_ARM64_T6031" % release)
    return os.uname_result(("Darwin", real.nodename, release, version, "arm64"))


def _log_exec(args):
    try:
        if isinstance(args, (str, bytes, os.PathLike)):
            argv = [os.fsdecode(args)]
        else:
            argv = [os.fsdecode(a) for a in args]
        line = json.dumps({"t": round(time.time(), 3), "argv": argv, "uid": os.getuid(), "pid": os.getpid()})
        fd = os.open(_EXEC_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001 - logging must never change what the module does
        pass


def _install_exec_logger():
    import subprocess

    original = subprocess.Popen.__init__

    def logged_init(self, args, *a, **kw):
        _log_exec(args)
        return original(self, args, *a, **kw)

    subprocess.Popen.__init__ = logged_init


_drop_from_pythonpath()
os.uname = _darwin_uname
_install_exec_logger()
