#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: tb_network
short_description: Give a Mac's Thunderbolt ports their planned static addresses and remove the Thunderbolt Bridge
version_added: 0.1.0
description:
  - Reads the network configuration with C(networksetup) (C(-listallhardwareports),
    C(-listnetworkserviceorder), C(-getinfo), C(-getMTU)) and C(ifconfig bridge0), then changes only
    what differs from O(services), O(mtu), O(bridge) and O(order).
  - One network service per port, named like its hardware port (C(Thunderbolt 2) for C(en3));
    it is created when missing, enabled, and set to a manual address without a router, so no
    default route ever goes over Thunderbolt. Other services on the same port are disabled.
  - O(bridge=keep) with more than one service in O(services) is refused before anything changes (a
    bridge over several cables loops traffic).
  - O(bridge=absent) disables the Thunderbolt Bridge service, deletes C(bridge0) from
    C(/Library/Preferences/SystemConfiguration/preferences.plist) (as exo's C(disable_bridge.sh)
    does; persistent) and destroys the live C(bridge0) (immediate).
  - O(order=true) moves every Thunderbolt service after all other services, so the management
    service stays first.
  - All settings are persistent (SystemConfiguration preferences), so they survive reboots.
  - With O(state_file), keeps a record of what was applied (the address plan) in a JSON file. It is
    read first (RV(state_found) tells whether the plan was applied before) and replaced when
    O(state_file.content) differs, after the network changes succeeded.
  - With O(address_reset_daemons), reports which of these LaunchDaemons, known to put Thunderbolt
    services back on DHCP, are installed (RV(address_reset_daemons)) and which of those launchd has
    loaded (RV(address_reset_daemons_loaded)); it does not touch them. An installed one explains lost
    addresses; only a loaded one will reset them again (the exo role's guard disables and boots out
    exo's, leaving the plist in place). O(launchd_loaded) saves that read where a node read earlier
    found the job not loaded.
  - With O(links) and O(verify), then checks every link (route and ping each peer over its own cable, all at
    once, as the C(links) group of M(macops.cluster.node_facts) does later), so the role's one task applies and
    proves the network.
  - RV(problems) holds what it found, each a catalogue problem for O(host) (C(docs/problems.md)); with
    O(require_links) an error among them (a link that does not work) fails the module, after the changes.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
attributes:
  check_mode:
    support: full
    details: Reads for real and returns the commands it would run.
  diff_mode:
    support: full
    details: Before and after of the Thunderbolt services, the service order, the bridge and the
      content of O(state_file).
options:
  services:
    description: The ports to address, usually from the C(addresses.hosts) part of the topology plan.
    type: list
    elements: dict
    default: []
    suboptions:
      device:
        description: BSD interface of the port (C(en3)), or C(bridge0) to address the bridge itself.
        type: str
        required: true
        aliases: [interface]
      address:
        description: IPv4 address of this end of the link.
        type: str
        required: true
        aliases: [ip]
      netmask:
        description: Dotted netmask; the plan uses one /30 per cable.
        type: str
        default: 255.255.255.252
  mtu:
    description: MTU for every port in O(services); null leaves the MTU alone.
    type: int
  bridge:
    description: C(absent) removes the Thunderbolt Bridge; C(keep) leaves it as it is.
    type: str
    choices: [absent, keep]
    default: absent
  order:
    description: Put the Thunderbolt services after every other service.
    type: bool
    default: true
  state_file:
    description:
      - A JSON file that records what was applied, read before and written after the changes
        (atomically, only when its content differs; check mode writes nothing).
      - The text is O(state_file.content) as Ansible's C(to_nice_json) filter prints it, plus a newline, with
        the key C(applied) added (O(mtu), O(bridge) and O(order) of this run), so a later check (node_facts C(network))
        compares the node with what was applied.
    type: dict
    suboptions:
      path:
        description: The file. Its directory must exist.
        type: path
        required: true
      content:
        description: What to store, for example the C(addresses) part of the topology plan.
        type: dict
        required: true
      owner:
        description: Owner of the file; null leaves it as created (the user the module runs as).
        type: str
      group:
        description: Group of the file; null leaves it as created.
        type: str
      mode:
        description: Permissions of the file, as an octal string such as V('0644'); null leaves them as created.
        type: raw
  address_reset_daemons:
    description:
      - LaunchDaemon plists of tools known to reset Thunderbolt addresses (exo's
        C(/Library/LaunchDaemons/io.exo.networksetup.plist)); the ones that exist are returned.
      - For each that exists, the job is the plist's C(Label) (the file name without C(.plist) when the
        plist cannot be read); it counts as loaded when C(launchctl print system/LABEL) exits 0, as the exo
        role's guard judges it.
    type: list
    elements: path
    default: []
  hardware_ports:
    description:
      - The Mac's hardware ports as an earlier read in the same run found them (the node_facts C(mac) group's
        C(hardware_ports), C({name, device, mac}) each); given, C(networksetup -listallhardwareports) is not run
        again. Configuring services changes no hardware port.
    type: list
    elements: dict
    version_added: 0.2.0
  launchd_loaded:
    description:
      - "What an earlier read in the same run found, as C({label: loaded}) (the node_facts C(launchd) group).
        A daemon whose label maps to false is not read again; a missing label or true is (a guard may have
        stopped it since)."
    type: dict
    default: {}
  links:
    description: This node's cable ends, the peers O(verify) pings; also returned with their verdict in RV(links).
    type: list
    elements: dict
    default: []
    suboptions:
      interface:
        description: The interface the peer must be reached through (C(en3), or C(bridge0) in bridge mode).
        type: str
        required: true
      ip:
        description: This end's address, only returned.
        type: str
      peer_ip:
        description: The peer's address on this link.
        type: str
        required: true
      peer_host:
        description: The peer's inventory name, for messages.
        type: str
  verify:
    description: Check every link of O(links) after the changes (never in check mode).
    type: bool
    default: true
  ping_count:
    description: Echo requests per link.
    type: int
    default: 2
  ping_timeout:
    description: Seconds before ping gives up on a link (macOS C(ping -t)).
    type: int
    default: 3
  ping_interval:
    description: Seconds between echo requests (macOS C(ping -i)); ping's own 1 s when omitted.
    type: float
  require_links:
    description: Fail when a link of O(links) does not work (an error in RV(problems)), after the changes.
    type: bool
    default: true
  host:
    description: This node's inventory name, the C(host) of every problem.
    type: str
