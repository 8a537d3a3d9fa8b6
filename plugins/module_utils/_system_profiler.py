# -*- coding: utf-8 -*-
# PRIVATE to the collection: parsers for `system_profiler`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``system_profiler -json <types>`` and the text form of two data types.

Formats: SPThunderboltDataType as MLX (``mlx/_distributed_utils/config.py``) and exo
(``src/exo/shared/types/thunderbolt.py``) read it, SPHardwareDataType as exo reads it
(``src/exo/utils/info_gatherer/system_info.py``), and what published captures from real Macs show
(oMLX's ``tests/test_cluster_topology.py``, exo issues #1390 and #1636), which win where they differ:
``number_processors`` may be an integer or a four-field string in more than one layout, a bus's
``_items`` may be drives and docks (see `_thunderbolt_items`), ``link_status_key`` has more codes
than ``0x2``/``0x100``, and text core counts may be lower case. SPSoftwareDataType,
SPMemoryDataType and SPNetworkDataType have no published capture on record; their key names below are
written from memory of real Macs and are **unconfirmed**.

A value of an unexpected type or layout is read where it can be; otherwise the parser raises
`ParseError` naming the command and the field (a module turns it into a clean failure), or, for
a field nothing depends on (the core split), leaves it None and says why in ``cores_note``.

Every ``parse_*`` function for a JSON data type takes the list stored under that type's key
(``data["SPThunderboltDataType"]``) as returned by `parse_json`.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text
from ansible_collections.macops.cluster.plugins.module_utils._thunderbolt_items import (
    classify_json,
    classify_text,
    text_value,
)

JSON_COMMAND = "system_profiler -json"
THUNDERBOLT_TEXT_COMMAND = "system_profiler SPThunderboltDataType"
HARDWARE_TEXT_COMMAND = "system_profiler SPHardwareDataType"

HARDWARE = "SPHardwareDataType"
SOFTWARE = "SPSoftwareDataType"
THUNDERBOLT = "SPThunderboltDataType"
MEMORY = "SPMemoryDataType"
NETWORK = "SPNetworkDataType"

LINK_UP = "up"
LINK_DOWN = "down"
# The receptacle status decides first (real captures: a connected 80 Gb/s dock port shows link
# code 0x4, idle dock ports 0x7); the link code only when the status is missing or unknown:
# "0x2" = a device is connected and the link trained, "0x100" = nothing attached.
_RECEPTACLE_STATUS = {"receptacle_connected": LINK_UP, "receptacle_no_devices_connected": LINK_DOWN}
_TEXT_STATUS = {"device connected": LINK_UP, "no devices connected": LINK_DOWN, "no device connected": LINK_DOWN}
_LINK_STATUS = {"0x2": LINK_UP, "0x100": LINK_DOWN}

_BUS_NAME = re.compile(r"^thunderboltusb4_bus_(\d+)$")
_TEXT_BUS = re.compile(r"^Thunderbolt/USB4 Bus (\d+)$")
# Intel / Thunderbolt 3 Macs title their buses `Thunderbolt Bus 0:`: not a TB5 cluster node.
_TEXT_TB3_BUS = re.compile(r"^Thunderbolt Bus \d+$")
_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*Gb/s")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB)$")
_SIZE_FACTORS = {"KB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}
_PROCESSORS = re.compile(r"^proc\s+(\d+(?::\d+)*)$")
_TEXT_CORES = re.compile(r"^(\d+)(?:\s*\((\d+) Performance and (\d+) Efficiency\))?$", re.IGNORECASE)
_TEXT_CORES_TOTAL = re.compile(r"^(\d+)\b")
# os_version: "macOS 26.2 (25C56)", or with a security response "macOS 26.3.1 (a) (25D771280a)".
_OS_VERSION = re.compile(r"^(?P<name>.*?)\s*(?P<version>\d+(?:\.\d+){0,2})(?:\s+(?P<extra>\([a-z]\)))?"
                         r"\s*\((?P<build>[0-9A-Za-z]+)\)$")


# --------------------------------------------------------------------------------------------
# JSON form

def parse_json(text):
    """``system_profiler -json ...`` -> ``{data type: [items]}``."""
    require_text(JSON_COMMAND, text)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ParseError(JSON_COMMAND, "not JSON (%s)" % exc)
    if not isinstance(data, dict) or not data:
        raise ParseError(JSON_COMMAND, "expected an object keyed by data type")
    for data_type, items in data.items():
        if not isinstance(items, list):
            raise ParseError(JSON_COMMAND, "%s is not a list" % data_type)
    return data


def parse_hardware(items):
    """SPHardwareDataType -> chip, model_id, model_name, model_number, memory_bytes, cores_*,
    serial_number, platform_uuid, boot_rom_version."""
    overview = _single_item(HARDWARE, items)
    total, performance, efficiency, note = _processor_counts(overview.get("number_processors"))
    return {
        "chip": text_value(overview.get("chip_type")),
        "model_id": text_value(overview.get("machine_model")),
        "model_name": text_value(overview.get("machine_name")),
        "model_number": text_value(overview.get("model_number")),
        "memory_bytes": _size_bytes(HARDWARE, overview.get("physical_memory")),
        "cores_total": total,
        "cores_performance": performance,
        "cores_efficiency": efficiency,
        "cores_note": note,
        "serial_number": text_value(overview.get("serial_number")),
        "platform_uuid": text_value(overview.get("platform_UUID")),
        "boot_rom_version": text_value(overview.get("boot_rom_version")),
    }


def parse_software(items):
    """SPSoftwareDataType (keys unconfirmed) -> macos_version, macos_version_extra, macos_build, kernel, os_version.

    ``os_version`` reads ``macOS 26.2 (25C56)``, or on a Mac carrying a security response ``macOS 26.3.1 (a)
    (25D771280a)`` (its ``System Version:`` line; the JSON value unconfirmed), and ``kernel_version``
    ``Darwin 25.2.0``; ``kernel`` is the Darwin release without the word ``Darwin``.
    """
    overview = _single_item(SOFTWARE, items)
    os_version = overview.get("os_version")
    match = _OS_VERSION.match(text_value(os_version) or "")
    if match is None:
        raise ParseError(JSON_COMMAND, "%s os_version %r is not like `macOS 26.2 (25C56)`" % (SOFTWARE, os_version))
    kernel = text_value(overview.get("kernel_version")) or ""
    return {
        "os_version": os_version,
        "macos_version": match.group("version"),
        "macos_version_extra": match.group("extra"),
        "macos_build": match.group("build"),
        "kernel": kernel[len("Darwin "):] if kernel.startswith("Darwin ") else (kernel or None),
    }


def parse_thunderbolt(items):
    """SPThunderboltDataType -> one dict per bus (= one physical port), sorted by receptacle.

    Keys: bus (N of thunderboltusb4_bus_N), bus_name, device_name (this Mac's marketing
    name), receptacle (int), domain_uuid, speed (as printed), speed_gbps (the number in it:
    the link rate, or the port's maximum for an idle ``Up to 120 Gb/s`` port), link
    (up/down), receptacle_status, connected (anything attached), peer (None or the nearest Mac
    at any depth: domain_uuid, model_id, name, rdma_service, via), devices (everything attached
    that is not a Mac: drives, docks, displays). Buses without ``domain_uuid_key`` are skipped,
    as MLX and exo do.
    """
    ports = []
    for bus in items:
        if not isinstance(bus, dict) or not text_value(bus.get("domain_uuid_key")):
            continue
        tag = bus.get("receptacle_1_tag")
        if not isinstance(tag, dict) or "receptacle_id_key" not in tag:
            raise ParseError(JSON_COMMAND, "bus %r has no receptacle_1_tag.receptacle_id_key" % bus.get("_name"))
        bus_name = text_value(bus.get("_name"))
        bus_match = _BUS_NAME.match(bus_name or "")
        peer, devices = classify_json(bus.get("_items"))
        ports.append(_bus(
            bus=int(bus_match.group(1)) if bus_match else None,
            bus_name=bus_name,
            device_name=text_value(bus.get("device_name_key")),
            receptacle=_receptacle(JSON_COMMAND, tag["receptacle_id_key"]),
            domain_uuid=text_value(bus["domain_uuid_key"]),
            speed=text_value(tag.get("current_speed_key")),
            link_status=text_value(tag.get("link_status_key")),
            receptacle_status=text_value(tag.get("receptacle_status_key")),
            status_link=_RECEPTACLE_STATUS.get(text_value(tag.get("receptacle_status_key"))),
            peer=peer,
            devices=devices,
        ))
    return sorted(ports, key=lambda port: port["receptacle"])


def parse_memory(items):
    """SPMemoryDataType on Apple Silicon (keys unconfirmed) -> memory_bytes, type, manufacturer.

    Unified memory is reported as one item whose size sits under the data type's own name:
    ``{"SPMemoryDataType": "64 GB", "dimm_type": "LPDDR5", "dimm_manufacturer": "Micron"}``.
    """
    item = _single_item(MEMORY, items)
    if MEMORY not in item:
        raise ParseError(JSON_COMMAND, "%s item has no size (Intel DIMM lists are not supported)" % MEMORY)
    return {
        "memory_bytes": _size_bytes(MEMORY, item[MEMORY]),
        "type": item.get("dimm_type"),
        "manufacturer": item.get("dimm_manufacturer"),
    }


def parse_network(items):
    """SPNetworkDataType (keys unconfirmed) -> one dict per network service.

    Keys: name, interface, type, hardware, ipv4_method, ipv4_addresses, service_order.
    """
    services = []
    for item in items:
        if not isinstance(item, dict) or "_name" not in item:
            raise ParseError(JSON_COMMAND, "%s item without _name" % NETWORK)
        ipv4 = item.get("IPv4") if isinstance(item.get("IPv4"), dict) else {}
        services.append({
            "name": item["_name"],
            "interface": item.get("interface"),
            "type": item.get("type"),
            "hardware": item.get("hardware"),
            "ipv4_method": ipv4.get("ConfigMethod"),
            "ipv4_addresses": list(ipv4.get("Addresses") or item.get("ip_address") or []),
            "service_order": item.get("spnetwork_service_order"),
        })
    return services


def mask_serial(serial):
    """``QX7F2L9K4M`` -> ``QX7F******``: enough to tell Macs apart in a report, not to claim one. A serial a support
    bundle already replaced (``[redacted serial 1]``, replayed by the lab) stays as it is."""
    if not serial or serial.startswith("[redacted"):
        return serial
    visible = 4 if len(serial) > 4 else 0
    return serial[:visible] + "*" * (len(serial) - visible)


# --------------------------------------------------------------------------------------------
# Text form (indented ``Key: value`` tree), for cross-checking the JSON

def parse_text_tree(command, text):
    """Indented system_profiler text -> nodes ``{"key", "value", "children"}``.

    A line's parent is the nearest line above it with less indentation; section headers
    (``Port:``) have an empty value.
    """
    roots = []
    stack = []
    for line in require_text(command, text).splitlines():
        if not line.strip():
            continue
        key, separator, value = line.strip().partition(":")
        if not separator or not key:
            raise ParseError(command, "line %r is neither `Key: value` nor `Section:`" % line.strip())
        indent = len(line) - len(line.lstrip(" "))
        node = {"key": key.strip(), "value": value.strip(), "children": []}
        while stack and stack[-1][0] >= indent:
            stack.pop()
        (stack[-1][1]["children"] if stack else roots).append(node)
        stack.append((indent, node))
    return roots


def parse_thunderbolt_text(text):
    """Text ``system_profiler SPThunderboltDataType`` -> the same bus dicts as `parse_thunderbolt`.

    Shape (exo #1390): ``Thunderbolt/USB4 Bus N:`` sections holding ``Domain UUID:``, a
    ``Port:`` block with ``Status: Device connected``, ``Speed: 80 Gb/s``, ``Receptacle: 3``,
    and a nested peer block named after the peer. ``Link Status:``, the peer's ``Device Name:``
    (its model id) and ``Service Key: rdma`` inside the peer block are unconfirmed in text form;
    missing ones fall back to the Status line or None.
    """
    ports = []
    tb3_buses = []
    for bus_node in _walk(parse_text_tree(THUNDERBOLT_TEXT_COMMAND, text)):
        bus_match = _TEXT_BUS.match(bus_node["key"])
        if bus_match is None:
            if _TEXT_TB3_BUS.match(bus_node["key"]):
                tb3_buses.append(bus_node["key"])
            continue
        domain_uuid = _leaf(bus_node, "Domain UUID")
        if not domain_uuid:
            continue
        port_node = _child(bus_node, "Port")
        if port_node is None or _leaf(port_node, "Receptacle") is None:
            raise ParseError(THUNDERBOLT_TEXT_COMMAND, "%s has no Port block with a Receptacle" % bus_node["key"])
        status = _leaf(port_node, "Status")
        peer, devices = classify_text(bus_node)
        ports.append(_bus(
            bus=int(bus_match.group(1)),
            bus_name=bus_node["key"],
            device_name=_leaf(bus_node, "Device Name"),
            receptacle=_receptacle(THUNDERBOLT_TEXT_COMMAND, _leaf(port_node, "Receptacle")),
            domain_uuid=domain_uuid,
            speed=_leaf(port_node, "Speed"),
            link_status=_leaf(port_node, "Link Status"),
            receptacle_status=status,
            status_link=_TEXT_STATUS.get((status or "").lower()),
            peer=peer,
            devices=devices,
        ))
    if not ports and tb3_buses:
        raise ParseError(THUNDERBOLT_TEXT_COMMAND, "`%s:` is the Thunderbolt 3 layout of Intel Macs, not the "
                         "`Thunderbolt/USB4 Bus N:` layout of Thunderbolt 5 Macs; this collection reads only the "
                         "latter" % tb3_buses[0])
    if not ports:
        raise ParseError(THUNDERBOLT_TEXT_COMMAND, "no `Thunderbolt/USB4 Bus N:` section with a Domain UUID")
    return sorted(ports, key=lambda port: port["receptacle"])


def parse_hardware_text(text):
    """Text ``system_profiler SPHardwareDataType`` -> the same dict as `parse_hardware`.

    Lines: ``Model Name: Mac Studio``, ``Model Identifier: Mac15,14``, ``Chip: Apple M3 Ultra``,
    ``Total Number of Cores: 32 (24 Performance and 8 Efficiency)``, ``Memory: 512 GB``.
    ``Serial Number (system)``, ``Hardware UUID`` and ``System Firmware Version`` are the
    usual labels, unconfirmed by any published capture.
    """
    fields = dict((node["key"], node["value"]) for node in _walk(parse_text_tree(HARDWARE_TEXT_COMMAND, text)) if node["value"])
    if "Model Identifier" not in fields:
        raise ParseError(HARDWARE_TEXT_COMMAND, "no `Model Identifier:` line")
    total = performance = efficiency = None
    note = None
    cores_text = fields.get("Total Number of Cores", "")
    cores = _TEXT_CORES.match(cores_text)
    if cores:
        total, performance, efficiency = [int(group) if group else None for group in cores.groups()]
    elif _TEXT_CORES_TOTAL.match(cores_text):
        total = int(_TEXT_CORES_TOTAL.match(cores_text).group(1))
    if cores_text and performance is None:
        note = "`%s` prints `Total Number of Cores: %s`: no performance/efficiency split to read" % (
            HARDWARE_TEXT_COMMAND, cores_text)
    return {
        "chip": fields.get("Chip"),
        "model_id": fields["Model Identifier"],
        "model_name": fields.get("Model Name"),
        "model_number": fields.get("Model Number"),
        "memory_bytes": _size_bytes(HARDWARE, fields.get("Memory"), HARDWARE_TEXT_COMMAND),
        "cores_total": total,
        "cores_performance": performance,
        "cores_efficiency": efficiency,
        "cores_note": note,
        "serial_number": fields.get("Serial Number (system)"),
        "platform_uuid": fields.get("Hardware UUID"),
        "boot_rom_version": fields.get("System Firmware Version"),
    }


# Fields the JSON and text forms both carry; used to cross-check one against the other.
CROSS_CHECKED_FIELDS = ("bus", "receptacle", "domain_uuid", "speed", "speed_gbps", "link", "connected")


def thunderbolt_differences(json_ports, text_ports):
    """Human-readable differences between the two forms, keyed by receptacle; [] if they agree."""
    json_by_receptacle = dict((port["receptacle"], port) for port in json_ports)
    text_by_receptacle = dict((port["receptacle"], port) for port in text_ports)
    differences = []
    for receptacle in sorted(set(json_by_receptacle) | set(text_by_receptacle)):
        json_port, text_port = json_by_receptacle.get(receptacle), text_by_receptacle.get(receptacle)
        if json_port is None or text_port is None:
            differences.append("receptacle %d only in the %s form" % (receptacle, "text" if json_port is None else "JSON"))
            continue
        for field in CROSS_CHECKED_FIELDS:
            if json_port[field] != text_port[field]:
                differences.append("receptacle %d %s: JSON %r, text %r" % (receptacle, field, json_port[field], text_port[field]))
        json_peer_uuid = (json_port["peer"] or {}).get("domain_uuid")
        text_peer_uuid = (text_port["peer"] or {}).get("domain_uuid")
        if json_peer_uuid != text_peer_uuid:
            differences.append("receptacle %d peer domain_uuid: JSON %r, text %r" % (receptacle, json_peer_uuid, text_peer_uuid))
    return differences


# --------------------------------------------------------------------------------------------
# helpers

def _bus(bus, bus_name, device_name, receptacle, domain_uuid, speed, link_status, receptacle_status, status_link,
         peer, devices):
    attached = peer is not None or bool(devices)
    # The receptacle status first, then a known link code, then whether anything hangs off the port.
    link = status_link or _LINK_STATUS.get(link_status) or (LINK_UP if attached else LINK_DOWN)
    connected = link == LINK_UP or attached
    return {
        "bus": bus,
        "bus_name": bus_name,
        "device_name": device_name,
        "receptacle": receptacle,
        "domain_uuid": domain_uuid,
        "speed": speed,
        "speed_gbps": _speed_gbps(speed),
        "link": link,
        "receptacle_status": receptacle_status,
        "connected": connected,
        "peer": peer,
        "devices": devices,
    }


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node["children"])


