#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: rdma_status
short_description: Check whether a Mac is ready for RDMA over Thunderbolt 5
version_added: 0.1.0
description:
  - Runs C(sw_vers), C(rdma_ctl status), C(ibv_devices), C(ibv_devinfo -v) (only when RDMA devices exist),
    C(system_profiler -json SPThunderboltDataType) and C(networksetup -listallhardwareports), and
    reports per RDMA port whether it is cabled, active and has an IPv4 GID.
  - RV(ready) is true when RDMA is enabled, macOS is at least O(min_macos), and every cabled
    Thunderbolt 5 port has an C(rdma_enX) device in state C(PORT_ACTIVE) with an IPv4-mapped GID
    (MLX JACCL needs one), and no cable sits in the Mac Studio port next to Ethernet.
  - Everything else is reported in RV(problems) with a stable code, a message and a fix.
    The module does not fail because RDMA is not ready; gate on RV(ready) or RV(problems).
  - Enabling RDMA needs macOS Recovery and cannot be automated; the C(rdma_disabled) fix lists the steps.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
  - macops.cluster.attributes.facts
options:
  min_macos:
    description:
      - Oldest macOS version accepted as ready. RDMA over Thunderbolt arrived in macOS 26.2.
    type: str
    default: "26.2"
  mac_facts:
    description:
      - Also publish RV(ansible_facts.macops_mac), the facts M(macops.cluster.system_profiler) publishes with
        O(macops.cluster.system_profiler#module:set_facts=true), from this module's own run of C(system_profiler),
        which then also reads C(SPHardwareDataType) and C(SPSoftwareDataType).
      - A play that needs both (the reboot playbook's report) then starts C(system_profiler) once per Mac instead of twice.
    type: bool
    default: false
  mac:
    description:
      - A C(macops_mac) fact read earlier in the run (M(macops.cluster.node_facts) or M(macops.cluster.system_profiler)).
        Its Thunderbolt ports and macOS version and build are used, and C(sw_vers), C(system_profiler) and
        C(networksetup) are not run; cabling and macOS do not change when addresses are set, so a playbook reads
        them once per node.
      - Cannot be combined with O(mac_facts).
    type: dict
notes:
  - The module fails only when C(sw_vers), C(system_profiler) or C(networksetup) is missing, fails, or
    prints something it cannot parse.
  - A missing C(rdma_ctl) is reported as problem C(rdma_ctl_missing); a failing C(ibv_devices) or
    C(ibv_devinfo) as warning C(rdma_tool_failed).
seealso:
  - module: macops.cluster.system_profiler
"""

EXAMPLES = r"""
- name: Check RDMA readiness
  macops.cluster.rdma_status:
  register: __macops_rdma

- name: Stop when a node is not ready, listing what to fix
  ansible.builtin.assert:
    that: __macops_rdma.ready
    fail_msg: >-
      {{ __macops_rdma.problems | selectattr('severity', 'equalto', 'error')
         | map(attribute='message') | list }}

- name: Check RDMA readiness and refresh the macops_mac facts in the same run
  macops.cluster.rdma_status:
    mac_facts: true
  register: __macops_rdma

- name: Accept a beta train on a test rig
  macops.cluster.rdma_status:
    min_macos: "26.1"
"""

RETURN = r"""
enabled:
  description: C(rdma_ctl status) said enabled (true) or disabled (false); null when unknown or not installed.
  returned: always
  type: bool
  sample: true
macos_version:
  description: C(sw_vers) product version.
  returned: always
  type: str
  sample: "26.2"
macos_build:
  description: C(sw_vers) build version; exo wants the same build on every node.
  returned: always
  type: str
  sample: 25C56
ports:
  description: One entry per RDMA device and per cabled Thunderbolt port, sorted by interface.
  returned: always
  type: list
  elements: dict
  contains:
    device:
      description: RDMA device name (expected name when the device is missing).
      type: str
      sample: rdma_en3
    interface:
      description: BSD interface of the Thunderbolt port.
      type: str
      sample: en3
    present:
      description: C(ibv_devices) lists the device.
      type: bool
    state:
      description: Port 1 state from C(ibv_devinfo -v), null when unknown.
      type: str
      sample: PORT_ACTIVE
    active:
      description: RV(ports[].state) is C(PORT_ACTIVE).
      type: bool
    ipv4_gid:
      description: The GID table has an IPv4-mapped entry (C(::ffff:a.b.c.d)).
      type: bool
    gids:
      description: GID table of port 1.
      type: list
      elements: str
      sample: ["fe80::345e:bff:fe41:7c02", "::ffff:198.19.0.1"]
    cabled:
      description:
        - A Mac is on a direct cable to this Thunderbolt port (or something attached that did not enumerate).
          A drive or dock alone, or a Mac behind a dock, is not a cable RDMA could use, so such a port is
          false and not checked.
      type: bool
    speed_gbps:
      description: Link speed of a cabled port (80 for TB5, 40 for TB4); null when not cabled.
      type: float
      sample: 80
ready:
  description: RDMA can be used on every cabled Thunderbolt 5 port of this Mac.
  returned: always
  type: bool
ansible_facts:
  description: With O(mac_facts=true), the facts M(macops.cluster.system_profiler) publishes.
  returned: when O(mac_facts=true)
  type: dict
  contains:
    macops_mac:
      description: The RV(macops.cluster.system_profiler#module:mac) dict, serial number masked.
      type: dict
problems:
  description:
    - What stands between this Mac and RDMA; RV(ready) is false while any has severity C(error).
    - Each in the collection's one problem shape, with a code from C(docs/problems.md).
  returned: always
  type: list
  elements: dict
  contains:
    code:
      description:
        - Stable identifier, one of C(rdma_ctl_missing), C(rdma_status_unknown), C(rdma_disabled),
          C(macos_too_old), C(rdma_device_missing), C(rdma_port_down), C(rdma_no_ipv4_gid),
          C(tb_link_tb4_speed), C(tb_port_next_to_ethernet), C(tb_no_cabled_ports), C(rdma_tool_failed).
      type: str
      sample: rdma_port_down
    severity:
      description: C(error) or C(warning).
      type: str
    message:
      description: What is wrong, naming the port.
      type: str
    fix:
      description: What to do about it.
      type: str
    port:
      description: Interface the problem is about, null for the whole Mac.
      type: str
      sample: en3
    host:
      description: Null; the report and the roles set the node's name.
      type: str
    peer:
      description: Null; the report adds the peer of the port from the address plan.
      type: str
    details:
      description: Machine-readable extras, empty here.
      type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils import _rdma_facts
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac, thunderbolt_ports
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import parse_full, version_tuple
from ansible_collections.macops.cluster.plugins.module_utils._system_profiler import (
    HARDWARE,
    SOFTWARE,
    THUNDERBOLT,
    parse_json,
    parse_thunderbolt,
)


def collect_with_mac(module, mac):
    """Readiness from the RDMA tools only, with the ports and macOS of a macops_mac read earlier."""
    if not mac.get("macos_version"):
        module.fail_json(msg="mac has no macos_version: pass the macops_mac fact of macops.cluster.node_facts")
    results = commands.run_parallel(_rdma_facts.argvs(module))
    result = {"changed": False}
    result.update(_rdma_facts.readiness(module, results, mac["macos_version"], mac.get("macos_build"),
                                        module.params["min_macos"], mac.get("thunderbolt_ports") or []))
    return result


def collect(module):
    min_macos = module.params["min_macos"]
    try:
        version_tuple(min_macos)
    except ValueError as exc:
        module.fail_json(msg="min_macos: %s" % exc)
    if module.params["mac"] is not None:
        return collect_with_mac(module, module.params["mac"])
    sw_vers = commands.require_command(module, "sw_vers")
    system_profiler = commands.require_command(module, "system_profiler")
    networksetup = commands.require_command(module, "networksetup")

    # The reads are independent: at once (ibv_devinfo too; its answer counts only when devices exist).
    data_types = [HARDWARE, SOFTWARE, THUNDERBOLT] if module.params["mac_facts"] else [THUNDERBOLT]
    required = [[sw_vers], [system_profiler, "-json"] + data_types, [networksetup, "-listallhardwareports"]]
    results = commands.run_parallel(required + _rdma_facts.argvs(module))
    outputs = [commands.succeeded(module, argv, result) for argv, result in zip(required, results)]
    versions = commands.parse(module, parse_full, outputs[0])
    profile = commands.parse(module, parse_json, outputs[1])
    hardware_ports = commands.parse(module, parse_hardware_ports, outputs[2])
    buses = commands.parse(module, parse_thunderbolt, profile.get(THUNDERBOLT, []))
    result = {"changed": False}
    result.update(_rdma_facts.readiness(module, results[3:], versions["product_version"], versions["build_version"],
                                        min_macos, thunderbolt_ports(buses, hardware_ports)))
    if module.params["mac_facts"]:
        result["ansible_facts"] = {"macops_mac": commands.parse(module, build_mac, profile, hardware_ports)}
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(min_macos=dict(type="str", default="26.2"), mac_facts=dict(type="bool", default=False),
                           mac=dict(type="dict")),
        mutually_exclusive=[("mac", "mac_facts")],
        supports_check_mode=True,
    )
    module.exit_json(**collect(module))


if __name__ == "__main__":
    main()
