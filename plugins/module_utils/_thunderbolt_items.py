# -*- coding: utf-8 -*-
# PRIVATE to the collection: what hangs off one Thunderbolt port in `system_profiler
# SPThunderboltDataType` output. Do not use this from other collections. Stdlib only, Python 3.9.
"""Classify the items under one bus (= one physical port): peer Macs and other devices.

Published captures from real Macs (oMLX's ``tests/test_cluster_topology.py``: an OWC Envoy Ultra on a
Mac Studio's bus) show that a bus's ``_items`` are not always a peer Mac. Drives, docks and
enclosures are items too, with ``mode_key`` and
``receptacle_upstream_ambiguous_tag`` and **no** ``domain_uuid_key``; a Mac behind a dock sits one
level deeper, in the dock's own ``_items``. So a peer Mac is an item, at any depth, that has a
domain UUID; every other item is a device. MLX and exo read only ``_items[0]``, which is why a
drive there used to become a peer "with domain None".
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The peer advertises the Thunderbolt XD service with this protocol id when its RDMA is on
# ("Service Key: rdma" in the text form). In JSON its service_key_key is a garbled string, so the
# protocol id is the only safe key (captures published in oMLX's tests).
RDMA_SERVICE_PROTOCOL_ID = 64087
_TEXT_RDMA_SERVICE_KEY = "rdma"
# Text form: blocks under a device that describe it, not a device hanging off it.
_TEXT_NON_DEVICE_BLOCKS = ("Port", "Port (Upstream)", "Services")


def text_value(value):
    """A printed string, or None for anything else (a number or list where a string belongs)."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def _rdma_service(services):
    return any(isinstance(service, dict) and str(service.get("protocol_id_key")) == str(RDMA_SERVICE_PROTOCOL_ID)
               for service in services)


def _json_children(item):
    children = item.get("_items") if isinstance(item, dict) else None
    return [child for child in children if isinstance(child, dict)] if isinstance(children, list) else []


def classify_json(items):
    """A bus's ``_items`` -> (peer or None, [devices]).

    peer: the nearest item with a ``domain_uuid_key`` (breadth first), as ``domain_uuid``,
    ``model_id``, ``name``, ``rdma_service`` and ``via`` (the names of the devices between this
    port and the Mac; empty for a direct cable). devices: every item without a domain UUID,
    in the order printed, as ``name``, ``vendor``, ``model``, ``mode``, ``speed``, ``depth`` (1:
    plugged into this port) and ``upstream`` (the device it hangs off, None at depth 1).
    """
    peer = None
    devices = []
    level = [(child, 1, None, []) for child in _json_children({"_items": items})]
    while level:
        deeper = []
        for item, depth, upstream, via in level:
            uuid = text_value(item.get("domain_uuid_key"))
            name = text_value(item.get("_name")) or text_value(item.get("device_name_key"))
            if uuid:
                if peer is None:
                    services = item.get("services_title") if isinstance(item.get("services_title"), list) else []
                    peer = {"domain_uuid": uuid, "model_id": text_value(item.get("device_name_key")),
                            "name": name, "rdma_service": _rdma_service(services), "via": list(via)}
                continue  # what hangs off another Mac is that Mac's business
            upstream_tag = item.get("receptacle_upstream_ambiguous_tag")
            devices.append({
                "name": name, "vendor": text_value(item.get("vendor_name_key")),
                "model": text_value(item.get("device_name_key")), "mode": text_value(item.get("mode_key")),
                "speed": text_value(upstream_tag.get("current_speed_key")) if isinstance(upstream_tag, dict) else None,
                "depth": depth, "upstream": upstream,
            })
            deeper.extend((child, depth + 1, name, via + [name or "an unnamed device"])
                          for child in _json_children(item))
        level = deeper
    return peer, devices


def _leaf(node, key):
    child = next((c for c in node["children"] if c["key"] == key), None)
    return child["value"] if child is not None else None


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node["children"])


def classify_text(bus_node):
    """The text form's blocks under one ``Thunderbolt/USB4 Bus N:`` -> (peer or None, [devices]),
    the same shapes as `classify_json`. Blocks are the nodes with children other than the bus's
    ``Port:`` and a device's ``Port (Upstream):`` / ``Services:`` (their labels are unconfirmed)."""
    peer = None
    devices = []
    level = [(node, 1, None, []) for node in bus_node["children"]]
    while level:
        deeper = []
        for node, depth, upstream, via in level:
            if not node["children"] or node["key"] in _TEXT_NON_DEVICE_BLOCKS:
                continue
            uuid = _leaf(node, "Domain UUID")
            if uuid:
                if peer is None:
                    peer = {"domain_uuid": uuid, "model_id": _leaf(node, "Device Name"), "name": node["key"],
                            "rdma_service": any(child["key"] == "Service Key"
                                                and child["value"].lower() == _TEXT_RDMA_SERVICE_KEY
                                                for child in _walk(node["children"])),
                            "via": list(via)}
                continue
            upstream_port = next((c for c in node["children"] if c["key"] == "Port (Upstream)"), None)
            devices.append({"name": node["key"], "vendor": _leaf(node, "Vendor Name"),
                            "model": _leaf(node, "Device Name"), "mode": _leaf(node, "Mode"),
                            "speed": _leaf(upstream_port, "Speed") if upstream_port else None,
                            "depth": depth, "upstream": upstream})
            deeper.extend((child, depth + 1, node["key"], via + [node["key"]]) for child in node["children"])
        level = deeper
    return peer, devices


def describe_device(device):
    """`Envoy Ultra (Other World Computing)`: what a person reading a report recognises."""
    name = device.get("name") or device.get("model") or "an unnamed device"
    vendor = device.get("vendor")
    return "%s (%s)" % (name, vendor) if vendor and vendor not in name else name
