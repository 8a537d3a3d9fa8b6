# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `pfctl -s info` and `pfctl -a ANCHOR -s rules`.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse what pfctl prints about pf's state and an anchor's rules (root only, on macOS as on BSD).

``pfctl -s info`` starts with the status line, then the state table and the counters::

    Status: Enabled for 0 days 00:12:34           Debug: Urgent

    State Table                          Total             Rate
      current entries                        0

or ``Status: Disabled ...``. Only the status line is read. The layout after ``Status:`` is
taken from pfctl(8) on FreeBSD and third-party macOS transcripts, not from a macOS 26 capture:
so the parser needs only ``Status:`` followed by ``Enabled`` or ``Disabled``.

``pfctl -a ANCHOR -s rules`` prints one rule per line, as pfctl stores it (macros substituted,
port lists expanded), and nothing when the anchor holds no rules. macOS prints ``No ALTQ support
in kernel`` and ``ALTQ related functions disabled`` on stderr with every command; they are not
rules.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

INFO_COMMAND = "pfctl -s info"
RULES_COMMAND = "pfctl -a ANCHOR -s rules"

_STATUS = re.compile(r"^Status:\s+(Enabled|Disabled)\b(.*?)(?:\s{2,}Debug:.*)?$")
_ALTQ_NOTICES = ("No ALTQ support in kernel", "ALTQ related functions disabled")


def parse_info(text):
    """``{enabled: bool, status: the status line without the Debug field}``."""
    for line in require_text(INFO_COMMAND, text).splitlines():
        match = _STATUS.match(line.strip())
        if match:
            return {"enabled": match.group(1) == "Enabled", "status": (match.group(1) + match.group(2)).strip()}
    raise ParseError(INFO_COMMAND, "no `Status: Enabled/Disabled` line in %r" % text.strip()[:200])


def without_notices(text):
    """The non-empty lines of pfctl's output or errors, without the ALTQ notices."""
    return [line.strip() for line in (text or "").splitlines()
            if line.strip() and line.strip() not in _ALTQ_NOTICES]


def parse_rules(text):
    """The anchor's rules, one string per rule, in pfctl's order ([] when there are none)."""
    return without_notices(text)
