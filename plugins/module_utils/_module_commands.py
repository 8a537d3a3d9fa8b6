# -*- coding: utf-8 -*-
# PRIVATE to the collection: how node modules find and run macOS commands.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Run macOS commands from a module and turn their failures into ``fail_json``.

Binaries are looked up with ``opt_dirs`` first because a non-interactive SSH session has a
minimal PATH (ansible/ansible#12063) and Homebrew can shadow system tools.

Commands run through :func:`execute`, not ``AnsibleModule.run_command``: run_command's read loop
ends when a ``select()`` that waited a second came back empty and the process has exited by the
next line, so output the process wrote in between is never read (ansible/ansible#51393, still so in
ansible-core 2.21). A command that takes about a second and prints at the end, on a busy machine
with reads in threads, then "succeeds" with no output: the lab's doctor sweeps saw exactly that.
``communicate()`` reads both pipes to their end, and gives every command a time limit.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import signal
import subprocess
import threading

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

# Where macOS installs each tool the modules run.
SYSTEM_DIRS = {
    "system_profiler": ["/usr/sbin"],
    "networksetup": ["/usr/sbin"],
    "sw_vers": ["/usr/bin"],
    "rdma_ctl": ["/usr/bin"],
    "ibv_devices": ["/usr/bin"],
    "ibv_devinfo": ["/usr/bin"],
    "pmset": ["/usr/bin"],
    "ifconfig": ["/sbin"],
    "route": ["/sbin"],
    "ping": ["/sbin"],
    "pfctl": ["/sbin"],
    "launchctl": ["/bin"],
    "PlistBuddy": ["/usr/libexec"],
    "df": ["/bin"],
    "fdesetup": ["/usr/bin"],
    "profiles": ["/usr/bin"],
    "sysctl": ["/usr/sbin"],
    "softwareupdate": ["/usr/sbin"],
    "sudo": ["/usr/bin"],
    "lsof": ["/usr/sbin"],
    "vm_stat": ["/usr/bin"],
    "stat": ["/usr/bin"],  # BSD stat: who owns /dev/console
    "dscl": ["/usr/bin"],
    "diskutil": ["/usr/sbin"],
    # Homebrew's, on Apple silicon and then on Intel Macs.
    "iperf3": ["/opt/homebrew/bin", "/usr/local/bin"],
}


# The longest a read may take (`softwareupdate --list` asks Apple's servers; everything else answers
# in seconds): a hung command becomes a failed read, never a hung run.
READ_TIMEOUT_SECONDS = 120


def _text(data):
    return data.decode("utf-8", "surrogateescape") if data else ""


def execute(argv, timeout=None, stdin_text=None):
    """(rc, stdout, stderr) of argv (no shell) as text, both pipes read to their end; ``stdin_text`` (a password
    a command reads, never an argument) on its stdin, else nothing. With a timeout, a command still running
    after it is killed with its whole process group: its exit status is then negative (-9, as for any process
    SIGKILL ended) and stderr ends with a line that says so. A command that cannot start raises OSError."""
    # Popen, not run_command, for the race in the module docstring (ansible/ansible#51393).
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin_text is None else subprocess.PIPE,  # pylint: disable=ansible-bad-function
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=timeout is not None)
    try:
        stdout, stderr = process.communicate(None if stdin_text is None else stdin_text.encode("utf-8"),
                                             timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            stdout, stderr = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            # Something it started still holds the pipes open: give up on the rest of its output.
            stdout, stderr = b"", b""
            process.stdout.close()
            process.stderr.close()
        process.wait()
        note = "`%s` did not finish within %g seconds" % (" ".join(argv), timeout)
        return process.returncode, _text(stdout), (_text(stderr) + "\n" + note).strip()
    return process.returncode, _text(stdout), _text(stderr)


# Where result_of() notes every command it runs and what it printed, while a module records (node_facts' record:
# the support bundle's raw output of every command the collection reads). None: nothing is noted.
RECORDED = None
_RECORD_LOCK = threading.Lock()


def start_recording():
    """From now on, result_of() notes each command: {argv, rc, stdout, stderr}, in the order they end."""
    global RECORDED
    RECORDED = []
    return RECORDED


def result_of(argv, timeout=READ_TIMEOUT_SECONDS, stdin_text=None):
    """execute()'s result; a command that cannot start gives exit status 127 with the error as
    stderr, so a caller in a thread never raises (fail_json there cannot end the module)."""
    try:
        result = execute(argv, timeout) if stdin_text is None else execute(argv, timeout, stdin_text=stdin_text)
    except OSError as exc:
        result = 127, "", "cannot run %s: %s" % (argv[0], exc)
    if RECORDED is not None and stdin_text is None:  # a command given stdin may be given a secret: not noted
        with _RECORD_LOCK:
            RECORDED.append({"argv": list(argv), "rc": result[0], "stdout": result[1], "stderr": result[2]})
    return result


def follow(argv, stdin_text, on_output):
    """Run argv with ``stdin_text`` on its stdin (a password, never an argument) and call ``on_output`` with all
    it printed so far (stdout and stderr merged) each time it prints, for a long command whose progress a caller
    shows; (rc, output) once it ends. Read as it comes, not line by line: a command that writes its progress
    newline-first (softwareupdate) shows each figure when it is printed, not when the next one begins."""
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,  # pylint: disable=ansible-bad-function
                               stderr=subprocess.STDOUT)
    process.stdin.write(stdin_text.encode("utf-8"))
    process.stdin.close()
    received = b""
    for chunk in iter(lambda: os.read(process.stdout.fileno(), 65536), b""):
        received += chunk
        on_output(_text(received))
    process.stdout.close()
    return process.wait(), _text(received)


