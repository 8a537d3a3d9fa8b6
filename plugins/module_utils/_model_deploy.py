# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what a node's model directory holds, and making it hold exactly its files.
# Stdlib only, Python 3.9.
"""The node side of a deployment: ``inventory`` (read only) and ``present``.

``inventory`` tells the controller, for each file the node must hold, whether it is there and right
(size and sha256, the digest remembered by size and mtime), a partial file (and how much of it), wrong
or missing, and which other files are there. The controller plans the transfers from every node's
inventory, so nothing is sent to a node that holds it, and checks what each node still needs against
its free disk (node_facts' df read of the volume) before any byte moves.

``present`` removes the wrong files, marks the run, takes what it can from a local source (a hard link
on the same volume, else a copy), pulls the rest from its parents, and removes the files that are not
the node's (a source directory given as the destination is never pruned).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import tempfile

from ansible_collections.macops.cluster.plugins.module_utils._file_digest import digests
from ansible_collections.macops.cluster.plugins.module_utils._model_pull import (
    PROGRESS_FILE, RUN_MARKER, partial_name)

OWN_FILES = (RUN_MARKER, PROGRESS_FILE)


def _partial_of_wanted(name, wanted):
    """A partial file of a file the node must hold: kept, the next pull resumes from it."""
    suffix = ".macops-partial"
    return name.startswith(".") and name.endswith(suffix) and name[1:-len(suffix)] in wanted


def inventory(dest, files, cache):
    """{files: {name: {state, bytes}}, extra: [names], missing_bytes}.

    files: [{file, size, sha256}]. state is ok, wrong (size or sha256 differ), partial (bytes held) or
    missing; missing_bytes is what the node still needs, partial bytes counted as held."""
    wanted = dict((entry["file"], entry) for entry in files)
    present = set(os.listdir(dest)) if os.path.isdir(dest) else set()
    sized = [os.path.join(dest, name) for name in sorted(wanted)
             if name in present and os.path.getsize(os.path.join(dest, name)) == wanted[name]["size"]]
    found, _hashed = digests(sized, cache)
    states, missing = {}, 0
    for name, entry in sorted(wanted.items()):
        path = os.path.join(dest, name)
        partial = partial_name(name)
        if path in found and found[path] == entry["sha256"]:
            states[name] = {"state": "ok", "bytes": entry["size"]}
            continue
        held = os.path.getsize(os.path.join(dest, partial)) if partial in present else 0
        held = held if held <= entry["size"] else 0
        if name in present:
            states[name] = {"state": "wrong", "bytes": 0}
        else:
            states[name] = {"state": "partial" if held else "missing", "bytes": held}
        missing += entry["size"] - held
    extra = sorted(name for name in present if name not in wanted and name not in OWN_FILES
                   and not _partial_of_wanted(name, wanted))
    return {"files": states, "extra": extra, "missing_bytes": missing}


def write_json(path, document):
    directory = os.path.dirname(path)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    with os.fdopen(handle, "w") as stream:
        json.dump(document, stream)
    os.rename(temporary, path)


def mark_run(dest, run_id):
    """Write the run marker after the wrong files are gone: relays' children may now read this node's files."""
    path = os.path.join(dest, RUN_MARKER)
    with open(path + ".tmp", "w") as handle:
        handle.write(run_id + "\n")
    os.rename(path + ".tmp", path)


def link_or_copy(source, dest, name):
    """Put source/name at dest/name: a hard link on the same volume, else a copy through the partial name."""
    target, partial = os.path.join(dest, name), os.path.join(dest, partial_name(name))
    try:
        os.link(os.path.join(source, name), partial)
    except OSError:
        shutil.copyfile(os.path.join(source, name), partial)
    os.rename(partial, target)


def prune(dest, wanted):
    """Remove the files of dest that are not wanted (stale partial files of unwanted files too); their names."""
    removed = []
    for name in sorted(os.listdir(dest)):
        path = os.path.join(dest, name)
        if name in wanted or name in OWN_FILES or not os.path.isfile(path):
            continue
        if _partial_of_wanted(name, wanted):
            continue
        os.remove(path)
        removed.append(name)
    return removed
