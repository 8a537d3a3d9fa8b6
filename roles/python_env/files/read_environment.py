# -*- coding: utf-8 -*-
# PRIVATE to the collection: the python_env role's read of an interpreter and its environment.
# Stdlib only. Runs under the interpreter it reads, whatever its version, so no syntax newer
# than Python 3.6 and no import of Ansible.
"""Print one JSON line: {"python": version, "packages": {name: {"version": v, "extras": {extra:
[names it requires]}}}, "venv": the same for another Python ({} when it does not run)}.

The python_env role does not run this as a module: it must run under the interpreter being read
(Homebrew's, uv's, a path) and under the environment's Python, not under Ansible's, and one `raw`
command (`<interpreter> -c <this file> <venv python> <this file>`) reads both without a module's
start-up on every node. The role reads this file's text with a `file` lookup
(roles/python_env/vars/main.yml, _python_env_read_script).

The extras let pip_unmet tell whether mlx[cpu] is complete. importlib.metadata is 3.8+; an older
Python still reports its version, so the role can say it is too old.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import json
import platform
import re
import subprocess
import sys

EXTRA_MARKER = re.compile(r"extra\s*==\s*[\"']([^\"']+)[\"']")
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9._-]+")
# How long the environment's Python may take to list its distributions.
VENV_TIMEOUT = 120


def requirement_extras(requirements):
    """{extra: [requirement names]} from a distribution's Requires-Dist lines."""
    found = {}
    for requirement in requirements or []:
        extra = EXTRA_MARKER.search(requirement)
        if extra:
            found.setdefault(extra.group(1), []).append(REQUIREMENT_NAME.match(requirement).group(0))
    return found


def installed(metadata):
    """{name: {version, extras}} of every distribution `metadata` (importlib.metadata) finds."""
    if metadata is None:
        return {}
    return dict((dist.metadata["Name"], {"version": dist.version, "extras": requirement_extras(dist.requires)})
                for dist in metadata.distributions() if dist.metadata["Name"])


def read_other(python, script, run=subprocess.run):
    """What `python -c script` prints as JSON, {} when it does not run or prints something else."""
    try:
        proc = run([python, "-c", script], stdout=subprocess.PIPE, universal_newlines=True, timeout=VENV_TIMEOUT,
                   check=False)
        if proc.returncode == 0:
            return json.loads(proc.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        pass
    return {}


def read(argv):
    """This interpreter's version and distributions; with argv [_, python, script], that Python's too."""
    metadata = importlib.import_module("importlib.metadata") if sys.version_info >= (3, 8) else None
    result = {"python": platform.python_version(), "packages": installed(metadata)}
    if len(argv) > 2:
        result["venv"] = read_other(argv[1], argv[2])
    return result


def main():
    print(json.dumps(read(sys.argv)))


if __name__ == "__main__":
    main()
