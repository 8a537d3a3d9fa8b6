# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `diskutil apfs listUsers /`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``diskutil apfs listUsers /`` (and ``listcryptousers``, the same without the owner lines): the volume's
cryptographic users, each ``+-- <GUID>`` then indented ``Type: ...`` and ``Volume Owner: Yes|No`` lines. A
Personal Recovery User can say ``Volume Owner: Yes`` too, so an account is an owner only by its GUID (dscl's
GeneratedUID), never by the line alone."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

COMMAND = "diskutil apfs listUsers /"
_USER = re.compile(r"^\+--\s+(?P<guid>[0-9A-Fa-f-]{36})\s*$")
_FIELD = re.compile(r"^[|\s]*(?P<key>Type|Volume Owner):\s*(?P<value>.+?)\s*$")


def parse_users(text):
    """-> [{guid (upper case), type, volume_owner (True, False, or None when not said)}] in the order listed."""
    users = []
    for line in (text or "").splitlines():
        user = _USER.match(line.strip())
        if user:
            users.append({"guid": user.group("guid").upper(), "type": None, "volume_owner": None})
            continue
        field = _FIELD.match(line)
        if field and users:
            if field.group("key") == "Type":
                users[-1]["type"] = field.group("value")
            else:
                users[-1]["volume_owner"] = field.group("value").lower() == "yes"
    if not users and "Cryptographic user" in (text or ""):
        raise ParseError(COMMAND, "it announced users but no `+-- <GUID>` line followed")
    return users


def is_volume_owner(users, guid):
    """Whether the account with GeneratedUID `guid` is one of the volume's owners (an Open Directory user that says
    Volume Owner: Yes; listcryptousers does not say it: there every listed account counts)."""
    for user in users:
        if user["guid"] == (guid or "").upper() and user["type"] == "Local Open Directory User":
            return user["volume_owner"] is not False
    return False
