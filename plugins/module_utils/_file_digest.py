# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: sha256 of large files, in parallel, remembered by size and mtime.
# Stdlib only, Python 3.9.
"""A model is hundreds of gigabytes: hashing it takes minutes, so each digest is remembered in a cache
file (path -> size, mtime_ns, sha256) and reused while the file's size and mtime are unchanged. hashlib
releases the GIL on large updates, so threads hash several files at once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor

CHUNK = 8 * 1024 * 1024


def hash_prefix(path, size=None, chunk=CHUNK):
    """(sha256 object, bytes hashed) over the first `size` bytes of a file (all of it when shorter, or when
    size is None); the object goes on hashing what comes next (a partial file that grows)."""
    digest, done = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while size is None or done < size:
            block = handle.read(chunk if size is None else min(chunk, size - done))
            if not block:
                break
            digest.update(block)
            done += len(block)
    return digest, done


def sha256_of(path):
    return hash_prefix(path)[0].hexdigest()


def load_cache(path):
    """The cache's entries; an absent or unreadable cache is empty (it only saves time)."""
    try:
        with open(path) as handle:
            entries = json.load(handle)
    except (IOError, OSError, ValueError):
        return {}
    return entries if isinstance(entries, dict) else {}


def save_cache(path, entries):
    """Write the cache atomically (a temporary file in the same directory, then a rename)."""
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        os.makedirs(directory, 0o700)
    handle, temporary = tempfile.mkstemp(prefix=".sha256-cache.", dir=directory)
    with os.fdopen(handle, "w") as stream:
        json.dump(entries, stream, sort_keys=True)
    os.rename(temporary, path)


def _stamp(path):
    info = os.stat(path)
    return info.st_size, getattr(info, "st_mtime_ns", int(info.st_mtime * 1e9))


def digests(paths, cache, workers=4):
    """{path: sha256} of every path, from `cache` where the size and mtime still match; `cache` is updated
    in place. Returns (digests, hashed): the paths that had to be read."""
    result, todo = {}, []
    for path in paths:
        size, mtime = _stamp(path)
        entry = cache.get(path)
        if isinstance(entry, dict) and entry.get("size") == size and entry.get("mtime_ns") == mtime:
            result[path] = entry["sha256"]
        else:
            todo.append((path, size, mtime))
    if todo:
        with ThreadPoolExecutor(max_workers=max(1, min(workers, len(todo)))) as pool:
            for (path, size, mtime), value in zip(todo, pool.map(lambda item: sha256_of(item[0]), todo)):
                result[path] = value
                cache[path] = {"size": size, "mtime_ns": mtime, "sha256": value}
    return result, [item[0] for item in todo]
