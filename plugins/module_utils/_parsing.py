# -*- coding: utf-8 -*-
# PRIVATE to the collection: helpers shared by the macOS command parsers in this directory.
# Do not use this from other collections; names and behaviour may change without notice.
# Stdlib only, Python 3.9 (the interpreter Apple ships as /usr/bin/python3).
"""The one exception every parser raises, and the line helpers they share."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ParseError(ValueError):
    """Output of a macOS command that a parser could not understand.

    `command` names the command line (``sw_vers -productVersion``) so that a module can put
    it in front of the user without a traceback.
    """

    def __init__(self, command, reason):
        self.command = command
        self.reason = reason
        super(ParseError, self).__init__("cannot parse the output of `%s`: %s" % (command, reason))


def require_text(command, text):
    """Return `text` if it holds anything but whitespace, else raise ParseError."""
    if text is None or not text.strip():
        raise ParseError(command, "the output is empty")
    return text


def split_field(line, separator=":"):
    """Split ``Key: value`` at the first separator; None when the line has no separator."""
    key, found, value = line.partition(separator)
    if not found:
        return None
    return key.strip(), value.strip()


def key_value_lines(command, text):
    """Parse ``Key: value`` lines (sw_vers, networksetup -getinfo) into an ordered dict.

    Blank lines are skipped; any other line without a colon is malformed.
    """
    fields = {}
    for line in require_text(command, text).splitlines():
        if not line.strip():
            continue
        field = split_field(line)
        if field is None or not field[0]:
            raise ParseError(command, "line %r is not `Key: value`" % line.strip())
        fields[field[0]] = field[1]
    return fields


def json_number(value):
    """A number a JSON document gave, as a float; None for anything else (true and false included: bool is an
    int in Python)."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