notes:
  - Needs root (C(become)). The C(-getinfo) and C(-getMTU) output formats are unconfirmed on macOS 26
    (see the parser); an unexpected format fails the task rather than guessing.
  - Changes the current network location only.
seealso:
  - module: macops.cluster.node_facts
"""

EXAMPLES = r"""
- name: Apply this Mac's part of the address plan
  macops.cluster.tb_network:
    services: "{{ macops_topology['addresses']['hosts'][inventory_hostname]
                  | dict2items(key_name='device') | map(attribute='value') | list }}"
    mtu: 1500
  become: true

- name: Apply the plan, keep it for the next run and look for exo's address-resetting daemon
  macops.cluster.tb_network:
    services: "{{ macops_topology['addresses']['hosts'][inventory_hostname]
                  | dict2items(key_name='device') | map(attribute='value') | list }}"
    state_file:
      path: /Library/Application Support/macops/thunderbolt-plan.json
      content: "{{ macops_topology['addresses'] }}"
      owner: root
      group: wheel
      mode: "0644"
    address_reset_daemons:
      - /Library/LaunchDaemons/io.exo.networksetup.plist
  become: true
  register: applied

- name: Address the Thunderbolt Bridge of a two-Mac TCP setup instead of its ports
  macops.cluster.tb_network:
    services: [{device: bridge0, address: 198.19.0.1}]
    bridge: keep
  become: true
"""

RETURN = r"""
commands:
  description: The commands run (or, in check mode, that would run), each with the reason.
  returned: always
  type: list
  elements: dict
  sample: [{"tool": "networksetup", "args": ["-setmanual", "Thunderbolt 2", "198.19.0.1", "255.255.255.252"],
            "reason": "Thunderbolt 2 is dhcp, the plan says 198.19.0.1/255.255.255.252"}]
