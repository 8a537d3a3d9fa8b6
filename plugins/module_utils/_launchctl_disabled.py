# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `launchctl print-disabled system`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``launchctl print-disabled system``: the jobs launchd will not load at boot (``launchctl disable``
persists across restarts, unlike an unload). macOS 11 and later print (each entry indented by a tab)::

    disabled services = {
        "com.apple.ftpd" => disabled
        "org.macops.serve" => enabled
    }
    login item associations = {
    }

macOS 10.15 and earlier print ``=> true`` / ``=> false`` instead (launchctl(1)). Only the ``disabled services``
block counts; a label launchd has no override for is not listed (enabled)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "launchctl print-disabled system"

_ENTRY = re.compile(r'^\s*"(?P<label>[^"]+)"\s*=>\s*(?P<value>\w+)\s*$')
_BLOCK = re.compile(r"^\s*(?P<name>[\w ]+?)\s*=\s*\{\s*$")


def parse_print_disabled(text):
    """``{label: disabled (bool)}`` for every override in the ``disabled services`` block."""
    found, block, seen = {}, None, False
    for line in require_text(COMMAND, text).splitlines():
        opened = _BLOCK.match(line)
        if opened:
            block = opened.group("name")
            seen = seen or block == "disabled services"
            continue
        if line.strip() == "}":
            block = None
            continue
        entry = _ENTRY.match(line)
        if entry and block == "disabled services":
            value = entry.group("value").lower()
            if value not in ("disabled", "enabled", "true", "false"):
                raise ParseError(COMMAND, "unknown override %r for %s" % (value, entry.group("label")))
            found[entry.group("label")] = value in ("disabled", "true")
    if not seen:
        raise ParseError(COMMAND, "no `disabled services = {` block in %r" % text[:200])
    return found
