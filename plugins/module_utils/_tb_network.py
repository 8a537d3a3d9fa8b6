# -*- coding: utf-8 -*-
# PRIVATE to the collection: plans the networksetup/ifconfig/PlistBuddy commands that bring a
# Mac's Thunderbolt network to the address plan. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Pure planning for ``macops.cluster.tb_network``: parsed command output in, commands out.

Everything is decided from what the Mac reports (``networksetup`` reads, ``ifconfig bridge0``),
so a second run with the same plan finds nothing to do, and check mode shows the same commands a
real run would make.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_getinfo, parse_mtu
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError

# TN3205 and exo: macOS's default Thunderbolt Bridge is the virtual interface bridge0, listed as
# hardware port "Thunderbolt Bridge"; its definition lives under this key of this file.
BRIDGE_PORT_NAME = "Thunderbolt Bridge"
DEFAULT_BRIDGE_DEVICE = "bridge0"
SYSTEMCONFIG_PREFS = "/Library/Preferences/SystemConfiguration/preferences.plist"
BRIDGE_PREFS_KEY = ":VirtualNetworkInterfaces:Bridge:%s"
_THUNDERBOLT_PREFIX = "Thunderbolt"


def bridge_devices(hardware_ports, services):
    """Devices of the Thunderbolt Bridge: bridge0 plus any port macOS names "Thunderbolt Bridge"."""
    devices = set([DEFAULT_BRIDGE_DEVICE])
    devices.update(port["device"] for port in hardware_ports if port["name"] == BRIDGE_PORT_NAME)
    devices.update(svc["device"] for svc in services if svc["hardware_port"] == BRIDGE_PORT_NAME and svc["device"])
    return devices


def is_thunderbolt(service, thunderbolt_devices):
    return service["device"] in thunderbolt_devices or (service["hardware_port"] or "").startswith(_THUNDERBOLT_PREFIX)


def ipv4_view(info):
    """What `-getinfo` says, reduced to what the plan sets; a new service starts on DHCP."""
    if info is None:
        return {"method": "dhcp", "ip_address": None, "subnet_mask": None, "router": None}
    return dict((key, info.get(key)) for key in ("method", "ip_address", "subnet_mask", "router"))


def _wanted_ipv4(want):
    return {"method": "manual", "ip_address": want["address"], "subnet_mask": want["netmask"], "router": None}


def _choose_service(on_device, port_name):
    """The service a device is managed through: the one named like its hardware port (macOS's
    own default, "Thunderbolt 2"), else the first in service order."""
    for service in on_device:
        if service["name"] == port_name:
            return service
    return on_device[0] if on_device else None


