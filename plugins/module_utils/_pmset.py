# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `pmset -g`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse `pmset -g` and work out which settings a `pmset -a ...` call must change.

Format (our reading of pmset(1) and outputs users post; no published capture from macOS 26,
so **unconfirmed** against a primary source)::

    System-wide power settings:
     SleepDisabled		0
    Currently in use:
     standby              0
     Sleep On Power Button 1
     sleep                1 (sleep prevented by sharingd, powerd)
     displaysleep         10

Setting names can hold spaces (``Sleep On Power Button``); a value can be followed by a note in
parentheses that says why the setting is not in effect right now. The note is not part of the
value: `pmset -a sleep 0` must compare against ``1``, not against the note.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "pmset -g"
SYSTEM_WIDE_HEADER = "System-wide power settings:"
IN_USE_HEADER = "Currently in use:"

# The name is the shortest prefix that leaves one value word (plus an optional note).
_SETTING = re.compile(r"^\s+(?P<name>\S.*?)\s+(?P<value>\S+)(?:\s+\((?P<note>[^)]*)\))?\s*$")
# What `pmset -a` accepts as a setting name and a value: words, never options or shell text.
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_VALUE = re.compile(r"^[A-Za-z0-9_./-]+$")


def parse(text):
    """Return {"system_wide": {name: value}, "settings": {name: value}, "notes": {name: note}}.

    `settings` are the values in use (the power source the Mac runs on now); all values are
    strings, as printed.
    """
    sections = {"system_wide": {}, "settings": {}}
    notes = {}
    current = None
    for line in require_text(COMMAND, text).splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped == SYSTEM_WIDE_HEADER:
            current = "system_wide"
            continue
        if stripped == IN_USE_HEADER:
            current = "settings"
            continue
        match = _SETTING.match(line)
        if current is None or match is None:
            raise ParseError(COMMAND, "unexpected line %r" % stripped)
        sections[current][match.group("name")] = match.group("value")
        if match.group("note") is not None and current == "settings":
            notes[match.group("name")] = match.group("note")
    if not sections["settings"]:
        raise ParseError(COMMAND, "no %r section" % IN_USE_HEADER)
    sections["notes"] = notes
    return sections


def normalize_value(value):
    """The text pmset prints for a wanted value: booleans as 1/0, numbers without decoration."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value).strip()


def validate(wanted):
    """Return the wanted settings as {name: text}; ValueError naming the first bad entry."""
    normalized = {}
    for name, value in wanted.items():
        if not _NAME.match(str(name)):
            raise ValueError("%r is not a pmset setting name" % (name,))
        text = normalize_value(value)
        if not _VALUE.match(text):
            raise ValueError("%r is not a value pmset accepts for %s" % (value, name))
        normalized[str(name)] = text
    return normalized


def differences(current, wanted):
    """Settings whose value in use differs from the wanted one, in a stable order."""
    return dict((name, wanted[name]) for name in sorted(wanted) if current.get(name) != wanted[name])


def set_argv(pmset_path, scope, changes):
    """`pmset -<scope> name value ...` for the changed settings, in a stable order."""
    argv = [pmset_path, "-" + scope]
    for name in sorted(changes):
        argv += [name, changes[name]]
    return argv
