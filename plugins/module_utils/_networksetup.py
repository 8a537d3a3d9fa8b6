# -*- coding: utf-8 -*-
# PRIVATE to the collection: parsers for `networksetup` read commands.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse the ``networksetup`` subcommands the roles read.

Confirmed by the code that reads them upstream (MLX's ``mlx.distributed_config``, exo's
``info_gatherer`` and ``tmp/set_rdma_network_config.sh``) and a real M3 Ultra listing:
``-listallhardwareports``, ``-listnetworkserviceorder``, ``-listallnetworkservices``,
``-getnetworkserviceenabled``. The ``-getinfo`` and ``-getMTU``
layouts below are written from memory of real Macs and are **unconfirmed**; their parsers
accept only the lines they understand and say so when something else turns up.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import (
    ParseError,
    key_value_lines,
    require_text,
    split_field,
)

HARDWARE_PORTS_COMMAND = "networksetup -listallhardwareports"
SERVICE_ORDER_COMMAND = "networksetup -listnetworkserviceorder"
ALL_SERVICES_COMMAND = "networksetup -listallnetworkservices"
GETINFO_COMMAND = "networksetup -getinfo"
SERVICE_ENABLED_COMMAND = "networksetup -getnetworkserviceenabled"
GETMTU_COMMAND = "networksetup -getMTU"

DISABLED_NOTE = "An asterisk (*) denotes that a network service is disabled."
_VLAN_TRAILER = "VLAN Configurations"
# networksetup prints "N/A" for ports without a hardware address (some bridges, VPNs).
_NO_ADDRESS = "N/A"
_ORDER_NAME = re.compile(r"^\((?P<order>\d+|\*)\)\s+(?P<name>.+)$")
_ORDER_PORT = re.compile(r"^\(Hardware Port:\s*(?P<port>.*?),\s*Device:\s*(?P<device>.*?)\)$")
# Unconfirmed: `-getMTU en3` -> "Active MTU: 1500 (Current Setting: 1500)".
_MTU = re.compile(r"^Active MTU:\s*(?P<active>\d+)\s*\(Current Setting:\s*(?P<current>\d+)\)$")
# Unconfirmed wording of a networksetup error about an unknown service or device.
_ERROR_MARKERS = ("** Error", "is not a recognized network service", "Could not find")


def parse_hardware_ports(text):
    """``-listallhardwareports`` -> ``[{"name", "device", "mac"}]`` in output order.

    Blocks are ``Hardware Port:`` / ``Device:`` / ``Ethernet Address:`` at column 0; parsing
    stops at the ``VLAN Configurations`` trailer, whose entry format is unconfirmed.
    """
    ports = []
    for line in require_text(HARDWARE_PORTS_COMMAND, text).splitlines():
        if line.strip() == _VLAN_TRAILER:
            break
        field = split_field(line)
        if field is None:
            if line.strip():
                raise ParseError(HARDWARE_PORTS_COMMAND, "unexpected line %r" % line.strip())
            continue
        key, value = field
        if key == "Hardware Port":
            ports.append({"name": value, "device": None, "mac": None})
        elif not ports:
            raise ParseError(HARDWARE_PORTS_COMMAND, "%r comes before any `Hardware Port:` line" % key)
        elif key == "Device":
            ports[-1]["device"] = value or None
        elif key == "Ethernet Address":
            ports[-1]["mac"] = None if value in ("", _NO_ADDRESS) else value.lower()
    if not ports:
        raise ParseError(HARDWARE_PORTS_COMMAND, "no `Hardware Port:` entries")
    for port in ports:
        if port["device"] is None:
            raise ParseError(HARDWARE_PORTS_COMMAND, "port %r has no `Device:` line" % port["name"])
    return ports


def device_by_port_name(ports):
    """``{"Thunderbolt 1": "en2", ...}``: how MLX and exo map a receptacle to an interface."""
    return dict((port["name"], port["device"]) for port in ports)


