# -*- coding: utf-8 -*-
# PRIVATE to the collection: how node modules find and run macOS commands.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Run macOS commands from a module and turn their failures into ``fail_json``.

Binaries are looked up with ``opt_dirs`` first because a non-interactive SSH session has a
minimal PATH (ansible/ansible#12063) and Homebrew can shadow system tools.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

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
    "sysctl": ["/usr/sbin"],
    "softwareupdate": ["/usr/sbin"],
    "sudo": ["/usr/bin"],
    # Homebrew's, on Apple silicon and then on Intel Macs.
    "iperf3": ["/opt/homebrew/bin", "/usr/local/bin"],
}


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


def run(module, argv):
    """Run argv (no shell); fail the module with the command's stderr on a non-zero exit."""
    return succeeded(module, argv, module.run_command(argv))


def run_parallel(module, argvs):
    """Run independent read-only commands at once (threads: networksetup, system_profiler and
    friends each take a noticeable fraction of a second); their (rc, stdout, stderr) in the order
    given. None stands for a command that is not there (argv None). A command that cannot start
    gives exit status 127 with the error as stderr: run_command's own handling would call
    fail_json inside the thread, where it cannot end the module."""
    results = [None] * len(argvs)

    def one(index):
        try:
            results[index] = module.run_command(argvs[index], handle_exceptions=False)
        except OSError as exc:
            results[index] = (127, "", "cannot run %s: %s" % (argvs[index][0], exc))

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
    return [succeeded(module, argv, result) for argv, result in zip(argvs, run_parallel(module, argvs))]


def parse(module, parser, *args):
    """Call a parser; a ParseError becomes ``fail_json(msg=...)`` naming the command."""
    try:
        return parser(*args)
    except ParseError as exc:
        module.fail_json(msg=str(exc))
