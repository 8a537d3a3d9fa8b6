#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: file_tails
short_description: The ends of a Mac's state files and logs, for a support bundle
version_added: 0.2.0
description:
  - Reads every file under O(paths) (a file, a directory read recursively, or a glob) and returns the last
    O(max_bytes) of each text file, with its size and modification time; a binary file (a NUL byte in its tail) is
    listed, not returned. Whatever cannot be read (missing, unreadable) is listed with why, never a failure, so a
    support bundle says what it lacks.
  - Read-only. Use C(no_log) on the task; logs may hold what the owner would not publish (the support bundle
    redacts them on the control machine).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  paths:
    description: Files, directories or globs to read.
    type: list
    elements: path
    required: true
  max_bytes:
    description: At most this many bytes from the end of each file.
    type: int
    default: 262144
  max_files:
    description: At most this many files in all (the rest are listed as left out).
    type: int
    default: 400
notes:
  - Run it as root (C(become)) to read root's logs.
"""

EXAMPLES = r"""
- name: The ends of the collection's state files and logs
  macops.cluster.file_tails:
    paths:
      - /Library/Application Support/macops
      - /Library/Logs/macops
      - /etc/pf.anchors/macops*
  become: true
  no_log: true
  register: tails
"""

RETURN = r"""
files:
  description: Per file, C(path), C(size), C(mtime), C(text) (its tail, or null), C(truncated) and C(note) (why there
    is no text, or null).
  returned: always
  type: list
  elements: dict
missing:
  description: Paths or globs that matched nothing, each with why.
  returned: always
  type: list
  elements: dict
"""

import glob
import os

from ansible.module_utils.basic import AnsibleModule


def expand(path):
    """The files `path` names: itself, every file under a directory, or a glob's matches."""
    matches = sorted(glob.glob(path)) if any(c in path for c in "*?[") else ([path] if os.path.lexists(path) else [])
    found = []
    for match in matches:
        if os.path.isdir(match) and not os.path.islink(match):
            for base, dirs, names in os.walk(match):
                dirs.sort()
                found.extend(os.path.join(base, name) for name in sorted(names))
        else:
            found.append(match)
    return found


def tail(path, max_bytes):
    """{path, size, mtime, text, truncated, note} of one file."""
    entry = {"path": path, "size": None, "mtime": None, "text": None, "truncated": False, "note": None}
    try:
        info = os.stat(path)
        entry.update(size=info.st_size, mtime=info.st_mtime)
        with open(path, "rb") as handle:
            if info.st_size > max_bytes:
                handle.seek(info.st_size - max_bytes)
                entry["truncated"] = True
            data = handle.read(max_bytes)
    except (IOError, OSError) as exc:
        entry["note"] = "not readable: %s" % (exc.strerror or exc)
        return entry
    if b"\0" in data:
        entry["note"] = "binary: not copied"
        return entry
    entry["text"] = data.decode("utf-8", "replace")
    return entry


def main():
    module = AnsibleModule(argument_spec=dict(paths=dict(type="list", elements="path", required=True),
                                              max_bytes=dict(type="int", default=262144),
                                              max_files=dict(type="int", default=400)),
                           supports_check_mode=True)
    files, missing, seen = [], [], set()
    for path in module.params["paths"]:
        found = expand(path)
        if not found:
            missing.append({"path": path, "why": "no such file or directory"})
        for name in found:
            if name in seen:
                continue
            seen.add(name)
            if len(files) >= module.params["max_files"]:
                missing.append({"path": name, "why": "left out: more than max_files files"})
                continue
            files.append(tail(name, module.params["max_bytes"]))
    module.exit_json(changed=False, files=files, missing=missing)


if __name__ == "__main__":
    main()
