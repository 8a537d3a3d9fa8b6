# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `softwareupdate --list`. Do not use this from other
# collections. Stdlib only, Python 3.9.
"""Parse ``softwareupdate --list``: the pending updates, one ``* Label:`` line and one
``Title: ..., Version: ..., Size: ...KiB, Recommended: YES, Action: restart,`` line each
(macOS 10.15 and later; "No new software available." goes to stderr)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

COMMAND = "softwareupdate --list"
_LABEL = re.compile(r"^\*\s*Label:\s*(?P<label>.+?)\s*$")
_FIELD = re.compile(r"(?P<key>[A-Za-z]+):\s*(?P<value>[^,]*)")


def parse_list(text):
    """-> [{label, title, version, recommended (bool), restart (bool)}], in the order printed."""
    updates = []
    pending = None
    for line in (text or "").splitlines():
        label = _LABEL.match(line.strip())
        if label:
            pending = {"label": label.group("label"), "title": None, "version": None,
                       "recommended": False, "restart": False}
            updates.append(pending)
            continue
        if pending is not None and line.strip().startswith("Title:"):
            fields = dict((m.group("key").lower(), m.group("value").strip()) for m in _FIELD.finditer(line))
            pending.update(title=fields.get("title"), version=fields.get("version") or None,
                           recommended=fields.get("recommended", "").upper() == "YES",
                           restart=fields.get("action", "").lower() == "restart")
            pending = None
    if "found the following" in (text or "") and not updates:
        raise ParseError(COMMAND, "it announced updates but no `* Label:` line followed")
    return updates
