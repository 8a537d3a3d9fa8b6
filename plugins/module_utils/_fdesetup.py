# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `fdesetup status`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``fdesetup status``: whether FileVault stops the Mac at its next boot.

macOS prints one of (with more lines while the volume converts)::

    FileVault is On.
    FileVault is Off.
    FileVault is Off, but will be enabled after the next restart.
    FileVault is On.
    Encryption in progress: Percent completed = 42.1
    FileVault is Off.
    Deferred enablement appears to be active for user 'admin'.
    Deferred enablement appears to be active.

The last form, alone, is what macOS 13 prints (published captures from real Macs; fdesetup(8)
documents only the forms that name a user).

Three states, for what an unattended reboot needs to know:

- ``on``: ``FileVault is On`` (decryption in progress included: the volume is still locked at
  boot). A plain restart stops at the pre-boot unlock screen; ``fdesetup authrestart`` skips it.
- ``pending``: ``will be enabled after the next restart``, or a deferred enablement (``fdesetup
  enable -defer``: macOS turns FileVault on at the user's next logout or login, which a restart
  goes through). FileVault is not on yet, so ``fdesetup authrestart`` has nothing to unlock, but
  the next restart stops at the unlock screen all the same: a person must be at the Mac.
- ``off``: none of these; a restart comes back by itself.

``on`` in the result is true for both ``on`` and ``pending``: "the next boot stops at the unlock
screen", which is what preflight and the reboot role decide on. Case as macOS prints it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "fdesetup status"

ON = "on"
PENDING = "pending"
OFF = "off"
STATES = (ON, PENDING, OFF)

_IS_ON = re.compile(r"^FileVault is On\b", re.M)
_IS_OFF = re.compile(r"^FileVault is Off\b", re.M)
_ENABLED_AFTER_RESTART = re.compile(r"\bwill be enabled after the next restart\b")
_DEFERRED = re.compile(r"^Deferred enablement appears to be active\b", re.M)


def parse_status(text):
    """``{on, state, status}``: ``on`` when the next boot stops at the unlock screen (state
    ``on`` or ``pending``), ``state`` one of STATES, ``status`` the trimmed text.

    Text with neither a ``FileVault is On/Off`` line nor a deferred-enablement line is malformed.
    """
    status = require_text(COMMAND, text).strip()
    # Lines as macOS prints them, without the indentation a caller's wrapping may add.
    lines = "\n".join(line.strip() for line in status.splitlines())
    if _IS_ON.search(lines):
        state = ON
    elif _ENABLED_AFTER_RESTART.search(lines) or _DEFERRED.search(lines):
        state = PENDING
    elif _IS_OFF.search(lines):
        state = OFF
    else:
        raise ParseError(COMMAND, "no `FileVault is On/Off` or `Deferred enablement` line in %r" % status[:200])
    return {"on": state != OFF, "state": state, "status": status}


def parse_supports_authrestart(text):
    """``fdesetup supportsauthrestart`` prints ``true`` or ``false``: True or False; anything else None (unknown)."""
    answer = (text or "").strip().lower()
    return {"true": True, "false": False}.get(answer)