def _child(node, key):
    return next((child for child in node["children"] if child["key"] == key), None)


def _leaf(node, key):
    child = _child(node, key)
    return child["value"] if child is not None else None


def _single_item(data_type, items):
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        raise ParseError(JSON_COMMAND, "%s holds no item" % data_type)
    return items[0]


def _receptacle(command, value):
    if not str(value).isdigit():
        raise ParseError(command, "receptacle id %r is not a number" % (value,))
    return int(value)


def _speed_gbps(speed):
    match = _SPEED.search(speed or "")
    if match is None:
        return None
    number = float(match.group(1))
    return int(number) if number.is_integer() else number


def _size_bytes(data_type, size, command=JSON_COMMAND):
    """``512 GB`` -> 549755813888: system_profiler's GB are GiB (they equal hw.memsize)."""
    if size is None:
        return None
    match = _SIZE.match(size.strip()) if isinstance(size, str) else None
    if match is None:
        raise ParseError(command, "%s memory size %r is not like `512 GB`" % (data_type, size))
    return int(float(match.group(1)) * _SIZE_FACTORS[match.group(2)])


def _processor_counts(value):
    """``number_processors`` -> (total, performance, efficiency, note); note says why a split is missing.

    Real Macs print (published captures): ``proc 32:24:8`` (total:performance:
    efficiency); four fields in two layouts that name their tiers, ``proc 24:16:8:0`` (M2 Ultra)
    and ``proc 14:0:10:4``; ``proc 18:6:0:12`` (M5 Max), whose tiers have new names that only
    ``sysctl hw.perflevelN.name`` gives; and a bare integer (``8``) on Intel and virtual Macs and
    under Rosetta. The total is kept whenever it can be read; the split only when the tiers are
    known to be performance and efficiency.
    """
    where = "`%s` %s number_processors %r" % (JSON_COMMAND, HARDWARE, value)
    if value is None:
        return None, None, None, None
    if isinstance(value, bool):
        return None, None, None, "%s is not a core count" % where
    if isinstance(value, int):
        return value, None, None, "%s is a bare total (Intel, virtual Mac or Rosetta): no split" % where
    match = _PROCESSORS.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        return None, None, None, "%s is not like `proc 32:24:8`" % where
    numbers = [int(number) for number in match.group(1).split(":")]
    total, tiers = numbers[0], numbers[1:]
    named = None
    if len(tiers) == 2:
        named = tiers
    elif len(tiers) == 3 and tiers[2] == 0:
        named = tiers[:2]
    elif len(tiers) == 3 and tiers[0] == 0:
        named = tiers[1:]
    if named is not None and sum(named) == total:
        return total, named[0], named[1], None
    return total, None, None, "%s: the tiers are not named performance and efficiency in this layout" % where
