# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: a node pulls its model files from its peers over their Thunderbolt cables.
# Stdlib only, Python 3.9.
"""Pull files over the cluster's SSH mesh, in pieces from several parents at once, resumable, verified,
never visible half-written.

A file comes as one or more *pieces* (byte ranges), each from one parent: ``ssh <parent's address on
the shared cable> <python> -c SERVE_PROGRAM ...`` writes the piece's bytes from a position to stdout,
and the puller appends them to the piece's partial file: ``.<name>.macops-partial`` for the piece that
starts the file, ``.<name>.macops-partial@<first byte>`` for a later one. The first piece is hashed as
it lands. When every piece is in, the later pieces are appended to the first one's file, hashing on,
the sha256 is checked, the file synced and renamed to its name: a file under its final name is always
whole and verified. An interrupted pull leaves the partial files; the next run asks only for the rest
of each piece.

A parent that is itself receiving the piece (a relay) serves its partial file of that piece as it
grows, so the child gets each byte moments after the relay does. A relay's partial files may only be
served once that relay has started this run (its ``.macops-run`` marker holds the run id): before
that, an old final file of the same name may still be the corrupt copy the run is about to replace.

Why SSH and not rsync: macOS 15.4+ ships openrsync as /usr/bin/rsync, without options such a transfer
needs, and the mesh's keys and known hosts (every Thunderbolt address) are already in place.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os
import re
import threading
import time

from ansible_collections.macops.cluster.plugins.module_utils._file_digest import hash_prefix

RUN_MARKER = ".macops-run"
PROGRESS_FILE = ".macops-progress.json"
CHUNK = 4 * 1024 * 1024

# Runs on the parent (any Python 3): argv dir name start end pos stall run_id relay. Writes bytes
# start+pos .. end of the file. Exit 0 when they were written; 3 when no byte came for `stall` seconds; 4
# when the parent's final file is shorter than asked (not the file the plan means).
SERVE_PROGRAM = r"""
import os, sys, time
d, name, start, end, pos, stall, run, relay = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5]), float(sys.argv[6]), sys.argv[7], sys.argv[8] == "1"
final = os.path.join(d, name)
piece = os.path.join(d, "." + name + ".macops-partial" + ("@%d" % start if start else ""))
size, out, handle, idle = end - start, sys.stdout.buffer, None, time.time()
def started():
    try:
        with open(os.path.join(d, ".macops-run")) as marker:
            return marker.read().strip() == run
    except OSError:
        return False
def busy():
    # A relay that is receiving other bytes of this run (its progress file moves on) will come to this
    # piece in its own queue's order: waiting for it is no stall.
    try:
        return relay and started() and time.time() - os.path.getmtime(os.path.join(d, ".macops-progress.json")) < stall
    except OSError:
        return False
while pos < size:
    if handle is None:
        for path, base in (((piece, 0), (final, start)) if relay else ((final, start),)):
            if relay and not started():
                break
            try:
                handle = open(path, "rb")
                handle.seek(base + pos)
                break
            except OSError:
                handle = None
        if handle is None:
            if busy():
                idle = time.time()
            elif time.time() - idle > stall:
                sys.exit(3)
            time.sleep(0.05)
            continue
    block = handle.read(min(4194304, size - pos))
    if block:
        out.write(block)
        pos += len(block)
        idle = time.time()
        continue
    if not relay and os.fstat(handle.fileno()).st_size <= start + pos:
        sys.exit(4)
    if busy():
        idle = time.time()
    elif time.time() - idle > stall:
        sys.exit(3)
    time.sleep(0.05)
out.flush()
"""


PARTIAL = re.compile(r"^\.(.+)\.macops-partial(?:@\d+)?$")


def partial_name(name, start=0):
    """The partial file of the piece of `name` that starts at byte `start` (the first piece's is the file's)."""
    return "." + name + ".macops-partial" + ("@%d" % start if start else "")


def partial_owner(name):
    """The file a partial file (of any piece) belongs to, or None: partial_name read back."""
    match = PARTIAL.match(name)
    return match.group(1) if match else None


def piece_of(entry):
    """(start, length) of a pull entry's piece; an entry without them is the whole file."""
    start = entry.get("offset") or 0
    return start, entry.get("length") or entry["size"] - start


