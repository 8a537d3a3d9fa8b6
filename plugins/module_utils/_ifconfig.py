# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `ifconfig <interface>`.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse one interface block of BSD ``ifconfig``.

Confirmed by Apple TN3205's ``ifconfig bridge0`` and MLX's ``--auto-setup`` commands: the header
``name: flags=8863<UP,...> mtu 1500``, ``inet A netmask 0xHEX broadcast B``
with the netmask in hex, bridge ``member: enX flags=...`` lines and ``status: active|inactive``.
The wording for a missing interface (``ifconfig: interface bridge0 does not exist``, exit 1) is
the usual BSD one and unconfirmed on macOS 26; callers test the exit status, not the text.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import socket
import struct

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "ifconfig"

_HEADER = re.compile(r"^(?P<name>[A-Za-z0-9]+): flags=[0-9a-fA-F]+<(?P<flags>[A-Z0-9_,]*)> mtu (?P<mtu>\d+)")
_INET = re.compile(r"^inet (?P<address>[0-9.]+) netmask (?P<netmask>0x[0-9a-fA-F]{8})(?: broadcast (?P<broadcast>[0-9.]+))?")
_MEMBER = re.compile(r"^member: (?P<member>\S+)")
_STATUS = re.compile(r"^status: (?P<status>\S+)")


def dotted_netmask(hex_mask):
    """``0xfffffffc`` -> ``255.255.255.252`` (ifconfig prints IPv4 netmasks in hex)."""
    return socket.inet_ntoa(struct.pack("!I", int(hex_mask, 16)))


def parse_interface(text):
    """``ifconfig enX`` -> ``{"name", "flags", "up", "mtu", "inet": [{address, netmask, broadcast}],
    "members", "status"}``; lines the callers do not need (ether, inet6, options, media) are skipped."""
    lines = require_text(COMMAND, text).splitlines()
    header = _HEADER.match(lines[0])
    if header is None:
        raise ParseError(COMMAND, "expected `<name>: flags=...<...> mtu N`, got %r" % lines[0])
    flags = [flag for flag in header.group("flags").split(",") if flag]
    result = {
        "name": header.group("name"),
        "flags": flags,
        "up": "UP" in flags,
        "mtu": int(header.group("mtu")),
        "inet": [],
        "members": [],
        "status": None,
    }
    for line in lines[1:]:
        if line and not line[0].isspace():
            raise ParseError(COMMAND, "more than one interface in the output (line %r)" % line)
        stripped = line.strip()
        inet = _INET.match(stripped)
        member = _MEMBER.match(stripped)
        status = _STATUS.match(stripped)
        if inet:
            result["inet"].append({
                "address": inet.group("address"),
                "netmask": dotted_netmask(inet.group("netmask")),
                "broadcast": inet.group("broadcast"),
            })
        elif member:
            result["members"].append(member.group("member"))
        elif status:
            result["status"] = status.group("status")
    return result