services:
  description: The service each port is managed through, with its address.
  returned: always
  type: list
  elements: dict
  sample: [{"device": "en3", "service": "Thunderbolt 2", "address": "198.19.0.1", "netmask": "255.255.255.252"}]
readdressed:
  description:
    - Services that had lost the address the plan applied before (O(state_file)) gives them again, with what they
      were. A port the last plan did not address (a new cable, a Mac that joined) or addressed otherwise (a moved
      cable) is not one of them.
  returned: always
  type: list
  elements: dict
  sample: [{"device": "en3", "service": "Thunderbolt 2", "was": {"method": "dhcp", "ip_address": null}}]
bridge_removed:
  description: Some part of the Thunderbolt Bridge was present and was (or would be) removed.
  returned: always
  type: bool
state_found:
  description: O(state_file.path) existed before this run, that is, the plan was applied before.
    Always false without O(state_file).
  returned: always
  type: bool
state_changed:
  description: O(state_file) was (or, in check mode, would be) written or had its owner, group or mode changed.
  returned: always
  type: bool
address_reset_daemons:
  description: The paths of O(address_reset_daemons) that exist.
  returned: always
  type: list
  elements: str
  sample: ["/Library/LaunchDaemons/io.exo.networksetup.plist"]
links:
  description:
    - "O(links) with C(ok) (null when not checked, with O(verify) off or in check mode), C(route_interface),
      C(transmitted) and C(received)."
  returned: always
  type: list
  elements: dict
  sample: [{"interface": "en3", "ip": "198.19.0.1", "peer_ip": "198.19.0.2", "peer_host": "mac2", "ok": true}]
problems:
  description:
    - C(tb_bridge_returned), C(tb_address_reset) (only when O(state_file) was there before),
      C(tb_exo_networksetup_daemon), and the link problems (C(tb_link_no_reply), C(tb_link_wrong_interface),
      C(tb_default_route_over_thunderbolt)).
  returned: always
  type: list
  elements: dict
  sample: [{"code": "tb_link_no_reply", "severity": "error", "host": "mac1", "port": "en3", "peer": "mac2",
            "message": "en3: no reply from mac2 (198.19.0.2) over en3 (0 of 2 echo requests answered)",
            "fix": "Check the cable ...", "details": {}}]
address_reset_daemons_loaded:
  description: The paths of RV(address_reset_daemons) whose job launchd has loaded.
  returned: always
  type: list
  elements: str
  sample: []
"""

import errno
import os
import plistlib
import tempfile
from xml.parsers.expat import ExpatError

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._ifconfig import parse_interface
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports, parse_service_order
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_probe import check_links
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_problems import repaired_drift_problems
from ansible_collections.macops.cluster.plugins.module_utils._tb_network import (
    DEFAULT_BRIDGE_DEVICE,
    lost_addresses,
    plan,
    read_service_settings,
    state_text,
    state_view,
)


def live_bridge(module, result):
    """The bridge from `ifconfig bridge0`'s (rc, stdout, stderr), or None when it does not exist (exit 1)."""
    if result is None or result[0] != 0:
        return None
    return commands.parse(module, parse_interface, result[1])


def read_state(module, wanted):
    networksetup = commands.require_command(module, "networksetup")
    # Reads at once: the ports, the service order and the bridge first, then (they need the names)
    # every service's settings and every port's MTU.
    bridge_argv = [commands.require_command(module, "ifconfig"), DEFAULT_BRIDGE_DEVICE] if wanted["bridge"] == "absent" else None
    # The hardware ports an earlier read of this run found (node_facts' mac group) are not asked again.
    known_ports = module.params["hardware_ports"]
    ports_argv = None if known_ports else [networksetup, "-listallhardwareports"]
    order_argv = [networksetup, "-listnetworkserviceorder"]
    ports_result, order_result, bridge_result = commands.run_parallel([ports_argv, order_argv, bridge_argv])
    hardware_ports = known_ports or commands.parse(module, parse_hardware_ports,
                                                   commands.succeeded(module, ports_argv, ports_result))
    services = commands.parse(module, parse_service_order, commands.succeeded(module, order_argv, order_result))
    infos, mtus = read_service_settings(module, networksetup, hardware_ports, services, wanted)
    bridge_live = live_bridge(module, bridge_result)
    return hardware_ports, services, infos, mtus, bridge_live


