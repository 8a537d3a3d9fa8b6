# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: which node pulls which file from which peer, over which cable.
"""The transfer plan of a model deployment: every byte a node needs crosses one cable once, and the
load is spread over every cable.

Whole files balance the cables only to within a file (16 files over 3 cables leave one cable a file
ahead), so the smallest few files that several nodes need are cut into *pieces*, as many as the most
cables any node has (the stripes), none under MIN_PIECE; their pieces go last and fill the gaps to
within a piece. The cut depends only on the file sizes, the cabling and who needs each file, so a
resumed run cuts the same way and its partial pieces still fit.

Each node pulls each piece it lacks from one *parent*: the source, a node that already holds a good
copy, or a node that is itself receiving the piece (it serves the bytes as they arrive, so a relay
costs a moment's head start, not a piece's time). Parents are chosen piece by piece, largest first, as
the end of the least-loaded cable into the receiver, among nodes that hold the file or already have a
parent for the piece. For full replicas from one node of a 4-node mesh this gives the striped relay:
the source sends each piece to one neighbour, which forwards it to the other two, and each cable
carries a third of the model to within a piece, so the copy takes D / 3B where parallel direct copies
take D / B. For per-rank shards each rank's own files come straight over its
own cable, the shared files (embeddings, head) by relay.

Queues: a node pulls from each parent in the global piece order (largest first), one piece at a time
per parent and several parents at once. Every piece's tree is rooted at holders and every queue keeps
the same order, so no two nodes can wait on each other.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


MIN_PIECE = 8 * 1024 * 1024


class TransferError(ValueError):
    """No transfer plan: a node needs a file no path of cables can bring it."""


def _natural(text):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(text))]


def cable_ends(cables):
    """{(parent, child): (parent's address on that cable, link_id)} for both directions of every cable."""
    ends = {}
    for cable in cables:
        ends[(cable["a"], cable["b"])] = (cable["a_ip"], cable["link_id"])
        ends[(cable["b"], cable["a"])] = (cable["b_ip"], cable["link_id"])
    return ends


def piece_bounds(size, stripes, minimum=MIN_PIECE):
    """[(offset, length)]: a file cut into `stripes` pieces of (nearly) equal length, none under `minimum`."""
    if size <= 0:
        return [(0, 0)]
    count = max(1, min(stripes, size // minimum))
    step = -(-size // count)
    return [(offset, min(step, size - offset)) for offset in range(0, size, step)]


def _stripes(cables):
    degree = {}
    for cable in cables:
        for end in (cable["a"], cable["b"]):
            degree[end] = degree.get(end, 0) + 1
    return max(degree.values()) if degree else 1


def pieces_of(files, needs, cables):
    """[(name, offset, length)], largest first. Whole files balance the cables only to within a file, so the
    smallest files several nodes need (as many as the stripes, each at least two MIN_PIECE) are cut into
    stripes: their pieces come last and fill the gaps to within a piece. Only a few files are cut: each
    piece costs a session and the file's assembly, and large files gain nothing from a cut."""
    stripes = _stripes(cables)
    shared = [name for name in files if files[name]["size"] >= 2 * MIN_PIECE
              and sum(1 for names in needs.values() if name in names) > 1]
    cut = set(sorted(shared, key=lambda name: (files[name]["size"], _natural(name)))[:stripes])
    pieces = []
    for name, entry in files.items():
        for offset, length in piece_bounds(entry["size"], stripes if name in cut else 1):
            pieces.append((name, offset, length))
    return sorted(pieces, key=lambda piece: (-piece[2], _natural(piece[0]), piece[1]))


def transfer_plan(files, needs, holders, cables):
    """Who pulls what from whom.

    files: {name: {size, sha256}}; needs: {host: [names it must end up with]} for the receiving nodes (the
    cut into pieces counts them, whatever they hold already); holders: {host: [names it already holds,
    verified]} (the source holds them all); cables: [{link_id, a, b, a_ip, b_ip}].

    Returns {pulls: {host: [{file, size, sha256, offset, length, parent, address, link_id}]} in pull order
    (a piece per entry), link_bytes: {"parent>child": bytes}, wire_bytes, missing_bytes: {host: bytes},
    max_link_bytes}."""
    ends = cable_ends(cables)
    load = dict((pair, 0) for pair in ends)
    pulls = dict((host, []) for host in needs)
    for name, offset, size in pieces_of(files, needs, cables):
        have = set(host for host, names in holders.items() if name in names)
        pending = set(host for host, names in needs.items() if name in names and host not in have)
        if not pending:
            continue
        if not have:
            raise TransferError("no node holds %s, which %s need(s)" % (name, ", ".join(sorted(pending))))
        depth = dict((host, 0) for host in have)
        while pending:
            # Least-loaded cable first; on a tie a receiver relays rather than a holder sending again (the
            # holder's cables are the scarce ones), the shallowest relay first.
            choices = [(load[(parent, child)] + size, depth[parent] == 0, depth[parent], _natural(parent),
                        _natural(child), parent, child)
                       for (parent, child) in ends if parent in depth and child in pending]
            if not choices:
                raise TransferError("no cable reaches %s from a node holding %s (holders: %s)" % (
                    ", ".join(sorted(pending)), name, ", ".join(sorted(have))))
            parent, child = min(choices)[-2:]
            load[(parent, child)] += size
            depth[child] = depth[parent] + 1
            pending.discard(child)
            address, link_id = ends[(parent, child)]
            pulls[child].append({"file": name, "size": files[name]["size"], "sha256": files[name].get("sha256"),
                                 "offset": offset, "length": size, "parent": parent, "address": address,
                                 "link_id": link_id})
    link_bytes = dict(("%s>%s" % pair, value) for pair, value in sorted(load.items()) if value)
    return {
        "pulls": pulls,
        "link_bytes": link_bytes,
        "wire_bytes": sum(link_bytes.values()),
        "missing_bytes": dict((host, sum(p["length"] for p in entries)) for host, entries in pulls.items()),
        "max_link_bytes": max(link_bytes.values()) if link_bytes else 0,
    }


def bound_seconds(copies, needed_bytes, link_rate, nodes, disk_rate=None):
    """The issue's lower bound on the wall time: full replicas max(D / ((n-1) B), D / disk rate); per-rank
    shards the largest node's bytes over its own cable. needed_bytes: {host: bytes it lacks}."""
    if not needed_bytes or not link_rate:
        return 0.0
    largest = max(needed_bytes.values())
    if copies == "full" and nodes > 1:
        network = largest / float((nodes - 1) * link_rate)
        return max(network, largest / float(disk_rate)) if disk_rate else network
    return largest / float(link_rate)
