# -*- coding: utf-8 -*-
# PRIVATE to the collection: joins parsed system_profiler and networksetup output into the
# `mac` fact dict. Do not use this from other collections. Stdlib only, Python 3.9.
"""Build the ``mac`` dict returned by ``macops.cluster.system_profiler``.

The controller-side topology planner reads these field names; change them only together.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils import _system_profiler as sp
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import device_by_port_name

# networksetup names the hardware port of receptacle N "Thunderbolt N" (MLX, exo).
THUNDERBOLT_PORT_NAME = "Thunderbolt %d"


def thunderbolt_ports(buses, hardware_ports):
    """Parsed Thunderbolt buses + hardware ports -> the ``thunderbolt_ports`` list.

    The interface comes from the hardware port named after the receptacle, never from arithmetic
    on ``enN``: on an M5 Max MacBook Pro Thunderbolt 1/2/3 are en1/en6/en2 (a published capture,
    oMLX's ``tests/test_cluster_topology.py``)."""
    devices = device_by_port_name(hardware_ports)
    return [
        {
            "receptacle": bus["receptacle"],
            "bus": bus["bus"],
            # This Mac's marketing name as the bus gives it (RDMA readiness tells a Mac Studio by it).
            "device_name": bus.get("device_name"),
            "interface": devices.get(THUNDERBOLT_PORT_NAME % bus["receptacle"]),
            "domain_uuid": bus["domain_uuid"],
            "speed": bus["speed"],
            "speed_gbps": bus["speed_gbps"],
            "link": bus["link"],
            "connected": bus["connected"],
            "peer": bus["peer"],
            "devices": bus["devices"],
        }
        for bus in buses
    ]


def build_mac(profiler_data, hardware_ports, unmask_serial=False):
    """`parse_json` output + `parse_hardware_ports` output -> the ``mac`` dict.

    Data types that were not collected leave their scalar fields None and lists empty.
    """
    hardware = sp.parse_hardware(profiler_data[sp.HARDWARE]) if sp.HARDWARE in profiler_data else {}
    software = sp.parse_software(profiler_data[sp.SOFTWARE]) if sp.SOFTWARE in profiler_data else {}
    memory_bytes = hardware.get("memory_bytes")
    if memory_bytes is None and sp.MEMORY in profiler_data:
        memory_bytes = sp.parse_memory(profiler_data[sp.MEMORY])["memory_bytes"]
    buses = sp.parse_thunderbolt(profiler_data.get(sp.THUNDERBOLT, []))
    serial = hardware.get("serial_number")
    return {
        "chip": hardware.get("chip"),
        "model_id": hardware.get("model_id"),
        "model_name": hardware.get("model_name"),
        "memory_bytes": memory_bytes,
        "cores_total": hardware.get("cores_total"),
        "cores_performance": hardware.get("cores_performance"),
        "cores_efficiency": hardware.get("cores_efficiency"),
        "cores_note": hardware.get("cores_note"),
        "macos_version": software.get("macos_version"),
        "macos_version_extra": software.get("macos_version_extra"),
        "macos_build": software.get("macos_build"),
        "kernel": software.get("kernel"),
        "serial_number": serial if unmask_serial else sp.mask_serial(serial),
        "hardware_ports": hardware_ports,
        "thunderbolt_ports": thunderbolt_ports(buses, hardware_ports),
        "network_services": sp.parse_network(profiler_data.get(sp.NETWORK, [])),
    }


def mask_raw_serials(profiler_data):
    """Copy of the raw JSON with every ``serial_number`` masked, for ``raw=true`` without unmasking."""
    if isinstance(profiler_data, dict):
        return dict(
            (key, sp.mask_serial(value) if key == "serial_number" and isinstance(value, str) else mask_raw_serials(value))
            for key, value in profiler_data.items()
        )
    if isinstance(profiler_data, list):
        return [mask_raw_serials(item) for item in profiler_data]
    return profiler_data