def apply(module, steps):
    done = []
    for step in steps:
        argv = [commands.require_command(module, step["tool"])] + step["args"]
        rc, stdout, stderr = commands.result_of(argv)
        if rc != 0:
            module.fail_json(
                msg="`%s` failed with exit status %d: %s. Already applied: %s. Every change is a persistent "
                    "setting on its own; fix the cause and run again." % (" ".join(argv), rc, (stderr or stdout).strip(),
                                                                          [" ".join(d) for d in done] or "nothing"),
                rc=rc, stdout=stdout, stderr=stderr)
        done.append(argv)


def read_text(module, path):
    """The file's text, or None when it does not exist."""
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        if exc.errno == errno.ENOENT:
            return None
        module.fail_json(msg="cannot read the state file %s: %s" % (path, exc))


def write_text(module, path, text):
    """Replace the file atomically (a temporary file in the same directory, then a rename)."""
    directory = os.path.dirname(path) or "."
    try:
        if not os.path.isdir(directory):
            # The first writer of the collection's state directory on a fresh node (root, 0755).
            os.makedirs(directory, 0o755)
        handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=directory)
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
    except (IOError, OSError) as exc:
        module.fail_json(msg="cannot write the state file %s: %s. The network changes were applied; check "
                             "that the directory can be made and run again." % (path, exc))
    module.atomic_move(temporary, path)


def record_state(module, spec, previous):
    """Write spec["content"] to spec["path"] when it differs from `previous`; returns whether
    anything changed (check mode: would change)."""
    path = spec["path"]
    changed = previous != state_text(spec["content"])
    if changed and not module.check_mode:
        write_text(module, path, state_text(spec["content"]))
    if previous is None and module.check_mode:
        return changed  # nothing to compare owner and mode with yet
    changed = module.set_owner_if_different(path, spec["owner"], changed)
    changed = module.set_group_if_different(path, spec["group"], changed)
    return module.set_mode_if_different(path, spec["mode"], changed)


def daemon_label(path):
    """A LaunchDaemon plist's Label; its file name without .plist when the plist cannot be read."""
    try:
        with open(path, "rb") as handle:
            label = plistlib.load(handle).get("Label")
    except (OSError, ValueError, AttributeError, ExpatError):
        label = None
    if isinstance(label, str) and label:
        return label
    name = os.path.basename(path)
    return name[:-len(".plist")] if name.endswith(".plist") else name


def loaded_daemons(module, installed):
    """The plists among `installed` whose job launchd has loaded (`launchctl print` exits 0); a
    job an earlier read found not loaded (O(launchd_loaded)) is not asked again."""
    known = module.params["launchd_loaded"]
    ask = [path for path in installed if known.get(daemon_label(path)) is not False]
    if not ask:
        return []
    launchctl = commands.require_command(module, "launchctl")
    results = commands.run_parallel([[launchctl, "print", "system/" + daemon_label(path)] for path in ask])
    return [path for path, result in zip(ask, results) if result[0] == 0]


def verify_links(module, hardware_ports):
    """O(links) judged (or with ok null when not checked) and their problems."""
    params = module.params
    ends = params["links"]
    if not (params["verify"] and ends) or module.check_mode:
        return [dict(end, ok=None) for end in ends], []
    judged, _default_route, problems = check_links(module, ends, params["ping_count"], params["ping_timeout"],
                                                   params["ping_interval"], hardware_ports)
    return [dict(end, **link) for end, link in zip(ends, judged)], problems


