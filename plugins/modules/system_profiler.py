#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: system_profiler
short_description: Read a Mac's hardware, macOS version and Thunderbolt ports
version_added: 0.1.0
description:
  - Runs C(system_profiler -json) once for the requested data types and
    C(networksetup -listallhardwareports), and returns them as one normalized C(mac) dictionary.
  - Each Thunderbolt receptacle is mapped to its network interface through the hardware port
    named C(Thunderbolt <receptacle>), the same way MLX and exo do it.
  - The controller-side topology planner pairs ports by matching a port's C(peer.domain_uuid)
    with another Mac's RV(mac.thunderbolt_ports[].domain_uuid).
  - Read-only; it never changes the Mac.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
  - macops.cluster.attributes.facts
options:
  data_types:
    description:
      - C(system_profiler) data types to collect, passed in one call.
      - C(SPHardwareDataType), C(SPSoftwareDataType), C(SPThunderboltDataType), C(SPMemoryDataType)
        and C(SPNetworkDataType) are normalized into RV(mac); others are only returned with O(raw=true).
    type: list
    elements: str
    default: [SPHardwareDataType, SPSoftwareDataType, SPThunderboltDataType]
  unmask_serial:
    description:
      - Return the serial number as it is. By default all but its first four characters are
        replaced with C(*), enough to tell Macs apart in a report.
    type: bool
    default: false
  set_facts:
    description:
      - Also return the dictionary as the host fact C(macops_mac).
    type: bool
    default: false
  raw:
    description:
      - Also return the parsed C(system_profiler) JSON as RV(raw), serial numbers masked unless O(unmask_serial=true).
    type: bool
    default: false
notes:
  - The key names of C(SPSoftwareDataType), C(SPMemoryDataType) and C(SPNetworkDataType) JSON are
    not confirmed against a primary source; the Thunderbolt and hardware formats are.
seealso:
  - module: macops.cluster.rdma_status
"""

EXAMPLES = r"""
- name: Read hardware and Thunderbolt cabling
  macops.cluster.system_profiler:
  register: __macops_profile

- name: Store the result as the macops_mac fact for the topology planner
  macops.cluster.system_profiler:
    set_facts: true

- name: Show which Thunderbolt ports are cabled, and to what
  ansible.builtin.debug:
    msg: "{{ item.interface }} -> {{ item.peer.name }} at {{ item.speed }}"
  loop: "{{ __macops_profile.mac.thunderbolt_ports | selectattr('connected') }}"

- name: Include memory details and the raw JSON
  macops.cluster.system_profiler:
    data_types: [SPHardwareDataType, SPMemoryDataType]
    raw: true