class _Planner(object):

    def __init__(self, hardware_ports, services, infos, mtus, bridge_live):
        self.port_names = dict((port["device"], port["name"]) for port in hardware_ports)
        self.hardware_ports = hardware_ports
        self.services = [dict(service) for service in services]
        self.infos = dict((name, ipv4_view(info)) for name, info in infos.items())
        self.mtus = dict((device, mtu["current"]) for device, mtu in mtus.items())
        self.bridges = bridge_devices(hardware_ports, services)
        self.bridge = {
            "configured": sorted(port["device"] for port in hardware_ports if port["device"] in self.bridges),
            "live_members": list(bridge_live["members"]) if bridge_live else None,
        }
        self.steps = []
        # What each step is about, for a read-only check (doctor.yml): {kind, device, reason}.
        self.differences = []
        self.readdressed = []
        self.before = self.view()

    def step(self, tool, args, reason, kind, device=None):
        """kind: address (a planned service missing, off or not at its address), bridge, mtu,
        order or duplicate (a second service on a planned port)."""
        self.steps.append({"tool": tool, "args": list(args), "reason": reason})
        self.differences.append({"kind": kind, "device": device, "reason": reason})

    def view(self):
        """The part of the Mac's configuration the plan touches (for diff mode)."""
        tb_devices = set(port["device"] for port in self.hardware_ports if port["name"].startswith(_THUNDERBOLT_PREFIX))
        tb_devices |= self.bridges
        managed = [svc for svc in self.services if is_thunderbolt(svc, tb_devices)]
        return copy.deepcopy({
            "service_order": [svc["name"] for svc in self.services],
            "thunderbolt_services": dict(
                (svc["name"], {"device": svc["device"], "enabled": svc["enabled"],
                               "ipv4": self.infos.get(svc["name"]), "mtu": self.mtus.get(svc["device"])})
                for svc in managed),
            "thunderbolt_bridge": self.bridge,
        })

    def address(self, want):
        device = want["device"]
        if device not in self.port_names:
            raise PlanError("%s is not a hardware port of this Mac (networksetup -listallhardwareports lists %s)"
                            % (device, ", ".join(sorted(self.port_names))))
        port_name = self.port_names[device]
        on_device = [svc for svc in self.services if svc["device"] == device]
        chosen = _choose_service(on_device, port_name)
        if chosen is None:
            if any(svc["name"] == port_name for svc in self.services):
                raise PlanError("a network service named %r exists but is not bound to %s; rename it" % (port_name, device))
            self.step("networksetup", ["-createnetworkservice", port_name, port_name], "%s has no network service" % device,
                      "address", device)
            chosen = {"order": None, "name": port_name, "enabled": True, "hardware_port": port_name, "device": device}
            self.services.append(chosen)
            self.infos[port_name] = ipv4_view(None)
        name = chosen["name"]
        if not chosen["enabled"]:
            self.step("networksetup", ["-setnetworkserviceenabled", name, "on"], "%s is disabled" % name,
                      "address", device)
            chosen["enabled"] = True
        wanted = _wanted_ipv4(want)
        current = self.infos.get(name) or ipv4_view(None)
        if current != wanted:
            if name in self.before["thunderbolt_services"]:
                self.readdressed.append({"device": device, "service": name, "was": current})
            # No router argument: a Thunderbolt service must never offer a default route.
            self.step("networksetup", ["-setmanual", name, want["address"], want["netmask"]],
                      "%s is %s, the plan says %s/%s" % (name, _describe(current), want["address"], want["netmask"]),
                      "address", device)
            self.infos[name] = wanted
        for other in on_device:
            if other is not chosen and other["enabled"]:
                self.step("networksetup", ["-setnetworkserviceenabled", other["name"], "off"],
                          "%s is a second service on %s, which %s manages" % (other["name"], device, name),
                          "duplicate", device)
                other["enabled"] = False
        return {"device": device, "service": name, "address": want["address"], "netmask": want["netmask"]}

    def mtu(self, device, mtu):
        if self.mtus.get(device) != mtu:
            self.step("networksetup", ["-setMTU", device, str(mtu)], "%s has MTU %s" % (device, self.mtus.get(device)),
                      "mtu", device)
            self.mtus[device] = mtu

    def remove_bridge(self):
        for svc in self.services:
            if svc["device"] in self.bridges and svc["enabled"]:
                self.step("networksetup", ["-setnetworkserviceenabled", svc["name"], "off"], "the Thunderbolt Bridge service is on",
                          "bridge", svc["device"])
                svc["enabled"] = False
        for device in self.bridge["configured"]:
            # exo's disable_bridge.sh does the same: networksetup cannot delete a bridge.
            self.step("PlistBuddy", ["-c", "Delete " + BRIDGE_PREFS_KEY % device, SYSTEMCONFIG_PREFS],
                      "%s is defined in the SystemConfiguration preferences" % device, "bridge", device)
        self.bridge["configured"] = []
        if self.bridge["live_members"] is not None:
            # The preferences are only read at boot: take the live bridge down now as well.
            for member in self.bridge["live_members"]:
                self.step("ifconfig", [DEFAULT_BRIDGE_DEVICE, "deletem", member], "%s is a member of the live bridge" % member,
                          "bridge", member)
            self.step("ifconfig", [DEFAULT_BRIDGE_DEVICE, "destroy"], "the live bridge exists", "bridge",
                      DEFAULT_BRIDGE_DEVICE)
            self.bridge["live_members"] = None

    def order(self):
        tb_devices = set(port["device"] for port in self.hardware_ports if port["name"].startswith(_THUNDERBOLT_PREFIX))
        tb_devices |= self.bridges
        names = [svc["name"] for svc in self.services]
        other = [svc["name"] for svc in self.services if not is_thunderbolt(svc, tb_devices)]
        thunderbolt = [svc["name"] for svc in self.services if is_thunderbolt(svc, tb_devices)]
        wanted = other + thunderbolt
        if names != wanted:
            self.step("networksetup", ["-ordernetworkservices"] + wanted,
                      "Thunderbolt services must come after the management service, or macOS may route through them",
                      "order")
            by_name = dict((svc["name"], svc) for svc in self.services)
            self.services = [by_name[name] for name in wanted]


