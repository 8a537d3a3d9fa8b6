# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what a node's model directory holds, and making it hold exactly its files.
# Stdlib only, Python 3.9.
"""The node side of a deployment: ``inventory`` (read only), ``present`` and ``absent``.

``inventory`` tells the controller, for each file the node must hold, whether it is there and right
(size and sha256, the digest remembered by size and mtime), partial (the bytes its pieces' partial files hold), wrong
or missing, and which other files are there. The controller plans the transfers from every node's
inventory, so nothing is sent to a node that holds it, and checks what each node still needs against
its free disk (node_facts' df read of the volume) before any byte moves.

``present`` removes the wrong files, marks the run, takes what it can from a local source (a hard link
on the same volume, else a copy), pulls the rest from its parents, and removes the files that are not
the node's (a source directory given as the destination is never pruned).

``absent`` removes a model's directories, each of which must lie inside the models directory: what
``removal`` finds there (with its bytes) is what ``remove`` deletes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fcntl
import json
import os
import shutil
import tempfile

from ansible_collections.macops.cluster.plugins.module_utils._file_digest import digests
from ansible_collections.macops.cluster.plugins.module_utils._model_pull import (
    PROGRESS_FILE, RUN_MARKER, partial_name, partial_owner)

# The deployment's record beside the files: what the node holds and why (its rank, its layers, the
# runtime). site.yml's health report and doctor.yml read it with node_facts' models group.
MANIFEST = ".macops-model.json"
# Held (flock) by the run that pulls into the directory: a second run at once would append to the same
# partial files.
LOCK_FILE = ".macops-lock"
OWN_FILES = (RUN_MARKER, PROGRESS_FILE, MANIFEST, LOCK_FILE)


def _partial_of_wanted(name, wanted, dest):
    """A partial file of a file the node must hold and does not have yet: kept, the next pull resumes from
    it. Once the file is there (a run cut short between its rename and the clean-up) it is a leftover."""
    owner = partial_owner(name)
    return owner in wanted and not os.path.exists(os.path.join(dest, owner))


def inventory(dest, files, cache):
    """{files: {name: {state, bytes}}, extra: [names], missing_bytes}.

    files: [{file, size, sha256}]. state is ok, wrong (size or sha256 differ), partial (bytes held) or
    missing; missing_bytes is what the node still needs, partial bytes counted as held."""
    wanted = dict((entry["file"], entry) for entry in files)
    present = set(os.listdir(dest)) if os.path.isdir(dest) else set()
    sized = [os.path.join(dest, name) for name in sorted(wanted)
             if name in present and os.path.getsize(os.path.join(dest, name)) == wanted[name]["size"]]
    found, _hashed = digests(sized, cache)
    pieces = [(partial_owner(name), os.path.getsize(os.path.join(dest, name))) for name in present if partial_owner(name)]
    states, missing = {}, 0
    for name, entry in sorted(wanted.items()):
        path = os.path.join(dest, name)
        if path in found and found[path] == entry["sha256"]:
            states[name] = {"state": "ok", "bytes": entry["size"]}
            continue
        held = min(sum(size for owner, size in pieces if owner == name), entry["size"])
        if name in present:
            states[name] = {"state": "wrong", "bytes": 0}
        else:
            states[name] = {"state": "partial" if held else "missing", "bytes": held}
        missing += entry["size"] - held
    extra = sorted(name for name in present if name not in wanted and name not in OWN_FILES
                   and not _partial_of_wanted(name, wanted, dest))
    return {"files": states, "extra": extra, "missing_bytes": missing}


def hold_lock(dest):
    """The directory's lock, held until the process ends (the open file returned), or None when another run
    holds it."""
    handle = open(os.path.join(dest, LOCK_FILE), "a")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (IOError, OSError):
        handle.close()
        return None
    return handle


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
        if _partial_of_wanted(name, wanted, dest):
            continue
        os.remove(path)
        removed.append(name)
    return removed


def manifest_of(manifest, files):
    """The record written beside the files: the deployment's own fields and every file with size and sha256."""
    document = dict(manifest)
    document["files"] = [{"file": entry["file"], "size": entry["size"], "sha256": entry["sha256"]}
                         for entry in sorted(files, key=lambda entry: entry["file"])]
    return document