def parse_service_order(text):
    """``-listnetworkserviceorder`` -> ``[{"order", "name", "enabled", "hardware_port", "device"}]``.

    Enabled services are numbered ``(1) Ethernet``; disabled ones print ``(*) Name`` and get
    ``order`` None. Services without hardware (VPNs) have an empty ``Device:``, returned as None.
    """
    lines = _service_lines(SERVICE_ORDER_COMMAND, text)
    services = []
    for line in lines:
        name_match = _ORDER_NAME.match(line)
        port_match = _ORDER_PORT.match(line)
        if name_match:
            order = name_match.group("order")
            services.append({
                "order": None if order == "*" else int(order),
                "name": name_match.group("name"),
                "enabled": order != "*",
                "hardware_port": None,
                "device": None,
            })
        elif port_match and services and services[-1]["hardware_port"] is None:
            services[-1]["hardware_port"] = port_match.group("port")
            services[-1]["device"] = port_match.group("device") or None
        else:
            raise ParseError(SERVICE_ORDER_COMMAND, "unexpected line %r" % line)
    return services


def parse_all_services(text):
    """``-listallnetworkservices`` -> ``[{"name", "enabled"}]``; disabled names start with ``*``."""
    services = []
    for line in _service_lines(ALL_SERVICES_COMMAND, text):
        enabled = not line.startswith("*")
        services.append({"name": line if enabled else line[1:].strip(), "enabled": enabled})
    return services


def parse_service_enabled(text):
    """``-getnetworkserviceenabled <svc>`` -> True for ``Enabled``, False for ``Disabled``."""
    answer = require_text(SERVICE_ENABLED_COMMAND, text).strip()
    if answer == "Enabled":
        return True
    if answer == "Disabled":
        return False
    raise ParseError(SERVICE_ENABLED_COMMAND, "expected Enabled or Disabled, got %r" % answer)


def parse_getinfo(text):
    """``-getinfo <service>`` (format unconfirmed) -> the IPv4 settings a role compares.

    Expected shape::

        Manual Configuration
        IP address: 198.19.0.1
        Subnet mask: 255.255.255.252
        Router: (null)
        IPv6: Automatic
        ...
        Ethernet Address: 36:5e:0b:41:7c:02

    The first line names the method (DHCP, Manual, BOOTP, ...); values ``(null)``, ``none``
    and empty become None. Returns method, ip_address, subnet_mask, router, ipv6, mac.
    """
    require_text(GETINFO_COMMAND, text)
    _raise_on_error_text(GETINFO_COMMAND, text)
    lines = [line for line in text.splitlines() if line.strip()]
    method = None
    if lines and split_field(lines[0]) is None and lines[0].strip().endswith(" Configuration"):
        method = lines.pop(0).strip()[:-len(" Configuration")].lower()
    fields = key_value_lines(GETINFO_COMMAND, "\n".join(lines)) if lines else {}
    if method is None and "IP address" not in fields:
        raise ParseError(GETINFO_COMMAND, "neither a `<Method> Configuration` line nor an `IP address:` line")
    # Wired services print "Ethernet Address:", Wi-Fi prints "Wi-Fi ID:" (unconfirmed).
    mac = fields.get("Ethernet Address") or fields.get("Wi-Fi ID")
    return {
        "method": method,
        "ip_address": _none_if_null(fields.get("IP address")),
        "subnet_mask": _none_if_null(fields.get("Subnet mask")),
        "router": _none_if_null(fields.get("Router")),
        "ipv6": _none_if_null(fields.get("IPv6")),
        "mac": _none_if_null(mac.lower() if mac else None),
    }


def parse_mtu(text):
    """``-getMTU <device>`` (format unconfirmed) -> ``{"active": 1500, "current": 1500}``."""
    require_text(GETMTU_COMMAND, text)
    _raise_on_error_text(GETMTU_COMMAND, text)
    match = _MTU.match(text.strip())
    if match is None:
        raise ParseError(GETMTU_COMMAND, "expected `Active MTU: N (Current Setting: N)`, got %r" % text.strip())
    return {"active": int(match.group("active")), "current": int(match.group("current"))}


def _service_lines(command, text):
    lines = [line.strip() for line in require_text(command, text).splitlines() if line.strip()]
    if lines[0] != DISABLED_NOTE:
        raise ParseError(command, "the header %r is missing" % DISABLED_NOTE)
    return lines[1:]


def _raise_on_error_text(command, text):
    for marker in _ERROR_MARKERS:
        if marker in text:
            raise ParseError(command, "networksetup reported an error: %s" % " ".join(text.split()))


def _none_if_null(value):
    if value is None or value.strip() in ("", "(null)", "none"):
        return None
    return value.strip()