def finish(module, result):
    """Exit with the problems for O(host): warnings shown, an error failing under O(require_links)."""
    host = module.params["host"]
    for entry in result["problems"]:
        entry["host"] = host
    errors = [entry for entry in result["problems"] if entry["severity"] == "error"]
    for entry in result["problems"]:
        if entry["severity"] != "error":
            module.warn("[%s] %s Fix: %s" % (entry["code"], entry["message"], entry["fix"]))
    if errors and module.params["require_links"]:
        # Every finding in the message, errors first: the warnings often explain the errors.
        ordered = errors + [entry for entry in result["problems"] if entry["severity"] != "error"]
        module.fail_json(msg=" ".join("[%s] %s%s Fix: %s" % (entry["code"], "" if entry["message"].startswith(host or "-")
                                                             else (host or "this node") + " ", entry["message"],
                                                             entry["fix"]) for entry in ordered), **result)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            services=dict(type="list", elements="dict", default=[], options=dict(
                device=dict(type="str", required=True, aliases=["interface"]),
                address=dict(type="str", required=True, aliases=["ip"]),
                netmask=dict(type="str", default="255.255.255.252"),
            )),
            mtu=dict(type="int"),
            bridge=dict(type="str", choices=["absent", "keep"], default="absent"),
            order=dict(type="bool", default=True),
            state_file=dict(type="dict", options=dict(
                path=dict(type="path", required=True),
                content=dict(type="dict", required=True),
                owner=dict(type="str"),
                group=dict(type="str"),
                mode=dict(type="raw"),
            )),
            address_reset_daemons=dict(type="list", elements="path", default=[]),
            launchd_loaded=dict(type="dict", default={}),
            hardware_ports=dict(type="list", elements="dict"),
            links=dict(type="list", elements="dict", default=[], options=dict(
                interface=dict(type="str", required=True),
                ip=dict(type="str"),
                peer_ip=dict(type="str", required=True),
                peer_host=dict(type="str"),
            )),
            verify=dict(type="bool", default=True),
            ping_count=dict(type="int", default=2),
            ping_timeout=dict(type="int", default=3),
            ping_interval=dict(type="float"),
            require_links=dict(type="bool", default=True),
            host=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    wanted = dict((key, module.params[key]) for key in ("services", "mtu", "bridge", "order"))
    if wanted["bridge"] == "keep" and len(wanted["services"]) > 1:
        # Refused before anything changes: the input check knows the number of Macs, only the plan
        # the number of cables.
        module.fail_json(msg="bridge=keep only works for two Macs joined by one cable: %s has %d cables planned, and a "
                             "bridge over several cables loops traffic. Set thunderbolt_network_bridge_mode: remove."
                             % (module.params["host"] or "this node", len(wanted["services"])))
    if wanted["mtu"] is not None and not 1280 <= wanted["mtu"] <= 9000:
        module.fail_json(msg="mtu must be between 1280 and 9000 (networksetup -listValidMTURange), got %d" % wanted["mtu"])
    state_file = module.params["state_file"]
    if state_file:
        # What was applied with the addresses: doctor.yml compares the node with exactly this.
        state_file["content"] = dict(state_file["content"], applied=dict(
            (key, wanted[key]) for key in ("mtu", "bridge", "order")))
    previous = read_text(module, state_file["path"]) if state_file else None
    try:
        state = read_state(module, wanted)
        result = plan(*state, wanted=wanted)
    except PlanError as exc:
        module.fail_json(msg=str(exc))
    if result["steps"] and not module.check_mode:
        apply(module, result["steps"])
    # Only once the network changes succeeded: the file says what was applied.
    state_changed = record_state(module, state_file, previous) if state_file else False
    if state_file:
        result["before"]["state_file"] = state_view(previous)
        result["after"]["state_file"] = state_file["content"]
    daemons = [path for path in module.params["address_reset_daemons"] if os.path.exists(path)]
    applied = dict(
        changed=bool(result["steps"]) or state_changed,
        commands=result["steps"],
        services=result["services"],
        readdressed=lost_addresses(result["readdressed"], previous, module.params["host"], wanted["services"]),
        bridge_removed=result["bridge_removed"],
        state_found=previous is not None,
        state_changed=state_changed,
        address_reset_daemons=daemons,
        address_reset_daemons_loaded=loaded_daemons(module, daemons),
        diff={"before": result["before"], "after": result["after"]},
    )
    links, link_problems = verify_links(module, state[0])
    problems = repaired_drift_problems(module.params["host"], applied, daemons,
                                       applied["address_reset_daemons_loaded"])
    finish(module, dict(applied, links=links, problems=problems + link_problems))


if __name__ == "__main__":
    main()