def write_manifest(dest, document, check_mode):
    """Write the record unless it already says this; True when it changed (or would, in check mode)."""
    path = os.path.join(dest, MANIFEST)
    try:
        with open(path) as handle:
            if json.load(handle) == document:
                return False
    except (IOError, OSError, ValueError):
        pass
    if not check_mode:
        write_json(path, document)
    return True


def _bytes_under(path):
    """The bytes of the files under path (its own size for a file; a symbolic link counts nothing)."""
    if os.path.islink(path) or not os.path.isdir(path):
        return 0 if os.path.islink(path) else os.path.getsize(path)
    total = 0
    for directory, _dirs, files in os.walk(path):
        for name in files:
            entry = os.path.join(directory, name)
            if not os.path.islink(entry):
                total += os.path.getsize(entry)
    return total


def _record(path):
    """The deployment record in path, {} when it has none or one that does not parse."""
    try:
        with open(os.path.join(path, MANIFEST)) as handle:
            document = json.load(handle)
        return document if isinstance(document, dict) else {}
    except (IOError, OSError, ValueError):
        return {}


def removal(root, paths, deployed=()):
    """([(path, bytes)] of those of ``paths`` that exist, in order; [paths kept]). Each path must lie inside
    ``root`` (its parent resolved, so a link in the path cannot lead out), not be ``root`` and not be named with
    a leading dot (.hub, .controller hold the sources). Those of ``deployed`` must be deployments (a record or a
    run marker in them), and one deployed in place (its record says so: the owner's own source) is kept.
    ValueError names a path that breaks a rule, before anything is removed."""
    real_root = os.path.realpath(root)
    deployed = set(entry.rstrip("/") for entry in deployed)
    found, kept = [], []
    for path in paths:
        path = path.rstrip("/")
        name = os.path.basename(path)
        parent = os.path.realpath(os.path.dirname(path))
        if name.startswith(".") or not name or not (parent == real_root or parent.startswith(real_root + os.sep)):
            raise ValueError("%s is not a model directory inside %s; nothing was removed" % (path, root))
        target = os.path.join(parent, name)
        if not os.path.lexists(target):
            continue
        if path in deployed:
            if not os.path.isdir(target) or not any(os.path.exists(os.path.join(target, own))
                                                    for own in (MANIFEST, RUN_MARKER)):
                raise ValueError("%s holds no deployment record (%s): deploy-model.yml did not put it there; "
                                 "nothing was removed" % (target, MANIFEST))
            if _record(target).get("in_place"):
                kept.append(target)
                continue
        found.append((target, _bytes_under(target)))
    return found, kept


def remove(path):
    """Delete a model directory (a link or a file: itself only)."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def deployed_models(directories):
    """Each model directory under `directories` that holds a deployment record, checked by name and size
    only (no hashing, so a read stays cheap enough to run every few minutes):
    [{path, name, runtime, rank, ranks, layers, ..., files, bytes, missing, wrong_size, complete, recorded_at}]
    (recorded_at: the record's mtime, when a deployment last changed it: serving's "deployed last").
    A record that cannot be read is listed with its error."""
    models = []
    for directory in directories:
        names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
        for name in names:
            path = os.path.join(directory, name)
            record = os.path.join(path, MANIFEST)
            if not os.path.isfile(record):
                continue
            try:
                with open(record) as handle:
                    document = json.load(handle)
                files = document.pop("files")
                sizes = dict((entry["file"], int(entry["size"])) for entry in files)
            except (IOError, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                models.append({"path": path, "error": "%s: %s" % (record, exc), "complete": False})
                continue
            missing, wrong = [], []
            for file_name, size in sorted(sizes.items()):
                try:
                    if os.path.getsize(os.path.join(path, file_name)) != size:
                        wrong.append(file_name)
                except OSError:
                    missing.append(file_name)
            entry = dict(document, path=path, files=len(sizes), bytes=sum(sizes.values()), missing=missing,
                         wrong_size=wrong, complete=not missing and not wrong,
                         recorded_at=int(os.path.getmtime(record)))
            models.append(entry)
    return models
