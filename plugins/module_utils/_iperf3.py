# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `iperf3 --json` (`-J`) output, client's and server's.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Read one iperf3 run, from either end: the rate each direction reached, at the receiver.

iperf3 is the same program on macOS (Homebrew) and Linux and writes the same JSON: `start`
(`test_start`: protocol, streams, duration, omit, reverse), `intervals`, `end` (`sum_sent` and
`sum_received` of the client-to-server direction; with `--bidir` also `sum_sent_bidir_reverse` and
`sum_received_bidir_reverse` of server-to-client) and `error` when the test did not run. The
receiver's rate is the one that counts (what arrived); the sender's retransmits say why it is low.
A server's JSON (`-s -J`, `start.accepted_connection`) has the same keys but only its own end's
figures: with `--bidir` the rate it received from the client, and the rate it sent back as sender.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ._parsing import ParseError

COMMAND = "iperf3 --json"


def _figures(section):
    if not isinstance(section, dict):
        return None
    try:
        figures = {"bits_per_second": float(section["bits_per_second"]), "bytes": int(section["bytes"]),
                   "seconds": float(section["seconds"])}
    except (KeyError, TypeError, ValueError):
        return None
    figures["retransmits"] = section.get("retransmits")
    return figures


def _direction(end, suffix, sender_is_client):
    """One direction's figures. A client's JSON holds both ends' (the server sends its own at the
    end); a server's holds only its own end's, the other end's as zeros. The receiver's rate is
    taken where there is one, else the sender's (`measured_at` says which)."""
    sent = _figures(end.get("sum_sent" + suffix))
    received = _figures(end.get("sum_received" + suffix))
    if sent is None and received is None:
        if "sum_sent" + suffix in end or "sum_received" + suffix in end:
            raise ParseError(COMMAND, "end lacks the figures of sum_sent%s and sum_received%s" % (suffix, suffix))
        return None
    at_receiver = received is not None and received["bytes"] > 0
    measured = received if at_receiver else sent
    if measured is None or measured["bytes"] <= 0:
        measured = received or sent
    retransmits = (sent or {}).get("retransmits")
    return {
        "from": "client" if sender_is_client else "server",
        "bits_per_second": measured["bits_per_second"],
        "sender_bits_per_second": sent["bits_per_second"] if sent and sent["bytes"] > 0 else None,
        "bytes": measured["bytes"],
        "seconds": measured["seconds"],
        "retransmits": int(retransmits) if retransmits is not None and sent["bytes"] > 0 else None,
        "measured_at": "receiver" if at_receiver else "sender",
    }


def parse(text):
    """-> {side, error, version, protocol, streams, seconds, omit_seconds, reverse, forward, backward}.

    `forward` is the client-to-server direction (server-to-client with `-R`), `backward` the other
    one, only with `--bidir` (else None). `error` is iperf3's own message (for example
    "unable to connect to server: Connection refused"); the directions are then None."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ParseError(COMMAND, "not JSON (%s)" % exc)
    if not isinstance(data, dict):
        raise ParseError(COMMAND, "not a JSON object")
    start = data.get("start") or {}
    test = start.get("test_start") or {}
    result = {
        "side": "server" if "accepted_connection" in start else "client",
        "error": data.get("error"),
        "version": start.get("version"),
        "protocol": test.get("protocol"),
        "streams": test.get("num_streams"),
        "seconds": test.get("duration"),
        "omit_seconds": test.get("omit"),
        "reverse": bool(test.get("reverse")),
        "forward": None,
        "backward": None,
    }
    if result["error"]:
        return result
    end = data.get("end")
    if not isinstance(end, dict) or not end:
        raise ParseError(COMMAND, "no `end` section and no `error`")
    result["forward"] = _direction(end, "", not result["reverse"])
    if result["forward"] is None:
        raise ParseError(COMMAND, "`end` has no sum_sent and sum_received")
    result["backward"] = _direction(end, "_bidir_reverse", result["reverse"])
    return result
