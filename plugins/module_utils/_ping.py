# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for the summary line of `ping -c N <host>`.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Read how many echo replies ``ping -c N`` got.

macOS prints ``2 packets transmitted, 2 packets received, 0.0% packet loss``; other BSD and
Linux builds print ``2 packets transmitted, 2 received, 0% packet loss`` (both accepted). The
exit status is the authority (macOS: 0 when at least one reply came back, 2 when none did);
the counts only make the report precise.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_SUMMARY = re.compile(r"(?P<sent>\d+) packets transmitted, (?P<received>\d+) (?:packets )?received")


def parse_summary(text):
    """-> ``{"transmitted": int, "received": int}``, or None when no summary line was printed
    (ping failed before sending, e.g. ``No route to host``)."""
    match = _SUMMARY.search(text or "")
    if match is None:
        return None
    return {"transmitted": int(match.group("sent")), "received": int(match.group("received"))}
