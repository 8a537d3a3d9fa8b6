# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: a node pulls its model files from its peers over their Thunderbolt cables.
# Stdlib only, Python 3.9.
"""Pull files over the cluster's SSH mesh, resumable, verified, never visible half-written.

The bytes of one file come from one parent: ``ssh <parent's address on the shared cable> <python> -c
SERVE_PROGRAM ...`` writes the file's bytes from an offset to stdout, and the puller appends them to
``.<name>.macops-partial`` in the destination while hashing them. At the expected size the sha256 is
checked, the file synced and renamed to its name: a file under its final name is always whole and
verified. An interrupted pull leaves the partial file; the next run hashes what it holds and asks only
for the rest.

A parent that is itself receiving the file (a relay) serves its partial file as it grows, so the child
gets each byte moments after the relay does. A relay's partial file may only be served once that relay
has started this run (its ``.macops-run`` marker holds the run id): before that, an old final file of
the same name may still be the corrupt copy the run is about to replace.

Why SSH and not rsync: macOS 15.4+ ships openrsync as /usr/bin/rsync, without options such a transfer
needs, and the mesh's keys and known hosts (every Thunderbolt address) are already in place.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os
import threading
import time

RUN_MARKER = ".macops-run"
PROGRESS_FILE = ".macops-progress.json"
CHUNK = 4 * 1024 * 1024

# Runs on the parent (any Python 3): argv dir name size offset stall run_id relay.
# Exit 0 when `size` bytes from `offset` were written; 3 when no byte came for `stall` seconds; 4 when the
# parent's final file is shorter than asked (not the file the plan means).
SERVE_PROGRAM = r"""
import os, sys, time
d, name, size, pos, stall, run, relay = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    float(sys.argv[5]), sys.argv[6], sys.argv[7] == "1"
final, partial = os.path.join(d, name), os.path.join(d, "." + name + ".macops-partial")
out, handle, idle = sys.stdout.buffer, None, time.time()
def started():
    try:
        with open(os.path.join(d, ".macops-run")) as marker:
            return marker.read().strip() == run
    except OSError:
        return False
while pos < size:
    if handle is None:
        for path in ((partial, final) if relay else (final,)):
            if relay and not started():
                break
            try:
                handle = open(path, "rb")
                handle.seek(pos)
                break
            except OSError:
                handle = None
        if handle is None:
            if time.time() - idle > stall:
                sys.exit(3)
            time.sleep(0.05)
            continue
    block = handle.read(min(4194304, size - pos))
    if block:
        out.write(block)
        pos += len(block)
        idle = time.time()
        continue
    if not relay and os.fstat(handle.fileno()).st_size <= pos:
        sys.exit(4)
    if time.time() - idle > stall:
        sys.exit(3)
    time.sleep(0.05)
out.flush()
"""


def partial_name(name):
    return "." + name + ".macops-partial"


def serve_argv(python, directory, name, size, offset, stall, run_id, relay):
    return [python, "-c", SERVE_PROGRAM, directory, name, str(size), str(offset), str(stall), run_id,
            "1" if relay else "0"]


def _quote(word):
    """POSIX shell quoting for the remote command line ssh hands to the peer's shell."""
    return "'" + word.replace("'", "'\"'\"'") + "'"


def control_options(directory):
    """Options that let every pull from one parent share one SSH connection (a file costs no handshake):
    the first session opens a master at directory/%C; close_masters() ends them when the pulls are done (and
    a master left by a killed run ends itself a minute after its last session)."""
    return ["-o", "ControlMaster=auto", "-o", "ControlPath=%s/%%C" % directory, "-o", "ControlPersist=60"]


def close_masters(ssh, directory, addresses, run):
    """End the shared connections this run opened (ssh -O exit), one per parent address."""
    for address in sorted(set(addresses)):
        run([ssh, "-o", "ControlPath=%s/%%C" % directory, "-O", "exit", address])


def ssh_argv(ssh, address, remote_argv, connect_timeout=10, options=()):
    """ssh to the parent's cable address; a cable that goes dark ends the connection within 15 s (keepalives)
    instead of TCP's minutes, so the pull fails and the next run resumes. AES-GCM first: CPUs with AES
    instructions (Apple Silicon's, x86's AES-NI) encrypt it several times faster than ChaCha20, OpenSSH's
    usual first choice, and the cipher is what limits one SSH stream on a fast cable."""
    return ([ssh, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "ConnectTimeout=%d" % connect_timeout,
             "-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3",
             "-o", "Ciphers=aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com", "-x", "-a"]
            + list(options) + [address, " ".join(_quote(w) for w in remote_argv)])


class PullError(RuntimeError):
    """A file that could not be pulled whole and right; the message names it, the parent and the cause."""