def serve_argv(python, directory, entry, pos, stall, run_id, relay):
    """The parent's command line that writes entry's piece from `pos` (bytes into the piece) to stdout."""
    start, length = piece_of(entry)
    return [python, "-c", SERVE_PROGRAM, directory, entry["file"], str(start), str(start + length), str(pos),
            str(stall), run_id, "1" if relay else "0"]


def tiling_errors(entries):
    """What is wrong with the pieces given for each file: they must cover it from byte 0 to its size, each
    byte once, with one size and sha256. [] when every file is tiled."""
    errors, by_file = [], {}
    for entry in entries:
        by_file.setdefault(entry["file"], []).append(entry)
    for name, pieces in sorted(by_file.items()):
        if len(set((p["size"], p["sha256"]) for p in pieces)) > 1:
            errors.append("%s: its pieces give different sizes or sha256" % name)
            continue
        edge = 0
        for start, length in sorted(piece_of(p) for p in pieces):
            if start != edge or length <= 0:
                break
            edge = start + length
        if edge != pieces[0]["size"]:
            errors.append("%s: the pieces do not cover bytes 0 to %d exactly once" % (name, pieces[0]["size"]))
    return errors


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
                try:  # best effort: a progress file that cannot be written (a full disk) must not stop the pull
                    self.writer(self.path, self.snapshot(name))
                except (IOError, OSError):
                    pass

    def snapshot(self, name=None):
        elapsed = max(time.time() - self.started, 1e-6)
        return {"bytes_done": self.done, "bytes_total": self.total, "seconds": round(elapsed, 3),
                "bytes_per_second": int(self.done / elapsed), "file": name}


def _held(path, length):
    """Bytes of a piece its partial file holds; longer than the piece (an assembly cut short, or pieces
    planned differently before) it is cut back to the piece: its first bytes are still the piece's."""
    if not os.path.exists(path):
        return 0
    held = os.path.getsize(path)
    if held > length:
        with open(path, "rb+") as handle:
            handle.truncate(length)
        held = length
    return held


def pull_piece(entry, dest, command_for, run, progress, stall):
    """Pull one piece into its partial file; returns (received, resumed_from, digest). The first piece's
    digest follows the bytes as they land (so the file's check costs no second read of them); later
    pieces are hashed when they are appended to it.

    command_for(entry, pos) -> argv whose stdout is the piece's bytes from pos; run(argv, path) -> (rc,
    stderr) runs it with stdout appended to path."""
    start, length = piece_of(entry)
    path = os.path.join(dest, partial_name(entry["file"], start))
    held = _held(path, length)
    if start:
        digest = None
    else:
        digest, held = hash_prefix(path, held) if held else (hashlib.sha256(), 0)
    received = 0
    if held < length:
        received = _stream(command_for(entry, held), run, path, held, length, digest, progress, entry["file"], stall)
    return received, held, digest


def _assemble(name, size, pieces, dest, digest):
    """Append the later pieces to the first one's partial file, hashing on; (partial path, sha256 hex)."""
    first = os.path.join(dest, partial_name(name))
    with open(first, "ab") as out:
        for entry in pieces[1:]:
            with open(os.path.join(dest, partial_name(name, piece_of(entry)[0])), "rb") as handle:
                while True:
                    block = handle.read(CHUNK)
                    if not block:
                        break
                    digest.update(block)
                    out.write(block)
        out.flush()
        os.fsync(out.fileno())
    if os.path.getsize(first) != size:
        return first, None
    return first, digest.hexdigest()


def _discard(name, pieces, dest):
    for entry in pieces:
        path = os.path.join(dest, partial_name(name, piece_of(entry)[0]))
        if os.path.exists(path):
            os.remove(path)


def finish_file(pieces, dest, digest, again):
    """Assemble a file whose pieces are all in, check it and rename it to its name; when it does not hash
    right, pull every piece again once (again(entry) -> (received, resumed, digest)). Returns the bytes
    received for the second try. A relay's children may still be reading the later pieces' partial files:
    they go only after the rename, when the final file serves the same bytes."""
    name, size, want = pieces[0]["file"], pieces[0]["size"], pieces[0]["sha256"]
    extra = 0
    for attempt in (1, 2):
        first, found = _assemble(name, size, pieces, dest, digest)
        if found == want:
            os.rename(first, os.path.join(dest, name))
            _discard(name, pieces[1:], dest)
            return extra
        _discard(name, pieces, dest)
        if attempt == 2:
            break
        for entry in pieces:
            received, _resumed, piece_digest = again(entry)
            extra += received
            digest = piece_digest if piece_digest is not None else digest
    raise PullError("%s from %s: the bytes received twice do not have the sha256 the plan gives (%s): a parent's "
                    "copy is not the source's" % (name, ", ".join(sorted(set(p["parent"] for p in pieces))), want))


