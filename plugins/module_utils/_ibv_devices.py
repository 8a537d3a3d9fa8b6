# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `ibv_devices`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``ibv_devices`` (layout of Apple TN3205 "Low-latency communication with RDMA over
Thunderbolt" and MLX's distributed docs; MLX's ``check_rdma`` in ``mlx/_distributed_utils/config.py``
keeps the tokens that start ``rdma_``)::

        device          	   node GUID
        ------          	----------------
        rdma_en2        	a04c19e2d7b1ac05

One ``rdma_<bsd interface>`` device per Thunderbolt port; with RDMA disabled only the two
header lines are printed. The order is not necessarily sorted, so callers must not rely on it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "ibv_devices"
DEVICE_PREFIX = "rdma_"

_HEADER = re.compile(r"^\s*device\s+node GUID\s*$")
_RULE = re.compile(r"^\s*-+\s+-+\s*$")
_GUID = re.compile(r"^[0-9a-fA-F]{16}$")


def parse(text):
    """List of ``{"device": "rdma_en2", "node_guid": "a04c19e2d7b1ac05"}`` in output order."""
    lines = [line for line in require_text(COMMAND, text).splitlines() if line.strip()]
    if len(lines) < 2 or not _HEADER.match(lines[0]) or not _RULE.match(lines[1]):
        raise ParseError(COMMAND, "the `device / node GUID` header is missing")
    devices = []
    for line in lines[2:]:
        fields = line.split()
        if len(fields) != 2 or not _GUID.match(fields[1]):
            raise ParseError(COMMAND, "line %r is not `<device> <16-hex-digit GUID>`" % line.strip())
        devices.append({"device": fields[0], "node_guid": fields[1].lower()})
    return devices


def interface_of(device):
    """``rdma_en3`` -> ``en3``; None for a device that does not follow Apple's naming."""
    if device.startswith(DEVICE_PREFIX) and len(device) > len(DEVICE_PREFIX):
        return device[len(DEVICE_PREFIX):]
    return None
