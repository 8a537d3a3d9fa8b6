# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `lsof -nP -iTCP -sTCP:LISTEN -Fpcn`. Do not use this from other
# collections. Stdlib only, Python 3.9.
"""Parse ``lsof -nP -iTCP -sTCP:LISTEN -Fpcn``: the TCP ports a node listens on, and the process holding each.

lsof's field output (lsof(8), "OUTPUT FOR OTHER PROGRAMS") puts one field per line, its first character
naming it: ``p`` (the process id) starts a process set, ``c`` is its command, ``f`` (the file descriptor,
which lsof adds to the fields asked for) starts a file set, ``n`` is the file's name, for a socket
``ADDRESS:PORT`` (``*:8080`` for every address, ``127.0.0.1:18080``, ``[::1]:631`` for IPv6; -n and -P keep
addresses and ports numeric). lsof exits 1 when no file matched (no TCP listener), printing nothing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

COMMAND = "lsof -nP -iTCP -sTCP:LISTEN -Fpcn"
ARGS = ["-nP", "-iTCP", "-sTCP:LISTEN", "-Fpcn"]
# Where a listener on these addresses takes the port on every address of the node.
EVERY_ADDRESS = ("*", "0.0.0.0", "::")


def parse(text, rc=0, command=COMMAND):
    """[{pid, command, address, port}] in lsof's order, one per process, address and port (a socket listening
    on IPv4 and IPv6 at once is one entry per family). rc 1 with no output: none."""
    if rc not in (0, 1) or (rc == 1 and (text or "").strip()):
        raise ParseError(command, "exit status %s" % rc)
    found, seen = [], set()
    pid, name = None, None
    for number, line in enumerate((text or "").splitlines(), 1):
        if not line:
            continue
        key, value = line[0], line[1:]
        if key == "p":
            if not value.isdigit():
                raise ParseError(command, "line %d: a process id that is not a number: %r" % (number, line))
            pid, name = int(value), None
        elif key == "c":
            name = value
        elif key == "n":
            if pid is None:
                raise ParseError(command, "line %d: a name before any process: %r" % (number, line))
            address, _colon, port = value.rpartition(":")
            if not port.isdigit() or not address:
                raise ParseError(command, "line %d: not ADDRESS:PORT: %r" % (number, line))
            entry = (pid, name, address.strip("[]"), int(port))
            if entry not in seen:
                seen.add(entry)
                found.append({"pid": pid, "command": name, "address": entry[2], "port": entry[3]})
    return found


def holders(listening, port, address=None):
    """The entries holding `port` where a listener on `address` (None: every address) would need it."""
    return [entry for entry in listening or [] if entry["port"] == port and (
        address is None or entry["address"] in EVERY_ADDRESS or entry["address"] == address)]