def _stream(argv, run, partial, offset, size, digest, progress, name, stall):
    """Append the command's stdout to the partial file from offset up to size; returns the bytes received.
    A follower thread hashes the file's new bytes as they land (when given a digest) and counts them for
    the progress file."""
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
                    if digest is not None:
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
        cause = {3: "no byte came for %s s" % stall, 4: "the parent's file is shorter than asked"}.get(
            rc, "rc %s: %s" % (rc, (stderr or "").strip()[-300:] or "no output"))
        raise PullError("%s: %d of %d bytes of the piece arrived (%s)" % (name, seen[0], size, cause))
    return seen[0] - offset


class _Files(object):
    """Which pieces of each file are in; the thread that brings a file's last piece finishes the file."""

    def __init__(self, entries):
        self.pieces, self.left, self.digest, self.outcome = {}, {}, {}, {}
        for entry in entries:
            self.pieces.setdefault(entry["file"], []).append(entry)
        for name, pieces in self.pieces.items():
            pieces.sort(key=lambda entry: piece_of(entry)[0])
            self.left[name] = len(pieces)
            self.outcome[name] = {"file": name, "parent": pieces[0]["parent"],
                                  "parents": sorted(set(p["parent"] for p in pieces)), "pieces": len(pieces),
                                  "received": 0, "resumed_from": 0, "started": None}
        self.lock = threading.Lock()

    def landed(self, entry, received, resumed, digest, started):
        """Count a piece in; True when it was the file's last."""
        name = entry["file"]
        with self.lock:
            outcome = self.outcome[name]
            outcome["received"] += received
            outcome["resumed_from"] += resumed
            outcome["started"] = min(started, outcome["started"] or started)
            if digest is not None:
                self.digest[name] = digest
            self.left[name] -= 1
            return self.left[name] == 0


def pull_all(entries, dest, command_for, run, progress, stall):
    """Pull every piece: one queue per parent in the order given, the queues at once. A file whose last piece
    lands is finished (assembled, checked, renamed) in a thread of its own, so that queue's cable goes on
    with its next piece meanwhile. Returns (done, errors): done per file {file, parent, parents, pieces,
    received, resumed_from, seconds}."""
    queues = {}
    for entry in entries:
        queues.setdefault(entry["parent"], []).append(entry)
    files, done, errors, lock, finishers = _Files(entries), [], [], threading.Lock(), []

    def again(entry):
        return pull_piece(entry, dest, command_for, run, progress, stall)

    def failed(exc):
        with lock:
            errors.append("%s" % exc if isinstance(exc, (PullError, IOError, OSError))
                          else "%s: %r" % (type(exc).__name__, exc))

    def finish(name):
        try:
            extra = finish_file(files.pieces[name], dest, files.digest[name], again)
        except BaseException as exc:  # noqa: B036 a thread must hand every failure on, SystemExit included
            failed(exc)
            return
        outcome = dict(files.outcome[name])
        outcome.update(received=outcome["received"] + extra, seconds=round(time.time() - outcome.pop("started"), 3))
        with lock:
            done.append(outcome)

    def work(queue):
        for entry in queue:
            started = time.time()
            try:
                received, resumed, digest = pull_piece(entry, dest, command_for, run, progress, stall)
            except BaseException as exc:  # noqa: B036 a thread must hand every failure on, SystemExit included
                failed(exc)
                return
            if files.landed(entry, received, resumed, digest, started):
                finisher = threading.Thread(target=finish, args=(entry["file"],))
                with lock:
                    finishers.append(finisher)
                finisher.start()

    threads = [threading.Thread(target=work, args=(queue,)) for _parent, queue in sorted(queues.items())]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for finisher in finishers:
        finisher.join()
    finished = set(outcome["file"] for outcome in done)
    if not errors:  # a file neither finished nor failed would be a bug here: never report it as deployed
        errors.extend("%s: not finished" % name for name in sorted(files.pieces) if name not in finished)
    return done, errors