class Progress(object):
    """Bytes received so far across the node's pulls (thread-safe), written now and then to a JSON file."""

    def __init__(self, total, path=None, writer=None):
        self.total, self.done, self.started = total, 0, time.time()
        self.path, self.writer, self.lock, self.last = path, writer, threading.Lock(), 0.0

    def add(self, count, name):
        with self.lock:
            self.done += count
            now = time.time()
            if self.writer and self.path and now - self.last >= 1.0:
                self.last = now
                self.writer(self.path, self.snapshot(name))

    def snapshot(self, name=None):
        elapsed = max(time.time() - self.started, 1e-6)
        return {"bytes_done": self.done, "bytes_total": self.total, "seconds": round(elapsed, 3),
                "bytes_per_second": int(self.done / elapsed), "file": name}


def hash_prefix(path, size):
    """(sha256 object, bytes) over the first `size` bytes of a partial file (all of it when shorter)."""
    digest, done = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while done < size:
            block = handle.read(min(CHUNK, size - done))
            if not block:
                break
            digest.update(block)
            done += len(block)
    return digest, done


def pull_file(entry, dest, command_for, run, progress, stall):
    """Pull one file into dest; returns {file, parent, received, resumed_from, seconds}.

    entry: {file, size, sha256, parent, address, ...}; command_for(entry, offset) -> argv whose stdout is the
    file's bytes from offset; run(argv, path) -> (rc, stderr) runs it with stdout appended to path. The
    digest follows the file as it grows, so the next file's pull starts as soon as this one's last byte is
    in. One retry from zero when it does not hash right."""
    name, size = entry["file"], entry["size"]
    final, partial = os.path.join(dest, name), os.path.join(dest, partial_name(name))
    started, resumed, received = time.time(), 0, 0
    for attempt in (1, 2):
        offset = os.path.getsize(partial) if os.path.exists(partial) else 0
        if offset > size:
            os.remove(partial)
            offset = 0
        if attempt == 1:
            resumed = offset
        digest, offset = hash_prefix(partial, offset) if offset else (hashlib.sha256(), 0)
        if offset < size:
            received += _stream(command_for(entry, offset), run, partial, offset, size, digest, progress, name, stall)
        if digest.hexdigest() == entry["sha256"]:
            with open(partial, "rb+") as handle:
                os.fsync(handle.fileno())
            os.rename(partial, final)
            return {"file": name, "parent": entry["parent"], "received": received, "resumed_from": resumed,
                    "seconds": round(time.time() - started, 3)}
        os.remove(partial)
    raise PullError("%s from %s (%s): the bytes received twice do not have the sha256 the plan gives (%s): the "
                    "parent's copy is not the source's" % (name, entry["parent"], entry["address"], entry["sha256"]))


def _stream(argv, run, partial, offset, size, digest, progress, name, stall):
    """Append the command's stdout to the partial file from offset up to size; returns the bytes received.
    A follower thread hashes the file's new bytes as they land and counts them for the progress file."""
    if not os.path.exists(partial):
        open(partial, "ab").close()
    done = threading.Event()
    seen = [offset]

    def follow():
        with open(partial, "rb") as handle:
            handle.seek(offset)
            while True:
                finished = done.is_set()
                while seen[0] < size:
                    block = handle.read(min(CHUNK, size - seen[0]))
                    if not block:
                        break
                    digest.update(block)
                    seen[0] += len(block)
                    progress.add(len(block), name)
                if finished or seen[0] >= size:
                    return
                done.wait(0.05)

    follower = threading.Thread(target=follow)
    follower.start()
    try:
        rc, stderr = run(argv, partial)
    finally:
        done.set()
        follower.join()
    if seen[0] < size:
        cause = {3: "no byte came for %s s" % stall, 4: "the parent's file is shorter than %d bytes" % size}.get(
            rc, "rc %s: %s" % (rc, (stderr or "").strip()[-300:] or "no output"))
        raise PullError("%s: %d of %d bytes arrived (%s)" % (name, seen[0], size, cause))
    return seen[0] - offset


def pull_all(entries, dest, command_for, run, progress, stall):
    """Pull every entry: one queue per parent in the order given, the queues at once. Returns (done, errors)."""
    queues = {}
    for entry in entries:
        queues.setdefault(entry["parent"], []).append(entry)
    done, errors, lock = [], [], threading.Lock()

    def work(queue):
        for entry in queue:
            try:
                outcome = pull_file(entry, dest, command_for, run, progress, stall)
            except (PullError, IOError, OSError) as exc:
                with lock:
                    errors.append("%s" % exc)
                return
            with lock:
                done.append(outcome)

    threads = [threading.Thread(target=work, args=(queue,)) for _parent, queue in sorted(queues.items())]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done, errors
