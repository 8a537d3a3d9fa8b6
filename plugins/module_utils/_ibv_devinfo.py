# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `ibv_devinfo` and `ibv_devinfo -v`.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse ``ibv_devinfo [-v] [-d rdma_enX]`` (Apple TN3205 "Low-latency communication with RDMA
over Thunderbolt": ``PORT_ACTIVE (4)`` when cabled to a Mac that also has RDMA enabled, GIDs that
mirror the port's addresses).

Tab-indented like Linux rdma-core::

    hca_id:    rdma_en3
        transport:            Thunderbolt (100)
        node_guid:            a14c:19e2:d7b1:ac05
        ...
            port:    1
                state:            PORT_ACTIVE (4)
                active_mtu:        4096 (5)
                link_layer:        Thunderbolt
                GID[  1]:        ::ffff:192.168.0.1      (-v only)

``-v`` also prints capability flags on continuation lines without a colon; those are skipped.
Device attributes come before the first ``port:`` line, as in rdma-core; everything after a
``port:`` line belongs to that port. MLX JACCL needs an IPv4-mapped GID (``::ffff:a.b.c.d``)
on every port it uses, so each port reports whether it has one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "ibv_devinfo"
VERBOSE_COMMAND = "ibv_devinfo -v"

PORT_ACTIVE = "PORT_ACTIVE"

_FIELD = re.compile(r"^\s*(GID\[\s*(?P<gid_index>\d+)\]|[A-Za-z_][A-Za-z0-9_ ]*?)\s*:\s*(?P<value>.*?)\s*$")
# `PORT_ACTIVE (4)`, `4096 (5)`, `Thunderbolt (100)`: a name or number with its enum code.
_CODED = re.compile(r"^(?P<name>.+?)\s*\((?P<code>\d+)\)$")
# rdma-core prints libibverbs' "No IB devices found" when there are none; on macOS with RDMA
# disabled the exact text is unconfirmed, so only this wording is accepted as "no devices".
_NO_DEVICES = "no ib devices found"


def parse(text, command=COMMAND):
    """List of devices: hca_id, transport, transport_code, node_guid, sys_image_guid, ports.

    Each port: port, state, state_code, max_mtu, active_mtu, link_layer, gids
    ([{index, gid, ipv4}]) and ipv4_gid (True when any GID is IPv4-mapped). Without ``-v``
    there is no GID table, so gids is empty and ipv4_gid False.
    """
    require_text(command, text)
    if text.strip().lower() == _NO_DEVICES:
        return []
    devices = []
    device = port = None
    for line in text.splitlines():
        match = _FIELD.match(line)
        if match is None:
            continue
        key, value = match.group(1), match.group("value")
        if key == "hca_id":
            device = _new_device(command, value)
            devices.append(device)
            port = None
        elif device is None:
            raise ParseError(command, "line %r comes before any `hca_id:` line" % line.strip())
        elif key == "port":
            port = _new_port(command, value)
            device["ports"].append(port)
        elif port is not None:
            _set_port_field(port, key, match.group("gid_index"), value)
        else:
            _set_device_field(device, key, value)
    if not devices:
        raise ParseError(command, "no `hca_id:` line")
    return devices


def _new_device(command, hca_id):
    if not hca_id:
        raise ParseError(command, "`hca_id:` without a device name")
    return {
        "hca_id": hca_id,
        "transport": None,
        "transport_code": None,
        "node_guid": None,
        "sys_image_guid": None,
        "ports": [],
    }


def _new_port(command, number):
    if not number.isdigit():
        raise ParseError(command, "`port:` %r is not a number" % number)
    return {
        "port": int(number),
        "state": None,
        "state_code": None,
        "max_mtu": None,
        "active_mtu": None,
        "link_layer": None,
        "gids": [],
        "ipv4_gid": False,
    }


def _set_device_field(device, key, value):
    if key == "transport":
        device["transport"], device["transport_code"] = _split_code(value)
    elif key in ("node_guid", "sys_image_guid"):
        device[key] = value.lower()


def _set_port_field(port, key, gid_index, value):
    if gid_index is not None:
        gid = _gid(int(gid_index), value)
        port["gids"].append(gid)
        port["ipv4_gid"] = port["ipv4_gid"] or gid["ipv4"] is not None
    elif key == "state":
        port["state"], port["state_code"] = _split_code(value)
    elif key in ("max_mtu", "active_mtu"):
        mtu = _split_code(value)[0]
        port[key] = int(mtu) if mtu.isdigit() else None
    elif key == "link_layer":
        port["link_layer"] = value


def _split_code(value):
    match = _CODED.match(value)
    if match is None:
        return value, None
    return match.group("name"), int(match.group("code"))


def _gid(index, value):
    # Newer rdma-core appends ", RoCE v2" and similar after the address.
    address = value.split(",")[0].strip()
    try:
        mapped = ipaddress.IPv6Address(address).ipv4_mapped
    except ValueError:
        mapped = None
    return {"index": index, "gid": address, "ipv4": str(mapped) if mapped is not None else None}


def port_one(device):
    """The device's port 1 (JACCL always uses port 1), or None."""
    for port in device["ports"]:
        if port["port"] == 1:
            return port
    return None
