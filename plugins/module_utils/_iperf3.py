# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `iperf3 --json` (`-J`) client output.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Read one iperf3 client run: the rate each direction reached, at the receiver.

iperf3 is the same program on macOS (Homebrew) and Linux and writes the same JSON: `start`
(`test_start`: protocol, streams, duration, omit, reverse), `intervals`, `end` (`sum_sent` and
`sum_received` of the client-to-server direction; with `--bidir` also `sum_sent_bidir_reverse` and
`sum_received_bidir_reverse` of server-to-client) and `error` when the test did not run. The
receiver's rate is the one that counts (what arrived); the sender's retransmits say why it is low.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ._parsing import ParseError

COMMAND = "iperf3 --json"


def _direction(end, suffix, sender_is_client):
    sent = end.get("sum_sent" + suffix)
    received = end.get("sum_received" + suffix)
    if not isinstance(sent, dict) or not isinstance(received, dict):
        return None
    try:
        return {
            "from": "client" if sender_is_client else "server",
            "bits_per_second": float(received["bits_per_second"]),
            "sender_bits_per_second": float(sent["bits_per_second"]),
            "bytes": int(received["bytes"]),
            "seconds": float(received["seconds"]),
            "retransmits": int(sent["retransmits"]) if sent.get("retransmits") is not None else None,
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise ParseError(COMMAND, "end.sum_received%s lacks %s" % (suffix, exc))


def parse(text):
    """-> {error, protocol, streams, seconds, omit_seconds, reverse, forward, backward}.

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
