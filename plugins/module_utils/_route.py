# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `route -n get <destination>`.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse the block BSD ``route -n get`` prints.

The ``key: value`` lines (``route to``, ``destination``, ``mask``, ``gateway``, ``interface``,
``flags``) are the BSD route(8) layout; the exact set of lines on macOS 26 is unconfirmed, so
only ``interface`` is required and the metrics table after the keys is ignored. A destination
without a route makes route exit 1 with ``route: writing to routing socket: not in table``
(usual BSD wording, unconfirmed): callers test the exit status.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text, split_field

COMMAND = "route -n get"
_KEYS = ("route to", "destination", "mask", "gateway", "interface", "flags")


def parse_route_get(text):
    """-> ``{"route_to", "destination", "mask", "gateway", "interface", "flags"}`` (absent keys None)."""
    fields = {}
    for line in require_text(COMMAND, text).splitlines():
        field = split_field(line)
        if field is not None and field[0] in _KEYS:
            fields[field[0]] = field[1]
    if not fields.get("interface"):
        raise ParseError(COMMAND, "no `interface:` line")
    return dict((key.replace(" ", "_"), fields.get(key)) for key in _KEYS)