def _describe(ipv4):
    if ipv4["method"] == "manual":
        text = "manual %s/%s" % (ipv4["ip_address"], ipv4["subnet_mask"])
        return text + (" via router %s" % ipv4["router"] if ipv4["router"] else "")
    return ipv4["method"] or "unconfigured"


def services_to_read(hardware_ports, services, wanted_devices):
    """Names whose `-getinfo` the planner needs: every service on a wanted device."""
    return [svc["name"] for svc in services if svc["device"] in wanted_devices]


def read_service_settings(module, networksetup, hardware_ports, services, wanted):
    """(infos, mtus) for plan(): the second reads, which need the first's service names: the
    `-getinfo` of every service on a wanted device and, with an MTU wanted, every wanted device's
    `-getMTU`, all at once."""
    devices = [want["device"] for want in wanted["services"]]
    names = list(services_to_read(hardware_ports, services, devices))
    mtu_devices = devices if wanted["mtu"] else []
    outputs = commands.run_many(module, [[networksetup, "-getinfo", name] for name in names]
                                + [[networksetup, "-getMTU", device] for device in mtu_devices])
    infos = dict((name, commands.parse(module, parse_getinfo, out)) for name, out in zip(names, outputs))
    mtus = dict((device, commands.parse(module, parse_mtu, out)) for device, out in zip(mtu_devices, outputs[len(names):]))
    return infos, mtus


def lost_addresses(readdressed, previous_text, host, wanted_services):
    """Those of ``readdressed`` whose port had the address it gets now in the plan applied before (the state
    file's text, ``previous_text``): an address lost since. A port the last plan did not address (a cable just
    plugged in, as when a Mac joins) or addressed otherwise (a moved cable) has lost nothing."""
    try:
        before = (json.loads(previous_text or "{}").get("hosts") or {}).get(host) or {}
    except (ValueError, AttributeError):
        return []
    wanted = dict((service["device"], service["address"]) for service in wanted_services)
    return [entry for entry in readdressed
            if isinstance(before.get(entry["device"]), dict) and before[entry["device"]].get("ip") == wanted.get(entry["device"])]


def plan(hardware_ports, services, infos, mtus, bridge_live, wanted):
    """Commands that bring the Mac to `wanted`.

    hardware_ports / services: `_networksetup.parse_hardware_ports` / `parse_service_order`.
    infos: {service name: `parse_getinfo`} for `services_to_read`. mtus: {device: `parse_mtu`}
    for every wanted device (when an MTU is wanted). bridge_live: `_ifconfig.parse_interface` of
    bridge0, or None when it does not exist.
    wanted: {"services": [{device, address, netmask}], "mtu": int or None,
    "bridge": "absent" or "keep", "order": bool}.
    Returns {"steps": [{tool, args, reason}], "differences": [{kind, device, reason}] (one per
    step), "services", "readdressed", "bridge_removed", "before", "after"}.
    """
    planner = _Planner(hardware_ports, services, infos, mtus, bridge_live)
    applied = [planner.address(want) for want in wanted["services"]]
    if wanted.get("mtu"):
        for want in wanted["services"]:
            planner.mtu(want["device"], wanted["mtu"])
    bridge_steps = len(planner.steps)
    if wanted["bridge"] == "absent":
        planner.remove_bridge()
    bridge_removed = len(planner.steps) > bridge_steps
    if wanted.get("order", True):
        planner.order()
    return {
        "steps": planner.steps,
        "differences": planner.differences,
        "services": applied,
        "readdressed": planner.readdressed,
        "bridge_removed": bridge_removed,
        "before": planner.before,
        "after": planner.view(),
    }


def state_text(content):
    """The state file's text: the same bytes as Ansible's ``to_nice_json`` plus a newline, so a
    file written by ``ansible.builtin.copy`` with that filter is recognised as unchanged."""
    return json.dumps(content, indent=4, sort_keys=True, separators=(",", ": ")) + "\n"


def state_view(text):
    """What the diff shows of a state file: its JSON, its raw text when it is not JSON, or None
    when there is no file."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text
