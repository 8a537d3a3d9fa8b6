# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `fdesetup status`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``fdesetup status``: whether FileVault locks the Mac at its next boot.

macOS prints one of (with more lines while the volume converts)::

    FileVault is On.
    FileVault is Off.
    FileVault is Off, but will be enabled after the next restart.
    FileVault is On.
    Encryption in progress: Percent completed = 42.1
    FileVault is Off.
    Deferred enablement appears to be active for user 'admin'.

FileVault counts as on when the text says ``FileVault is On`` (decryption in progress
included: the volume is still locked at boot) or ``will be enabled`` (on after the next
restart, which is what a reboot is about). Case as macOS prints it. A deferred enablement
waits for the user's next login, not a restart, and counts as off.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "fdesetup status"

_ON = re.compile(r"FileVault is On|will be enabled")


def parse_status(text):
    """``{on: bool, status: the trimmed text}``; text without a ``FileVault is`` line is malformed."""
    status = require_text(COMMAND, text).strip()
    if not any(line.strip().startswith("FileVault is ") for line in status.splitlines()):
        raise ParseError(COMMAND, "no `FileVault is On/Off` line in %r" % status[:200])
    return {"on": _ON.search(status) is not None, "status": status}
