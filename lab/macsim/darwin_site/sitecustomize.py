"""Loaded by a simulated Mac's /usr/bin/python3 (through PYTHONPATH set by its wrapper).

* os.uname() reports Darwin, so platform.system()/release()/machine() and Ansible's facts see a
  Mac; everything else stays the Linux interpreter.
* Every subprocess a module starts is logged to /var/db/maclab/log/exec.log, for tests.
* Every file a module opens for reading under the collection's state directory (the applied
  Thunderbolt plan, the hostfiles) is logged to /var/db/maclab/log/read.log, for tests: a module's
  own reads are no command, so exec.log and shim.log cannot count them.
* PYTHONPATH is removed from os.environ: pythons this one starts (for example a venv the roles
  create for MLX) must run as plain Linux pythons.
* The code zipimport compiles from Ansible's module zips is kept by hash (/var/db/maclab/pycache),
  a speed-up of the lab only: what runs, and the file names it reports, are unchanged.
Python 3.9 compatible, stdlib only.
"""
import json
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_STATE = "/var/db/maclab/state.json"
_EXEC_LOG = "/var/db/maclab/log/exec.log"
_READ_LOG = "/var/db/maclab/log/read.log"
# Compiled module code, per user (_install_zip_code_cache).
_PYCACHE = "/var/db/maclab/pycache"
# macops_state_dir's default (roles/macops/defaults/main.yml): the files read.log counts.
_STATE_DIR = "/Library/Application Support/macops/"


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


def _append(log, entry):
    line = json.dumps(dict(entry, t=round(time.time(), 3), uid=os.getuid(), pid=os.getpid()))
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def _log_exec(args):
    try:
        if isinstance(args, (str, bytes, os.PathLike)):
            argv = [os.fsdecode(args)]
        else:
            argv = [os.fsdecode(a) for a in args]
        _append(_EXEC_LOG, {"argv": argv})
    except Exception:  # noqa: BLE001 - logging must never change what the module does
        pass


def state_file_read(event, args):
    """The path of a file opened for reading under the state directory, from an audit event
    ("open": path, mode, flags), or None for any other event or file."""
    if event != "open" or len(args) < 3 or not isinstance(args[0], (str, bytes)):
        return None
    path = os.fsdecode(args[0])
    flags = args[2] if isinstance(args[2], int) else 0
    if not path.startswith(_STATE_DIR) or flags & os.O_ACCMODE != os.O_RDONLY:
        return None
    return path


def _log_read(event, args):
    try:
        path = state_file_read(event, args)
        if path is not None:
            _append(_READ_LOG, {"path": path})
    except Exception:  # noqa: BLE001 - logging must never change what the module does
        pass


def _install_exec_logger():
    import subprocess

    original = subprocess.Popen.__init__

    def logged_init(self, args, *a, **kw):
        _log_exec(args)
        return original(self, args, *a, **kw)

    subprocess.Popen.__init__ = logged_init


def _with_filename(code, filename):
    """code, and every function's code inside it, naming filename (this run's zip) as its file."""
    consts = tuple(_with_filename(c, filename) if isinstance(c, type(code)) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _install_zip_code_cache():
    """Ansible runs each module from a fresh zip (AnsiballZ), and zipimport compiles every Python
    file in it on every run: most of a module's CPU time on a simulated Mac, where two labs share
    two cores. The lab keeps what it compiled, by the source's hash, per user and interpreter
    (/var/db/maclab/pycache/<uid>/), and gives it this run's path, so __file__ and tracebacks read
    as on a Mac, which compiles each time. Any failure falls back to compiling."""
    import zipimport

    compile_source = getattr(zipimport, "_compile_source", None)
    # Only on a lab node, where `maclab up` made the directory (mode 1777: each user makes its own).
    if compile_source is None or not os.path.isdir(_PYCACHE):
        return
    import hashlib
    import marshal

    directory = os.path.join(_PYCACHE, str(os.getuid()))
    tag = sys.implementation.cache_tag

    def cached(pathname, source):
        path = os.path.join(directory, "%s.%s" % (hashlib.sha256(source).hexdigest(), tag))
        try:
            with open(path, "rb") as handle:
                return _with_filename(marshal.loads(handle.read()), pathname)
        except Exception:  # noqa: BLE001 - not cached yet (or unreadable): compile
            pass
        code = compile_source(pathname, source)
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            partial = "%s.%d" % (path, os.getpid())
            with open(partial, "wb") as handle:
                handle.write(marshal.dumps(code))
            os.replace(partial, path)
        except Exception:  # noqa: BLE001 - a cache that cannot be written is only slower
            pass
        return code

    zipimport._compile_source = cached


_drop_from_pythonpath()
os.uname = _darwin_uname
_install_exec_logger()
_install_zip_code_cache()
sys.addaudithook(_log_read)