def find_command(module, name):
    """Absolute path of a macOS tool, or None when it is not installed."""
    return module.get_bin_path(name, opt_dirs=SYSTEM_DIRS.get(name, []))


def require_command(module, name):
    path = find_command(module, name)
    if path is None:
        module.fail_json(msg="%s not found in %s or PATH: this module runs on macOS only" % (name, ", ".join(SYSTEM_DIRS.get(name, []))))
    return path


def succeeded(module, argv, result):
    """The stdout of a command's (rc, stdout, stderr); fails the module with its stderr on a non-zero exit."""
    rc, stdout, stderr = result
    if rc != 0:
        module.fail_json(msg="`%s` failed with exit status %d: %s" % (" ".join(argv), rc, (stderr or stdout).strip()),
                         rc=rc, stdout=stdout, stderr=stderr)
    return stdout


def run(module, argv, timeout=READ_TIMEOUT_SECONDS):
    """Run argv (no shell); fail the module with the command's stderr on a non-zero exit."""
    return succeeded(module, argv, result_of(argv, timeout))


def run_parallel(argvs, timeout=READ_TIMEOUT_SECONDS):
    """Run independent read-only commands at once (threads: networksetup, system_profiler and
    friends each take a noticeable fraction of a second); their (rc, stdout, stderr) in the order
    given (result_of's). None stands for a command that is not there (argv None)."""
    results = [None] * len(argvs)

    def one(index):
        results[index] = result_of(argvs[index], timeout)

    threads = [threading.Thread(target=one, args=(index,)) for index in range(len(argvs)) if argvs[index]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def run_beside(module, run_reads, jobs):
    """run_reads() while the jobs (key -> callable that only runs commands or asks a port, such as
    a ping of every cable) run in threads of their own; their results by key. A job that raised
    (run_command's own failure handling exits, which cannot end the module from a thread) fails
    the module from here, naming the job."""
    answers, errors = {}, {}

    def one(key, job):
        # BaseException: fail_json's SystemExit in a thread must not vanish with the thread.
        try:
            answers[key] = job()
        except BaseException as exc:  # pylint: disable=broad-except
            errors[key] = str(exc) or type(exc).__name__

    threads = [threading.Thread(target=one, args=item) for item in sorted(jobs.items())]
    for thread in threads:
        thread.start()
    run_reads()
    for thread in threads:
        thread.join()
    for key in sorted(jobs):
        if key not in answers:
            module.fail_json(msg="%s: the read failed: %s" % (key, errors.get(key)))
    return answers


def run_many(module, argvs):
    """run_parallel(); their stdout in the order given. Fails like run() for the first command, in
    that order, that exited non-zero, once all of them have finished."""
    return [succeeded(module, argv, result) for argv, result in zip(argvs, run_parallel(argvs))]


def parse(module, parser, *args):
    """Call a parser; a ParseError becomes ``fail_json(msg=...)`` naming the command."""
    try:
        return parser(*args)
    except ParseError as exc:
        module.fail_json(msg=str(exc))