"""

RETURN = r"""
mac:
  description: The Mac, normalized. Fields of data types that were not collected are null, lists empty.
  returned: success
  type: dict
  contains:
    chip:
      description: Chip marketing name.
      type: str
      sample: Apple M3 Ultra
    model_id:
      description: Model identifier.
      type: str
      sample: Mac15,14
    model_name:
      description: Marketing model name.
      type: str
      sample: Mac Studio
    memory_bytes:
      description: Unified memory in bytes.
      type: int
      sample: 549755813888
    cores_total:
      description: CPU cores.
      type: int
      sample: 32
    cores_performance:
      description: Performance cores; null when the OS reports a layout the module does not know.
      type: int
      sample: 24
    cores_efficiency:
      description: Efficiency cores; null as for RV(mac.cores_performance).
      type: int
      sample: 8
    cores_note:
      description:
        - Why RV(mac.cores_performance) and RV(mac.cores_efficiency) are null, naming the command and the field;
          null when the split is known.
        - C(number_processors) is a bare integer on Intel and virtual Macs and under Rosetta, and the M5
          generation's C(proc 18:6:0:12) names its tiers differently; the total is kept in both cases.
      type: str
      sample: "`system_profiler -json` SPHardwareDataType number_processors 8 is a bare total (Intel, virtual Mac or Rosetta): no split"
    macos_version:
      description: macOS version from C(SPSoftwareDataType).
      type: str
      sample: "26.2"
    macos_version_extra:
      description: The security response the Mac carries (Rapid Security Response, Background Security Improvement),
        as C((a)); null without one.
      type: str
      sample: "(a)"
    macos_build:
      description: macOS build (a security response's own, longer build when the Mac carries one, such as C(25D771280a)).
      type: str
      sample: 25C56
    kernel:
      description: Darwin kernel release.
      type: str
      sample: 25.2.0
    serial_number:
      description: Serial number, masked unless O(unmask_serial=true).
      type: str
      sample: QX7F******
    hardware_ports:
      description: C(networksetup -listallhardwareports) entries in output order.
      type: list
      elements: dict
      sample: [{"name": "Thunderbolt 1", "device": "en2", "mac": "36:5e:0b:41:7c:01"}]
    thunderbolt_ports:
      description: One entry per Thunderbolt bus (physical port), sorted by receptacle.
      type: list
      elements: dict
      contains:
        receptacle:
          description: Receptacle number; hardware port C(Thunderbolt <receptacle>).
          type: int
        bus:
          description: Bus number N of C(thunderboltusb4_bus_N).
          type: int
        device_name:
          description: This Mac's marketing name as the bus reports it (C(device_name_key)), null when absent.
          type: str
          sample: Mac Studio
        interface:
          description: BSD interface of the port, null if networksetup does not list it.
          type: str
          sample: en3
        domain_uuid:
          description: This port's domain UUID.
          type: str
        speed:
          description: Speed as printed, C(80 Gb/s) on a TB5 link, C(40 Gb/s) on TB4, C(Up to 120 Gb/s) when idle.
          type: str
        speed_gbps:
          description: The number in RV(mac.thunderbolt_ports[].speed); for an idle port, its maximum.
          type: float
        link:
          description: C(up) or C(down).
          type: str
        connected:
          description: Whether anything is attached (a Mac, a drive, a dock).
          type: bool
        peer:
          description:
            - The nearest Mac on this port, at any depth (an item with a domain UUID), or null. Keys
              C(domain_uuid) (the peer's own port UUID), C(model_id), C(name), C(rdma_service) (the peer
              advertises the RDMA XD service, protocol 64087) and C(via) (the devices between this port and the
              Mac, such as a dock; empty for a direct cable, the only kind that carries RDMA).
          type: dict
        devices:
          description:
            - Everything attached that is not a Mac (drives, docks, displays; items without a domain UUID), in
              the order printed. Keys C(name), C(vendor), C(model), C(mode) (C(mode_key), such as C(usb_four_v2)),
              C(speed) (its upstream link), C(depth) (1 when plugged into this port) and C(upstream) (the device it
              hangs off).
          type: list
          elements: dict
    network_services:
      description: Network services from C(SPNetworkDataType) (name, interface, type, hardware,
        ipv4_method, ipv4_addresses, service_order); empty unless that data type is collected.
      type: list
      elements: dict
raw:
  description: The parsed C(system_profiler -json) output, keyed by data type.
  returned: when O(raw=true)
  type: dict
ansible_facts:
  description: C(macops_mac), the same dictionary as RV(mac).
  returned: when O(set_facts=true)
  type: dict
"""

import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac, mask_raw_serials
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._system_profiler import (
    HARDWARE,
    SOFTWARE,
    THUNDERBOLT,
    parse_json,
)

# Data types are passed to system_profiler as arguments: only accept names, never options.
_DATA_TYPE = re.compile(r"^SP[A-Za-z0-9]+DataType$")


def collect(module):
    params = module.params
    invalid = [name for name in params["data_types"] if not _DATA_TYPE.match(name)]
    if invalid or not params["data_types"]:
        module.fail_json(msg="data_types must be non-empty names like SPHardwareDataType, got %s" % (invalid or "[]"))
    system_profiler = commands.require_command(module, "system_profiler")
    networksetup = commands.require_command(module, "networksetup")

    profile_out = commands.run(module, [system_profiler, "-json"] + params["data_types"])
    ports_out = commands.run(module, [networksetup, "-listallhardwareports"])
    data = commands.parse(module, parse_json, profile_out)
    hardware_ports = commands.parse(module, parse_hardware_ports, ports_out)
    mac = commands.parse(module, build_mac, data, hardware_ports, params["unmask_serial"])

    result = {"changed": False, "mac": mac}
    if params["raw"]:
        result["raw"] = data if params["unmask_serial"] else mask_raw_serials(data)
    if params["set_facts"]:
        result["ansible_facts"] = {"macops_mac": mac}
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(
            data_types=dict(type="list", elements="str", default=[HARDWARE, SOFTWARE, THUNDERBOLT]),
            unmask_serial=dict(type="bool", default=False),
            set_facts=dict(type="bool", default=False),
            raw=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    module.exit_json(**collect(module))


if __name__ == "__main__":
    main()
