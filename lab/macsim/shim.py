#!/usr/bin/python3
"""The lab's macOS commands: one multi-call program, argv[0]'s basename picks the command.

The runtime installs a copy under $MACLAB_ROOT/code, rewrites the first line to the absolute
Linux interpreter it chose (see DESIGN.md "Shim"), and points the macroot symlinks listed in
COMMAND_PATHS at it. `shim.py COMMAND ARGS...` also works (tests, debugging).

Everything a command knows comes from the host's state (env MACLAB_HOST_DIR, default
/var/db/maclab), the world (env MACLAB_WORLD_DIR, default /var/db/maclab-world: lab.json and
every host's state), and the live interfaces (netapply.live_interfaces). macOS paths the shim
reads or writes (plists, /opt/homebrew) are taken under env MACLAB_FS_ROOT (default "/").
Output shapes: shared/research/macos-commands.md; formats/ says which ones are unconfirmed.
"""
import contextlib
import fcntl
import hashlib
import ipaddress
import json
import os
import plistlib
import pwd
import re
import grp
import shlex
import socket
import stat
import subprocess
import sys
import time
import uuid

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if _PACKAGE_PARENT not in sys.path:
    sys.path.insert(0, _PACKAGE_PARENT)

from macsim import netapply, pf  # noqa: E402
from macsim.formats import admin, kernel, netsetup, plist as plistfmt, profiler, rdma as rdmafmt  # noqa: E402
from macsim.formats import ifconfig as iffmt  # noqa: E402

WRITABLE_SYSCTLS = ("iogpu.wired_limit_mb", "iogpu.wired_lwm_mb")
HOMEBREW = "/opt/homebrew"
SYSTEMCONFIG_PREFS = "/Library/Preferences/SystemConfiguration/preferences.plist"
BRIDGE_PREFS_KEY = ":VirtualNetworkInterfaces:Bridge:bridge0"
# Lab-only: system baseline used on the boot volume when no fault overrides the free space.
BASELINE_DISK_USED = 32 * 10 ** 9
TB5_SPEED = "80 Gb/s"


class Fail(Exception):
    """A command's failure: what it prints and its exit code."""

    def __init__(self, rc, stderr="", stdout=""):
        Exception.__init__(self, stderr or stdout)
        self.rc, self.stderr, self.stdout = rc, stderr, stdout


def out(text):
    sys.stdout.write(text)


def err(text):
    sys.stderr.write(text)


def is_root():
    return os.geteuid() == 0


# --- host state -----------------------------------------------------------------------------

class Host:
    """One simulated Mac as seen from inside it."""

    def __init__(self):
        self.dir = os.environ.get("MACLAB_HOST_DIR", "/var/db/maclab")
        self.world_dir = os.environ.get("MACLAB_WORLD_DIR", "/var/db/maclab-world")
        self.fs_root = os.environ.get("MACLAB_FS_ROOT", "/")
        self._state = self._volatile = self._world = self._live = None
        self._peers = {}

    # reading
    def _read(self, path, default=None):
        try:
            with open(path) as fh:
                return json.load(fh)
        except (OSError, ValueError):
            if default is not None:
                return default
            raise

    @property
    def state(self):
        if self._state is None:
            self._state = self._read(os.path.join(self.dir, "state.json"))
        return self._state

    @property
    def volatile(self):
        if self._volatile is None:
            self._volatile = self._read(os.path.join(self.dir, "volatile.json"), {})
        return self._volatile

    @property
    def world(self):
        if self._world is None:
            self._world = self._read(os.path.join(self.world_dir, "lab.json"), {})
        return self._world

    @property
    def live(self):
        if self._live is None:
            self._live = netapply.live_interfaces()
        return self._live

    def peer_state(self, name):
        if name not in self._peers:
            path = os.path.join(self.world_dir, "hosts", name, "state.json")
            self._peers[name] = self._read(path, {}) or None
        return self._peers[name]

    def fs(self, path):
        """A macOS path on this host's file system (relative paths stay relative to the cwd)."""
        if not path.startswith("/"):
            return path
        return os.path.join(self.fs_root, path.lstrip("/"))

    @property
    def boottime(self):
        return int(self.volatile.get("boottime") or self.state["boot"]["boottime"])

    @property
    def boot_mode(self):
        return self.volatile.get("mode") or self.state["boot"].get("mode", "normal")

    # writing
    @contextlib.contextmanager
    def mutate(self):
        """Exclusive flock on state.lock, fresh copies of both files, atomic write-back."""
        fd = os.open(os.path.join(self.dir, "state.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._state = self._volatile = None
            before = (json.dumps(self.state, sort_keys=True), json.dumps(self.volatile, sort_keys=True))
            yield self
            if json.dumps(self.state, sort_keys=True) != before[0]:
                self._write("state.json", self.state)
            if json.dumps(self.volatile, sort_keys=True) != before[1]:
                self._write("volatile.json", self.volatile)
        finally:
            os.close(fd)

    def _write(self, name, data):
        path = os.path.join(self.dir, name)
        tmp = path + ".tmp.{}".format(os.getpid())
        with open(tmp, "w") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)

    def apply_network(self, devices=None):
        """Put the changed state on the live links; the prefs are already saved, so a failing
        ip(8) leaves the change for the next boot, as configd would."""
        try:
            netapply.apply(self.state, self.dir, devices=devices, world=self.world)
        except (OSError, ValueError) as exc:
            err("maclab: could not apply network state: {}\n".format(exc))
        self._live = None

    # helpers shared by commands
    def tb_port(self, key, value):
        for port in self.state["hardware"].get("tb_ports", []):
            if port.get(key) == value:
                return port
        return None

    def linux_name(self, name):
        return "lo" if name == "lo0" else name

    def mac_name(self, name):
        return "lo0" if name == "lo" else name


def require_root(message, rc=1):
    if not is_root():
        raise Fail(rc, message)


# --- Thunderbolt links (shared by system_profiler and ibv_*) --------------------------------

def _derived_uuid(*parts):
    return str(uuid.UUID(hashlib.sha256("/".join(parts).encode()).hexdigest()[:32])).upper()


def tb_links(host):
    """{receptacle: link or None}. A link needs a cable in lab.json that is not cut, the
    peer's state, and carrier on our end of the veth (the supervisor sets a halted or rebooting
    host's links down, so peers see the cable go dark)."""
    me = host.state["name"]
    links = {}
    for port in host.state["hardware"].get("tb_ports", []):
        link = None
        for cable in host.world.get("cables", []):
            if cable.get("state") == "cut":
                continue
            if cable.get("a") == me and int(cable.get("a_port")) == port["receptacle"]:
                peer, peer_receptacle = cable["b"], int(cable["b_port"])
            elif cable.get("b") == me and int(cable.get("b_port")) == port["receptacle"]:
                peer, peer_receptacle = cable["a"], int(cable["a_port"])
            else:
                continue
            live = host.live.get(port["device"])
            if host.live and (live is None or not live["carrier"]):
                continue
            peer_state = host.peer_state(peer)
            if not peer_state:
                continue
            peer_port = next((p for p in peer_state["hardware"].get("tb_ports", [])
                              if p["receptacle"] == peer_receptacle), None)
            if peer_port is None:
                continue
            link = {"peer": peer, "peer_state": peer_state, "peer_port": peer_port,
                    "speed": cable.get("speed", TB5_SPEED), "tb5": cable.get("kind", "tb5") == "tb5"}
        links[port["receptacle"]] = link
    return links


# --- sw_vers, uname, sysctl, vm_stat, who ---------------------------------------------------

def cmd_sw_vers(host, args):
    fields = {"-productName": "productName", "-productVersion": "productVersion",
              "-buildVersion": "buildVersion", "--productName": "productName",
              "--productVersion": "productVersion", "--buildVersion": "buildVersion"}
    if args and args[0] not in fields:
        raise Fail(1, "Usage: sw_vers [-productName|-productVersion|-buildVersion]\n")
    out(kernel.sw_vers(host.state["os"], fields[args[0]] if args else None))
    return 0


def hostname():
    return os.uname().nodename


def cmd_uname(host, args):
    flags = set()
    for arg in args:
        if not arg.startswith("-") or set(arg[1:]) - set("asnrvmp"):
            raise Fail(1, "usage: uname [-amnoprsv]\n")
        flags |= set(arg[1:])
    out(kernel.uname(host.state["os"], hostname(), flags))
    return 0


def cmd_sysctl(host, args):
    bare = binary = False
    names = []
    for arg in args:
        if arg in ("-n",):
            bare = True
        elif arg == "-b":
            binary = True
        elif arg in ("-a", "-A", "-X"):
            names = []
        elif arg in ("-w", "-e", "-h"):
            continue
        else:
            names.append(arg)
    table = kernel.sysctl_table(host.state, host.volatile, hostname())
    values = dict(table)
    for key in WRITABLE_SYSCTLS:
        if key not in values:
            value = str(host.volatile.get("sysctl", {}).get(key, 0))
            table.append((key, value))
            values[key] = value
    if not names:
        out(kernel.sysctl_lines(table, bare))
        return 0
    rc = 0
    for name in names:
        if "=" in name:
            rc = max(rc, _sysctl_write(host, name, values, bare))
            continue
        if binary and name == "kern.boottime":
            sys.stdout.flush()
            sys.stdout.buffer.write(kernel.boottime_binary(host.boottime))
            continue
        rows = [(k, v) for k, v in table if k == name or k.startswith(name + ".")]
        if not rows:
            err(kernel.sysctl_unknown(name))
            rc = 1
            continue
        out(kernel.sysctl_lines(rows, bare))
    return rc


def _sysctl_write(host, assignment, values, bare):
    name, value = assignment.split("=", 1)
    if name not in values:
        err(kernel.sysctl_unknown(name))
        return 1
    if name not in WRITABLE_SYSCTLS:
        err("sysctl: oid '{}' is read only\n".format(name))
        return 1
    if not is_root():
        err("sysctl: {}={}: Operation not permitted\n".format(name, value))
        return 1
    try:
        number = int(value)
    except ValueError:
        err("sysctl: {}: Invalid argument\n".format(name))
        return 1
    with host.mutate():
        old = host.volatile.setdefault("sysctl", {}).get(name, 0)
        host.volatile["sysctl"][name] = number
    out("{}\n".format(number) if bare else kernel.sysctl_set(name, old, number))
    return 0


def cmd_vm_stat(host, args):
    limit = host.volatile.get("sysctl", {}).get("iogpu.wired_limit_mb", 0)
    out(kernel.vm_stat(kernel.vm_pages(host.state["hardware"]["memory_bytes"], limit)))
    return 0


def cmd_who(host, args):
    if "-b" in args:
        out(kernel.who_boot(host.boottime))
    return 0


# --- system_profiler ------------------------------------------------------------------------

def _service_views(host):
    """Per network service: the data SPNetworkDataType shows (live addresses)."""
    views = []
    net = host.state["network"]
    for order, name in enumerate(net.get("order", [])):
        svc = find_service(host, name)
        if svc is None or not svc.get("enabled", True):
            continue
        live = host.live.get(svc["device"], {})
        inet = live.get("inet", [])
        ipv4 = svc.get("ipv4") or {}
        views.append({"name": name, "device": svc["device"],
                      "hardware_port": hardware_port_name(host, svc["device"]),
                      "enabled": True, "method": ipv4.get("method", "none"),
                      "addresses": [a for a, _, _ in inet],
                      "masks": [str(ipaddress.IPv4Network("0.0.0.0/{}".format(p)).netmask)
                                for _, p, _ in inet],
                      "router": ipv4.get("router"), "mac": device_mac(host, svc["device"]),
                      "order": order})
    return views


def _thunderbolt_buses(host):
    rdma_on = host.state.get("rdma", {}).get("enabled", False)
    links = tb_links(host)
    buses = []
    for port in host.state["hardware"].get("tb_ports", []):
        link = links.get(port["receptacle"])
        view = None
        if link is not None:
            view = {"speed": link["speed"],
                    "peer_model_name": link["peer_state"]["hardware"]["model_name"],
                    "peer_model_id": link["peer_state"]["hardware"]["model_id"],
                    "peer_domain_uuid": link["peer_port"]["domain_uuid"],
                    "ip_service_uuid": _derived_uuid(link["peer_port"]["domain_uuid"], "ip"),
                    "rdma_service_uuid": (_derived_uuid(link["peer_port"]["domain_uuid"], "rdma")
                                          if rdma_on else None)}
        # A device `maclab fault ssd` plugged in (it shares no cable with another host).
        device = host.state.get("tb_devices", {}).get(str(port["receptacle"]))
        buses.append({"bus": port["bus"], "receptacle": port["receptacle"],
                      "domain_uuid": port["domain_uuid"], "switch_uid": port["switch_uid"],
                      "link": view, "device": device if view is None else None})
    return buses


def _profiler_items(host, data_type):
    hw = host.state["hardware"]
    if data_type == "SPHardwareDataType":
        return profiler.hardware_items(hw)
    if data_type == "SPSoftwareDataType":
        names = host.state.get("names", {})
        user = pwd.getpwuid(os.getuid())
        who = "{} ({})".format(user.pw_gecos.split(",")[0] or user.pw_name, user.pw_name)
        return profiler.software_items(host.state["os"], names.get("ComputerName") or hostname(),
                                       names.get("LocalHostName") or hostname(), who,
                                       max(0, time.time() - host.boottime), host.boot_mode)
    if data_type == "SPMemoryDataType":
        return profiler.memory_items(hw)
    if data_type == "SPNetworkDataType":
        return profiler.network_items(_service_views(host))
    if data_type == "SPThunderboltDataType":
        return profiler.thunderbolt_items(hw["model_name"], _thunderbolt_buses(host))
    return None


PROFILER_TEXT = {"SPHardwareDataType": profiler.hardware_text,
                 "SPSoftwareDataType": profiler.software_text,
                 "SPMemoryDataType": profiler.memory_text,
                 "SPNetworkDataType": profiler.network_text,
                 "SPThunderboltDataType": profiler.thunderbolt_text}


def cmd_system_profiler(host, args):
    as_json = False
    types = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-json":
            as_json = True
        elif arg in ("-detailLevel", "-timeout"):
            skip = True
        elif arg == "-listDataTypes":
            out("Available Datatypes:\n" + "".join(t + "\n" for t in PROFILER_TEXT))
            return 0
        elif arg in ("-xml", "-nospinner"):
            if arg == "-xml":
                raise Fail(1, "system_profiler: -xml is not simulated by the lab\n")
        else:
            types.append(arg)
    if not types:
        types = list(PROFILER_TEXT)
    # Unknown data types are silently skipped, as system_profiler does.
    found = [(t, _profiler_items(host, t)) for t in types if t in PROFILER_TEXT]
    if as_json:
        out(profiler.to_json(dict(found)))
    else:
        out("".join(PROFILER_TEXT[t](items) for t, items in found))
    return 0


# --- networksetup ---------------------------------------------------------------------------

def find_service(host, name):
    return next((s for s in host.state["network"].get("services", []) if s["name"] == name), None)


def hardware_ports(host):
    """[(hardware port name, device, mac)] as -listallhardwareports lists them."""
    hw = host.state["hardware"]
    ports = [(hw["ethernet"].get("name", "Ethernet"), hw["ethernet"]["device"], hw["ethernet"]["mac"])]
    for other in hw.get("other_ports", []):
        ports.append((other["name"], other["device"], other["mac"]))
    if host.state["network"].get("bridge", {}).get("exists"):
        ports.append(("Thunderbolt Bridge", netapply.BRIDGE, netapply.bridge_mac(host.state)))
    for port in hw.get("tb_ports", []):
        ports.append(("Thunderbolt {}".format(port["receptacle"]), port["device"], port["mac"]))
    return ports


def hardware_port_name(host, device):
    if device == netapply.BRIDGE:
        return "Thunderbolt Bridge"
    return next((n for n, d, _ in hardware_ports(host) if d == device), device)


def device_mac(host, device):
    found = next((m for _, d, m in hardware_ports(host) if d == device), None)
    if found:
        return found
    if device == netapply.BRIDGE:
        return netapply.bridge_mac(host.state)
    return host.live.get(device, {}).get("mac", "00:00:00:00:00:00")


def _service_or_fail(host, name):
    svc = find_service(host, name)
    if svc is None:
        raise Fail(netsetup.EXIT_BAD_PARAMETERS, stdout=netsetup.not_a_service(name))
    return svc


def _bad_parameters():
    return Fail(netsetup.EXIT_BAD_PARAMETERS, stdout=netsetup.BAD_PARAMETERS)


def _need(args, count):
    if len(args) < count:
        raise _bad_parameters()


def _valid_ipv4(text, netmask=False):
    try:
        ipaddress.IPv4Address(text)
        if netmask:
            ipaddress.IPv4Network("0.0.0.0/" + text)
    except ValueError:
        raise _bad_parameters()


NETWORKSETUP_CHANGES = {
    "-setnetworkserviceenabled", "-createnetworkservice", "-removenetworkservice", "-setmanual",
    "-setdhcp", "-setmtu", "-ordernetworkservices", "-createlocation", "-switchtolocation",
    "-deletelocation", "-renamenetworkservice", "-setcomputername", "-setv4off",
}


def cmd_networksetup(host, args):
    if not args:
        raise Fail(netsetup.EXIT_BAD_PARAMETERS, stdout="Usage: networksetup -<command> ...\n")
    option, rest = args[0].lower(), args[1:]
    if option in NETWORKSETUP_CHANGES:
        if not is_root():
            raise Fail(netsetup.EXIT_NEEDS_ADMIN, stdout=netsetup.NEEDS_ADMIN)
        with host.mutate():
            return _networksetup_change(host, option, rest)
    return _networksetup_read(host, option, rest)


def _networksetup_read(host, option, rest):
    net = host.state["network"]
    ordered = [find_service(host, n) for n in net.get("order", [])]
    ordered = [s for s in ordered if s is not None]
    if option == "-listallhardwareports":
        out(netsetup.hardware_ports(hardware_ports(host)))
    elif option == "-listallnetworkservices":
        out(netsetup.service_names([(s["name"], s.get("enabled", True)) for s in ordered]))
    elif option == "-listnetworkserviceorder":
        out(netsetup.service_order([(s["name"], s.get("enabled", True),
                                     hardware_port_name(host, s["device"]), s["device"])
                                    for s in ordered]))
    elif option == "-getnetworkserviceenabled":
        _need(rest, 1)
        out(netsetup.enabled_word(_service_or_fail(host, rest[0]).get("enabled", True)))
    elif option == "-getinfo":
        _need(rest, 1)
        svc = _service_or_fail(host, rest[0])
        ipv4 = svc.get("ipv4") or {}
        inet = host.live.get(svc["device"], {}).get("inet", []) if svc.get("enabled", True) else []
        address = ipv4.get("address") if ipv4.get("method") == "manual" else (
            inet[0][0] if inet else None)
        mask = ipv4.get("mask") if ipv4.get("method") == "manual" else (
            str(ipaddress.IPv4Network("0.0.0.0/{}".format(inet[0][1])).netmask) if inet else None)
        out(netsetup.info(ipv4.get("method", "none"), address, mask, ipv4.get("router"),
                          device_mac(host, svc["device"])))
    elif option == "-getmtu":
        _need(rest, 1)
        device = _device_of_port(host, rest[0])
        configured = next((s.get("mtu") for s in net.get("services", [])
                           if s["device"] == device and s.get("mtu")), 1500)
        out(netsetup.mtu(host.live.get(device, {}).get("mtu", configured), configured))
    elif option == "-listvalidmturange":
        _need(rest, 1)
        _device_of_port(host, rest[0])
        out("Valid MTU Range: 1280-9000\n")
    elif option == "-listlocations":
        out(netsetup.locations(list(net.get("locations", {}))))
    elif option == "-getcurrentlocation":
        out(net.get("current_location", "Automatic") + "\n")
    elif option == "-getcomputername":
        out((host.state.get("names", {}).get("ComputerName") or hostname()) + "\n")
    elif option in ("-detectnewhardware", "-version"):
        if option == "-version":
            out("networksetup version 1.0 (lab)\n")
    else:
        # Format unconfirmed: networksetup prints its usage for an unknown option.
        raise Fail(netsetup.EXIT_BAD_PARAMETERS,
                   stdout="Error: unknown option {}\n".format(option) + netsetup.BAD_PARAMETERS)
    return 0


def _device_of_port(host, name):
    for port_name, device, _ in hardware_ports(host):
        if name in (port_name, device):
            return device
    raise Fail(netsetup.EXIT_BAD_PARAMETERS, stdout=netsetup.not_a_port(name))


def _default_services(host, populate_from):
    """A populated location: one DHCP service per hardware port. The lab's management LAN has
    no DHCP server, so Ethernet keeps the current IPv4 settings, standing in for the lease a
    real Mac would get on its LAN."""
    services = []
    for port_name, device, _ in hardware_ports(host):
        ipv4 = {"method": "dhcp"}
        if device == host.state["hardware"]["ethernet"]["device"]:
            current = next((s for s in populate_from if s["device"] == device), None)
            if current:
                ipv4 = dict(current.get("ipv4") or ipv4)
        services.append({"name": port_name, "device": device, "enabled": True,
                         "ipv4": ipv4, "mtu": 1500})
    return services


def _networksetup_change(host, option, rest):
    net = host.state["network"]
    services = net.setdefault("services", [])
    order = net.setdefault("order", [s["name"] for s in services])
    touched = set()
    if option == "-setnetworkserviceenabled":
        _need(rest, 2)
        svc = _service_or_fail(host, rest[0])
        if rest[1].lower() not in ("on", "off"):
            raise _bad_parameters()
        svc["enabled"] = rest[1].lower() == "on"
        touched.add(svc["device"])
    elif option == "-createnetworkservice":
        _need(rest, 2)
        if find_service(host, rest[0]) is not None:
            raise Fail(netsetup.EXIT_BAD_PARAMETERS,
                       stdout="{} is a duplicate name.\n".format(rest[0]) + netsetup.BAD_PARAMETERS)
        device = _device_of_port(host, rest[1])
        services.append({"name": rest[0], "device": device, "enabled": True,
                         "ipv4": {"method": "dhcp"}, "mtu": 1500, "created": True})
        order.append(rest[0])
        touched.add(device)
    elif option == "-removenetworkservice":
        _need(rest, 1)
        svc = _service_or_fail(host, rest[0])
        services.remove(svc)
        net["order"] = [n for n in order if n != svc["name"]]
        touched.add(svc["device"])
    elif option == "-renamenetworkservice":
        _need(rest, 2)
        svc = _service_or_fail(host, rest[0])
        net["order"] = [rest[1] if n == svc["name"] else n for n in order]
        svc["name"] = rest[1]
    elif option == "-setmanual":
        _need(rest, 3)
        svc = _service_or_fail(host, rest[0])
        _valid_ipv4(rest[1])
        _valid_ipv4(rest[2], netmask=True)
        ipv4 = {"method": "manual", "address": rest[1], "mask": rest[2]}
        if len(rest) > 3 and rest[3]:
            _valid_ipv4(rest[3])
            ipv4["router"] = rest[3]
        svc["ipv4"] = ipv4
        touched.add(svc["device"])
    elif option == "-setdhcp":
        _need(rest, 1)
        svc = _service_or_fail(host, rest[0])
        svc["ipv4"] = {"method": "dhcp"}
        touched.add(svc["device"])
    elif option == "-setv4off":
        _need(rest, 1)
        svc = _service_or_fail(host, rest[0])
        svc["ipv4"] = {"method": "none"}
        touched.add(svc["device"])
    elif option == "-setmtu":
        _need(rest, 2)
        device = _device_of_port(host, rest[0])
        try:
            value = int(rest[1])
        except ValueError:
            raise _bad_parameters()
        if not 1280 <= value <= 9000:
            raise _bad_parameters()
        for svc in services:
            if svc["device"] == device:
                svc["mtu"] = value
        touched.add(device)
    elif option == "-ordernetworkservices":
        if sorted(rest) != sorted(order):
            raise _bad_parameters()
        net["order"] = list(rest)
    elif option == "-createlocation":
        _need(rest, 1)
        locations = net.setdefault("locations", {"Automatic": None})
        if rest[0] in locations:
            raise Fail(netsetup.EXIT_BAD_PARAMETERS,
                       stdout="{} is a duplicate name.\n".format(rest[0]) + netsetup.BAD_PARAMETERS)
        # Believed behaviour (unconfirmed): without "populate" the new location is empty.
        new = _default_services(host, services) if rest[1:2] == ["populate"] else []
        locations[rest[0]] = {"services": new, "order": [s["name"] for s in new]}
    elif option == "-switchtolocation":
        _need(rest, 1)
        locations = net.setdefault("locations", {"Automatic": None})
        if rest[0] not in locations:
            raise Fail(netsetup.EXIT_BAD_PARAMETERS,
                       stdout="{} is not a location.\n".format(rest[0]) + netsetup.BAD_PARAMETERS)
        current = net.get("current_location", "Automatic")
        if rest[0] != current:
            touched |= {s["device"] for s in services}
            locations[current] = {"services": services, "order": order}
            saved = locations[rest[0]] or {"services": [], "order": []}
            net["services"], net["order"] = saved["services"], saved["order"]
            locations[rest[0]] = None
            net["current_location"] = rest[0]
            touched |= {s["device"] for s in net["services"]}
        # Real networksetup prints this on success (from memory; unconfirmed).
        out("found it!\n")
    elif option == "-deletelocation":
        _need(rest, 1)
        locations = net.setdefault("locations", {"Automatic": None})
        if rest[0] not in locations or rest[0] == net.get("current_location", "Automatic"):
            raise _bad_parameters()
        del locations[rest[0]]
    elif option == "-setcomputername":
        _need(rest, 1)
        host.state.setdefault("names", {})["ComputerName"] = rest[0]
    if touched:
        # Every TB port's service may feed the bridge, so membership is re-checked too.
        host.apply_network(devices=touched | {netapply.BRIDGE})
    return 0


# --- PlistBuddy (the exo way of deleting the Thunderbolt Bridge) ----------------------------

def cmd_plistbuddy(host, args):
    """Only what exo's disable_bridge.sh does to SystemConfiguration's preferences.plist:
    `-c "Delete :VirtualNetworkInterfaces:Bridge:bridge0" FILE` (and `Print` of that key for
    idempotence checks). The change is persistent only: configd would not re-read the file until
    reboot, which is why exo also runs `ifconfig bridge0 destroy`."""
    if len(args) != 3 or args[0] != "-c":
        raise Fail(1, "Usage: PlistBuddy [-cxh] <file.plist> (the lab supports -c CMD FILE)\n")
    words = shlex.split(args[1])
    path = args[2]
    if path != SYSTEMCONFIG_PREFS or len(words) != 2 or words[1] != BRIDGE_PREFS_KEY:
        raise Fail(1, "PlistBuddy: the lab only simulates {} on {}\n".format(
            BRIDGE_PREFS_KEY, SYSTEMCONFIG_PREFS))
    verb = words[0]
    missing = 'Print: Entry, "{}", Does Not Exist\n'.format(BRIDGE_PREFS_KEY)
    if verb == "Print":
        bridge = host.state["network"].get("bridge", {})
        if not bridge.get("exists"):
            raise Fail(1, stdout=missing)
        out(plistfmt.plutil_p({"Interfaces": bridge.get("members", []),
                               "UserDefinedName": "Thunderbolt Bridge"}).replace('"', "")
            .replace("=>", "=") + "\n")
        return 0
    if verb == "Delete":
        if not is_root():
            raise Fail(1, "Error Writing File: {}\n".format(path))
        with host.mutate():
            bridge = host.state["network"].setdefault("bridge", {})
            if not bridge.get("exists"):
                raise Fail(1, stdout=missing.replace("Print", "Delete"))
            bridge["exists"] = False
        return 0
    raise Fail(1, "PlistBuddy: command {} is not simulated by the lab\n".format(verb))


# --- ifconfig, route, ipconfig --------------------------------------------------------------

def _iface_view(host, name, live):
    hw = host.state["hardware"]
    tb_devices = {p["device"] for p in hw.get("tb_ports", [])}
    mac_name = host.mac_name(name)
    if live["kind"] == "loopback" or name == "lo":
        kind = "loopback"
    elif name in tb_devices:
        kind = "tb"
    elif live["kind"] == "bridge":
        kind = "bridge"
    else:
        kind = "ethernet"
    members = sorted(n for n, i in host.live.items() if i.get("master") == name)
    carrier = live["carrier"]
    if kind == "bridge":
        carrier = any(host.live[m]["carrier"] for m in members)
    return {"name": mac_name, "kind": kind, "up": live["up"], "carrier": carrier,
            "mtu": live["mtu"], "mac": live["mac"], "index": live["index"],
            "inet": live["inet"], "inet6": live["inet6"], "members": members}


def _iface_order(host):
    hw = host.state["hardware"]
    preferred = ["lo", hw["ethernet"]["device"]] + [p["device"] for p in hw.get("tb_ports", [])]
    preferred.append(netapply.BRIDGE)
    names = [n for n in preferred if n in host.live]
    return names + sorted(n for n in host.live if n not in names)


def cmd_ifconfig(host, args):
    if not args or args == ["-a"]:
        out("".join(iffmt.interface(_iface_view(host, n, host.live[n])) for n in _iface_order(host)))
        return 0
    if args[0] == "-l":
        out(" ".join(host.mac_name(n) for n in _iface_order(host)) + "\n")
        return 0
    name, rest = args[0], args[1:]
    linux = host.linux_name(name)
    if rest == ["create"] and name.startswith("bridge"):
        require_root(iffmt.NOT_PERMITTED.format("SIOCIFCREATE2"))
        if linux in host.live:
            raise Fail(1, "ifconfig: SIOCIFCREATE2: File exists\n")
        _ip_checked(["link", "add", linux] + netapply.BRIDGE_TYPE_ARGS)
        return 0
    if linux not in host.live:
        raise Fail(1, iffmt.NO_SUCH_INTERFACE.format(name))
    if not rest:
        out(iffmt.interface(_iface_view(host, linux, host.live[linux])))
        return 0
    require_root(iffmt.NOT_PERMITTED.format("SIOCSIFFLAGS"))
    _ifconfig_change(host, linux, rest)
    return 0


def _ip_checked(args):
    proc = netapply.run_ip(args, check=False)
    if proc.returncode != 0:
        raise Fail(1, "ifconfig: {}\n".format(proc.stderr.strip() or "operation failed"))


def _ifconfig_change(host, dev, words):
    """BSD ifconfig words: [inet] ADDR[/len] [netmask M] [broadcast B] [alias|-alias|delete],
    up, down, mtu N, addm IF, deletem IF, destroy. All volatile: boot re-applies state.json."""
    address = prefix = None
    remove = alias = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "inet":
            pass
        elif word in ("up", "down"):
            _ip_checked(["link", "set", "dev", dev, word])
        elif word == "mtu":
            i += 1
            _ip_checked(["link", "set", "dev", dev, "mtu", words[i]])
        elif word in ("addm", "deletem"):
            i += 1
            member = words[i]
            if member not in host.live:
                raise Fail(1, iffmt.NO_SUCH_INTERFACE.format(member))
            _ip_checked(["link", "set", "dev", member] +
                        (["master", dev] if word == "addm" else ["nomaster"]))
        elif word == "destroy":
            _ip_checked(["link", "del", dev])
            return
        elif word == "netmask":
            i += 1
            mask = words[i]
            prefix = (bin(int(mask, 16)).count("1") if mask.startswith("0x")
                      else ipaddress.IPv4Network("0.0.0.0/" + mask).prefixlen)
        elif word == "broadcast":
            i += 1
        elif word == "alias":
            alias = True
        elif word in ("-alias", "delete"):
            remove = True
        else:
            try:
                iface = ipaddress.IPv4Interface(word)
            except ValueError:
                raise Fail(1, "ifconfig: {}: bad value\n".format(word))
            address = str(iface.ip)
            if "/" in word:
                prefix = iface.network.prefixlen
        i += 1
    if address is None:
        return
    current = host.live[dev]["inet"]
    if remove:
        match = [(a, p) for a, p, _ in current if a == address]
        if not match:
            raise Fail(1, "ifconfig: ioctl (SIOCDIFADDR): Can't assign requested address\n")
        _ip_checked(["addr", "del", "{}/{}".format(*match[0]), "dev", dev])
        return
    if prefix is None:
        # BSD picks the classful mask when none is given.
        first = int(address.split(".")[0])
        prefix = 8 if first < 128 else 16 if first < 192 else 24
    if not alias and current:
        # Without `alias`, BSD replaces the interface's first address.
        first_addr, first_prefix, _ = current[0]
        _ip_checked(["addr", "del", "{}/{}".format(first_addr, first_prefix), "dev", dev])
    _ip_checked(["addr", "replace", "{}/{}".format(address, prefix), "broadcast", "+", "dev", dev])


def default_route(host):
    """(gateway, device) of the primary service: the first enabled service, in service order,
    with a router (the lab keeps no real default route; see DESIGN.md)."""
    for name in host.state["network"].get("order", []):
        svc = find_service(host, name)
        if not svc or not svc.get("enabled", True):
            continue
        ipv4 = svc.get("ipv4") or {}
        if ipv4.get("method") == "manual" and ipv4.get("router"):
            live = host.live.get(svc["device"])
            if live is None or live["inet"]:
                return ipv4["router"], svc["device"]
    return None


def cmd_ping(host, args):
    """macOS ping(8) over Linux iputils ping: `-c N`, `-t TIMEOUT` (seconds for the whole run,
    Linux's -w), `-i WAIT`, `-S SRC`, `-q`, `-n`. The summary lines are rewritten to macOS's
    wording ("2 packets received, 0.0% packet loss", "round-trip min/avg/max/stddev"); per-reply
    lines are the same shape on both. Exit 0 when a reply came back, 2 when none did (macOS),
    64 on a usage error. Format of the summary from the ping(8) man page, not from a capture:
    unconfirmed."""
    linux = ["-n"]
    target = None
    words = list(args)
    while words:
        word = words.pop(0)
        if word in ("-c", "-t", "-i", "-S") and words:
            value = words.pop(0)
            linux += {"-c": ["-c"], "-t": ["-w"], "-i": ["-i"], "-S": ["-I"]}[word] + [value]
        elif word in ("-q", "-n"):
            linux += [word] if word == "-q" else []
        elif word.startswith("-"):
            raise Fail(64, "usage: ping [-AaDdfnoQqRrv] [-c count] [-i wait] [-S src_addr] [-t timeout] host\n")
        else:
            target = word
    if target is None:
        raise Fail(64, "usage: ping [-AaDdfnoQqRrv] [-c count] [-i wait] [-S src_addr] [-t timeout] host\n")
    tool = netapply.linux_tool("ping")
    if tool is None:
        raise Fail(69, "ping: not available in this lab\n")
    proc = subprocess.run([tool] + linux + [target], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    text = re.sub(r"(\d+) packets transmitted, (\d+) received,(?: \+\d+ errors,)? (\d+(?:\.\d+)?)% packet loss.*",
                  lambda m: "%s packets transmitted, %s packets received, %.1f%% packet loss"
                  % (m.group(1), m.group(2), float(m.group(3))), proc.stdout)
    text = text.replace("rtt min/avg/max/mdev", "round-trip min/avg/max/stddev")
    out(text)
    if proc.stderr:
        err(proc.stderr.replace("ping: ", "ping: ", 1))
    received = re.search(r"(\d+) packets received", text)
    return 0 if received and int(received.group(1)) > 0 else 2


def cmd_route(host, args):
    words = [a for a in args if a not in ("-n", "-q", "-v")]
    if not words:
        raise Fail(64, "usage: route [-dnqtv] command [[modifiers] args]\n")
    verb, rest = words[0], words[1:]
    if verb == "get":
        inet6 = "-inet6" in rest
        rest = [r for r in rest if r not in ("-inet", "-inet6", "-host", "-net")]
        target = rest[0] if rest else "default"
        if inet6:
            raise Fail(1, iffmt.ROUTE_NOT_IN_TABLE)
        if target in ("default", "0.0.0.0"):
            route = default_route(host)
            if route is None:
                raise Fail(1, iffmt.ROUTE_NOT_IN_TABLE)
            mtu = host.live.get(route[1], {}).get("mtu", 1500)
            out(iffmt.route_get("default", route[0], route[1], mtu, True))
            return 0
        proc = netapply.run_ip(["-j", "route", "get", target], check=False)
        if proc.returncode != 0:
            raise Fail(1, iffmt.ROUTE_NOT_IN_TABLE)
        entry = json.loads(proc.stdout)[0]
        device = host.mac_name(entry["dev"])
        mtu = host.live.get(entry["dev"], {}).get("mtu", 1500)
        out(iffmt.route_get(target, entry.get("gateway"), device, mtu, False))
        return 0
    if verb in ("add", "change", "delete"):
        require_root(iffmt.ROUTE_NEEDS_ROOT)
        rest = [r for r in rest if r not in ("-inet", "-host")]
        if not rest:
            raise Fail(64, "usage: route {} destination gateway\n".format(verb))
        destination = rest[0]
        via = None
        device = None
        if "-interface" in rest:
            device = host.linux_name(rest[rest.index("-interface") + 1])
        elif len(rest) > 1:
            via = rest[1]
        spec = [destination if "/" in destination else destination + "/32"]
        if verb == "delete":
            ipargs = ["route", "del"] + spec
        else:
            ipargs = ["route", "replace"] + spec + (["dev", device] if device else ["via", via])
        proc = netapply.run_ip(ipargs, check=False)
        if proc.returncode != 0:
            raise Fail(1, "route: writing to routing socket: {}\n".format(
                "not in table" if verb != "add" else "Network is unreachable"))
        with host.mutate():
            routes = host.volatile.setdefault("routes", [])
            routes[:] = [r for r in routes if r.get("destination") != destination]
            if verb != "delete":
                routes.append({"destination": destination, "interface": device, "gateway": via})
        out(iffmt.route_changed(verb, destination, host.mac_name(device) if device else via))
        return 0
    raise Fail(64, "route: {}: unsupported command in the lab\n".format(verb))


def cmd_ipconfig(host, args):
    if len(args) == 2 and args[0] == "getifaddr":
        inet = host.live.get(host.linux_name(args[1]), {}).get("inet", [])
        if not inet:
            return 1
        out(inet[0][0] + "\n")
        return 0
    raise Fail(1, "usage: ipconfig <command> <args> (the lab simulates getifaddr)\n")


# --- rdma_ctl, ibv_devices, ibv_devinfo -----------------------------------------------------

def cmd_rdma_ctl(host, args):
    rdma = host.state.get("rdma", {})
    if args == ["status"]:
        out(rdmafmt.status(rdma.get("enabled", False)))
        return 0
    if args in (["enable"], ["disable"]):
        if host.boot_mode != "recovery" or not is_root():
            raise Fail(1, rdmafmt.NOT_IN_RECOVERY)
        with host.mutate():
            host.state.setdefault("rdma", {})["pending"] = args[0] == "enable"
        return 0
    raise Fail(1, "usage: rdma_ctl status|enable|disable\n")


def _guid_base(state):
    return int(hashlib.sha256(state["hardware"]["platform_uuid"].encode()).hexdigest()[:14], 16)


def rdma_devices(host):
    """One device per TB5 port while RDMA is enabled, with its PORT_ACTIVE rule: cabled at TB5
    speed to a running host that has RDMA enabled too, and not enslaved to bridge0 (a bridge
    member reports PORT_DOWN, as a third-party guide found)."""
    state = host.state
    if not state.get("rdma", {}).get("enabled"):
        return []
    base = _guid_base(state)
    ports = [p for p in state["hardware"].get("tb_ports", []) if p.get("tb5", True)]
    links = tb_links(host)
    devices = []
    sys_guid = ((0xa0 << 56) | base)
    for port in ports:
        link = links.get(port["receptacle"])
        live = host.live.get(port["device"], {})
        active = bool(link and link["tb5"]
                      and link["peer_state"].get("rdma", {}).get("enabled")
                      and live.get("master") != netapply.BRIDGE)
        mac = live.get("mac") or port["mac"]
        gids = [rdmafmt.mac_to_link_local(mac)]
        gids += ["::ffff:" + a for a, _, _ in live.get("inet", [])]
        gids += [a for a, _ in live.get("inet6", []) if a != gids[0]]
        devices.append({"name": "rdma_" + port["device"],
                        "guid": ((0xa0 + port["bus"]) << 56) | base,
                        "sys_guid": sys_guid, "active": active, "gids": gids})
    return devices


def cmd_ibv_devices(host, args):
    out(rdmafmt.devices([(d["name"], d["guid"]) for d in rdma_devices(host)]))
    return 0


def cmd_ibv_devinfo(host, args):
    verbose = "-v" in args or "--verbose" in args
    wanted = None
    for flag in ("-d", "--ib-dev"):
        if flag in args:
            wanted = args[args.index(flag) + 1]
    devices = rdma_devices(host)
    if not devices:
        raise Fail(255, rdmafmt.NO_DEVICES)
    if "-l" in args or "--list" in args:
        out("{} HCA{} found:\n".format(len(devices), "" if len(devices) == 1 else "s") +
            "".join("\t{}\n".format(d["name"]) for d in devices))
        return 0
    if wanted is not None:
        devices = [d for d in devices if d["name"] == wanted]
        if not devices:
            raise Fail(255, "IB device '{}' wasn't found\n".format(wanted))
    out("".join(rdmafmt.devinfo(d, verbose) for d in devices))
    return 0


# --- shutdown, reboot, halt -----------------------------------------------------------------

# Runs detached: the caller's ssh session may end before the signal. It signals only a process
# whose name is `launchd`, so a mis-set MACLAB_INIT_PID can never take down a real init.
SIGNALLER = """
import os, signal, sys, time
time.sleep(float(sys.argv[1]))
pid = int(sys.argv[2])
with open("/proc/%d/comm" % pid) as fh:
    if fh.read().strip() == "launchd":
        os.kill(pid, signal.SIGTERM)
"""


def request_power(host, kind, delay):
    run_dir = os.path.join(host.dir, "run")
    os.makedirs(run_dir, exist_ok=True)
    with open(os.path.join(run_dir, "power_request"), "w") as fh:
        fh.write(kind + "\n")
    init_pid = os.environ.get("MACLAB_INIT_PID", "1")
    subprocess.Popen([sys.executable, "-c", SIGNALLER, str(delay), init_pid],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True)


def cmd_shutdown(host, args):
    kind = None
    when = None
    for arg in args:
        if arg in ("-r",):
            kind = "reboot"
        elif arg in ("-h", "-s"):
            kind = "halt" if arg == "-h" else "sleep"
        elif arg.startswith("-"):
            continue
        elif when is None:
            when = arg
    if when is None:
        raise Fail(1, "usage: shutdown [-] [-h [-u] [-n] | -r [-n] | -s | -k] time [warning-message ...]\n")
    require_root(admin.SHUTDOWN_NOT_ROOT)
    if when == "now":
        minutes = 0
    elif when.startswith("+") and when[1:].isdigit():
        minutes = int(when[1:])
    else:
        raise Fail(1, "shutdown: bad time format (the lab accepts now and +N)\n")
    now = time.time()
    out(admin.shutdown_message(now + 60 * minutes, now, os.getpid()))
    if kind in ("reboot", "halt"):
        request_power(host, kind, 1 + 60 * minutes)
    return 0


def cmd_reboot(host, args):
    require_root("reboot: Operation not permitted\n")
    request_power(host, "reboot", 1)
    return 0


def cmd_halt(host, args):
    require_root("halt: Operation not permitted\n")
    request_power(host, "halt", 1)
    return 0


# --- launchctl (client of launchd.sock) -----------------------------------------------------

def launchd_request(host, request):
    path = os.path.join(host.dir, "run", "launchd.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(30)
        sock.connect(path)
        sock.sendall((json.dumps(request) + "\n").encode())
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError as exc:
        raise Fail(1, "launchctl: cannot reach launchd ({}): {}\n".format(path, exc))
    finally:
        sock.close()
    reply = json.loads(b"".join(chunks).decode() or "{}")
    return int(reply.get("rc", 1)), reply.get("out", ""), reply.get("err", "")


def _label_of_target(target):
    if not target.startswith("system/"):
        raise Fail(1, "launchctl: the lab simulates only the system domain, not {}\n".format(target))
    return target.split("/", 1)[1]


def _label_of_plist(host, path):
    try:
        with open(host.fs(path), "rb") as fh:
            return plistlib.load(fh)["Label"]
    except (OSError, KeyError, ValueError, plistlib.InvalidFileException):
        raise Fail(1, "{}: No such file or directory\n".format(path))


def _relay(reply):
    rc, stdout, stderr = reply
    out(stdout)
    err(stderr)
    return rc


def cmd_launchctl(host, args):
    if not args:
        raise Fail(1, "Usage: launchctl <subcommand> ... | help [subcommand]\n")
    verb, rest = args[0], args[1:]
    # launchd checks the caller's uid itself (SO_PEERCRED), so no root test here.
    if verb == "list":
        request = {"op": "list"}
        if rest:
            request["label"] = rest[0]
        return _relay(launchd_request(host, request))
    if verb == "bootstrap":
        if len(rest) < 2 or rest[0] != "system":
            raise Fail(1, "Usage: launchctl bootstrap system <service-path>\n")
        return max(_relay(launchd_request(host, {"op": "bootstrap", "plist": p})) for p in rest[1:])
    if verb == "bootout":
        if not rest:
            raise Fail(1, "Usage: launchctl bootout <service-target> | system <service-path>\n")
        if rest[0] == "system" and len(rest) > 1:
            label = _label_of_plist(host, rest[1])
        else:
            label = _label_of_target(rest[0])
        return _relay(launchd_request(host, {"op": "bootout", "label": label}))
    if verb in ("print", "enable", "disable"):
        if not rest:
            raise Fail(1, "Usage: launchctl {} <service-target>\n".format(verb))
        return _relay(launchd_request(host, {"op": verb, "label": _label_of_target(rest[-1])}))
    if verb == "kickstart":
        targets = [r for r in rest if not r.startswith("-")]
        if not targets:
            raise Fail(1, "Usage: launchctl kickstart [-kp] <service-target>\n")
        return _relay(launchd_request(host, {"op": "kickstart", "kill": "-k" in rest,
                                             "label": _label_of_target(targets[0])}))
    if verb in ("load", "unload"):
        return _legacy_load(host, verb, rest)
    if verb in ("start", "stop"):
        if not rest:
            raise Fail(1, "Usage: launchctl {} <label>\n".format(verb))
        request = ({"op": "kickstart", "kill": False, "label": rest[0]} if verb == "start"
                   else {"op": "stop", "label": rest[0]})
        return _relay(launchd_request(host, request))
    raise Fail(1, 'Unrecognized subcommand: {}\nUsage: launchctl <subcommand> ...\n'.format(verb))


def _legacy_load(host, verb, rest):
    """load/unload [-w] [-F] PATH...: what community.general.launchd drives. Legacy
    subcommands report problems on stderr but exit 0 for an already-(un)loaded job
    (unconfirmed on macOS 26)."""
    write = "-w" in rest
    paths = [r for r in rest if not r.startswith("-")]
    if not paths:
        raise Fail(1, "Usage: launchctl {} [-wF] <paths>\n".format(verb))
    rc = 0
    for path in paths:
        label = _label_of_plist(host, path)
        if verb == "load":
            if write:
                launchd_request(host, {"op": "enable", "label": label})
            code, stdout, stderr = launchd_request(host, {"op": "bootstrap", "plist": path})
            out(stdout)
            if code != 0:
                err(stderr or "Load failed: {}: {}\n".format(code, path))
                rc = code
        else:
            code, stdout, stderr = launchd_request(host, {"op": "bootout", "label": label})
            out(stdout)
            if code != 0:
                err("Could not find specified service\n")
            if write:
                launchd_request(host, {"op": "disable", "label": label})
    return rc


# --- brew -----------------------------------------------------------------------------------

def _formula_source(host, formula):
    """(executable name, Linux target) of what `brew install FORMULA` links, from lab.json:
    `pythons` {"3.12": interpreter} for python@X.Y, `tools` {"uv": binary} for the rest."""
    if formula.startswith("python@"):
        version = formula.split("@", 1)[1]
        target = host.world.get("pythons", {}).get(version)
        if target and os.path.isdir(target):
            target = os.path.join(target, "bin", "python" + version)
        return ("python" + version, target) if target else None
    target = host.world.get("tools", {}).get(formula)
    return (formula, target) if target else None


def _formula_version(executable, target):
    proc = subprocess.run([target, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    words = proc.stdout.split()
    return words[1] if len(words) > 1 else "0"


def cmd_brew(host, args):
    if is_root():
        raise Fail(1, admin.BREW_AS_ROOT)
    prefix = HOMEBREW
    cellar = host.fs(prefix + "/Cellar")
    if not args:
        raise Fail(1, "Example usage:\n  brew install FORMULA...\n")
    verb, rest = args[0], args[1:]
    if verb == "--prefix":
        out(prefix + ("/opt/" + rest[0] if rest else "") + "\n")
        return 0
    if verb == "--version":
        out("Homebrew 4.6.0\n")
        return 0
    if verb in ("list", "ls"):
        names = sorted(os.listdir(cellar)) if os.path.isdir(cellar) else []
        wanted = [r for r in rest if not r.startswith("-")]
        if wanted:
            missing = [w for w in wanted if w not in names]
            if missing:
                raise Fail(1, "Error: No such keg: {}/Cellar/{}\n".format(prefix, missing[0]))
            names = wanted
        if "--versions" in rest:
            out("".join("{} {}\n".format(n, " ".join(sorted(os.listdir(os.path.join(cellar, n)))))
                        for n in names))
        else:
            out("".join(n + "\n" for n in names))
        return 0
    if verb == "info" and "--json=v2" in rest:
        # The shape community.general.homebrew reads (name, full_name, tap, aliases, oldnames,
        # installed, outdated); a subset of Homebrew's real `brew info --json=v2` document.
        formulae = []
        for formula in [r for r in rest if not r.startswith("-")]:
            source = _formula_source(host, formula)
            if source is None:
                raise Fail(1, 'Error: No available formula with the name "{}".\n'.format(formula))
            kegs = os.path.join(cellar, formula)
            installed = sorted(os.listdir(kegs)) if os.path.isdir(kegs) else []
            version = _formula_version(*source)
            formulae.append({
                "name": formula, "full_name": formula, "tap": "homebrew/core", "aliases": [],
                "oldnames": [], "versions": {"stable": version, "head": None, "bottle": True},
                "installed": [{"version": v, "installed_as_dependency": False, "installed_on_request": True}
                              for v in installed],
                "linked_keg": installed[-1] if installed else None, "outdated": False,
                "pinned": False, "keg_only": False,
            })
        out(json.dumps({"formulae": formulae, "casks": []}, indent=2) + "\n")
        return 0
    if verb in ("install", "reinstall"):
        rc = 0
        for formula in [r for r in rest if not r.startswith("-")]:
            source = _formula_source(host, formula)
            if source is None:
                err(admin.brew_not_in_lab(formula) if formula in admin.LAB_TOOL_FORMULAE
                    else admin.brew_no_formula(formula))
                rc = 1
                continue
            executable, target = source
            version = _formula_version(executable, target)
            keg = os.path.join(cellar, formula, version)
            if os.path.isdir(keg) and verb == "install":
                err(admin.brew_already(formula, version))
                continue
            os.makedirs(os.path.join(keg, "bin"), exist_ok=True)
            _symlink(target, os.path.join(keg, "bin", executable))
            _symlink("../Cellar/{}/{}".format(formula, version),
                     host.fs(prefix + "/opt/" + formula))
            os.makedirs(host.fs(prefix + "/bin"), exist_ok=True)
            _symlink("../Cellar/{}/{}/bin/{}".format(formula, version, executable),
                     host.fs(prefix + "/bin/" + executable))
            out(admin.brew_poured(prefix, formula, version))
        return rc
    if verb == "uninstall":
        import shutil
        for formula in rest:
            kegs = os.path.join(cellar, formula)
            if not os.path.isdir(kegs):
                raise Fail(1, "Error: No such keg: {}/Cellar/{}\n".format(prefix, formula))
            for version in os.listdir(kegs):
                for executable in os.listdir(os.path.join(kegs, version, "bin")):
                    link = host.fs(prefix + "/bin/" + executable)
                    if os.path.islink(link):
                        os.unlink(link)
            shutil.rmtree(kegs)
            if os.path.islink(host.fs(prefix + "/opt/" + formula)):
                os.unlink(host.fs(prefix + "/opt/" + formula))
            out("Uninstalling {}/Cellar/{}...\n".format(prefix, formula))
        return 0
    raise Fail(1, "Error: Unknown command: brew {}\n".format(verb))


def _symlink(target, link):
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.islink(link) or os.path.exists(link):
        os.unlink(link)
    os.symlink(target, link)


# --- pmset, softwareupdate, scutil, fdesetup, nvram -----------------------------------------

def cmd_pmset(host, args):
    if not args or args[0] == "-g":
        out(admin.pmset_settings(host.state.get("pmset", {})))
        return 0
    if args[0] in ("-a", "-b", "-c", "-u"):
        pairs = args[1:]
        if not pairs or len(pairs) % 2:
            raise Fail(1, "Usage: pmset <-a|-b|-c|-u> <setting> <value> ...\n")
        require_root("pmset: Must be run as root\n")
        with host.mutate():
            settings = host.state.setdefault("pmset", {})
            for key, value in zip(pairs[::2], pairs[1::2]):
                settings[key] = int(value) if value.lstrip("-").isdigit() else value
        return 0
    raise Fail(1, "Usage: pmset -g | pmset <-a|-b|-c|-u> <setting> <value> ...\n")


def cmd_softwareupdate(host, args):
    if args and args[0] in ("-l", "--list"):
        stdout, stderr = admin.softwareupdate_list(host.state.get("pending_updates", []))
        out(stdout)
        err(stderr)
        return 0
    raise Fail(1, "usage: softwareupdate <cmd> [<args> ...] (the lab simulates --list)\n")


SCUTIL_KEYS = ("ComputerName", "LocalHostName", "HostName")


def cmd_scutil(host, args):
    if len(args) >= 2 and args[0] == "--get" and args[1] in SCUTIL_KEYS:
        value = host.state.get("names", {}).get(args[1])
        if not value:
            raise Fail(1, stdout=admin.scutil_not_set(args[1]))
        out(value + "\n")
        return 0
    if len(args) == 3 and args[0] == "--set" and args[1] in SCUTIL_KEYS:
        require_root("SCPreferencesLock() failed: Permission denied\n")
        with host.mutate():
            host.state.setdefault("names", {})[args[1]] = args[2]
        if args[1] == "HostName":
            tool = netapply.linux_tool("hostname")
            if tool:
                subprocess.run([tool, args[2]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return 0
    raise Fail(1, "usage: scutil --get|--set ComputerName|LocalHostName|HostName [name]\n")


def cmd_fdesetup(host, args):
    # "pending" is not on yet: isactive says false and authrestart has nothing to unlock
    # (unconfirmed on a Mac: it answers like FileVault off).
    on = host.state.get("filevault") is True
    if args == ["status"]:
        out(admin.filevault_status(host.state.get("filevault", False)))
        return 0
    if args == ["isactive"]:
        out("true\n" if on else "false\n")
        return 0 if on else 1
    if args and args[0] == "authrestart":
        return _fdesetup_authrestart(host, args[1:], on)
    raise Fail(1, "Usage: fdesetup status | isactive | authrestart (the lab simulates these)\n")


def _fdesetup_authrestart(host, options, on):
    """A restart that skips the FileVault unlock screen once. The lab asks for no credentials
    (a Mac prompts for them, or reads them with -inputplist, which is consumed here)."""
    require_root(admin.FDESETUP_NOT_ROOT)
    if "-inputplist" in options:
        sys.stdin.read()
    if not on:
        raise Fail(1, admin.FDESETUP_AUTHRESTART_OFF)
    delay = 1
    if "-delayminutes" in options:
        position = options.index("-delayminutes") + 1
        if position >= len(options) or not options[position].lstrip("-").isdigit():
            raise Fail(1, "Usage: fdesetup authrestart [-delayminutes N] [-inputplist]\n")
        # -1 waits for someone else's restart on macOS; the lab restarts at once.
        delay += 60 * max(0, int(options[position]))
    request_power(host, "authrestart", delay)
    return 0


def cmd_csrutil(host, args):
    if args == ["status"]:
        out(admin.csrutil_status(host.state.get("sip", True)))
        return 0
    raise Fail(1, "usage: csrutil status (the lab simulates status only)\n")


def cmd_nvram(host, args):
    variables = dict(host.state.get("nvram", {}))
    # Unconfirmed: some scripts read `nvram rdma-enable`; the lab mirrors rdma.enabled there.
    variables.setdefault("rdma-enable", "1" if host.state.get("rdma", {}).get("enabled") else "0")
    if not args or args == ["-p"]:
        out("".join(admin.nvram_variable(k, v) for k, v in sorted(variables.items())))
        return 0
    rc = 0
    for arg in args:
        if "=" in arg:
            require_root("nvram: Error setting variable - '{}': (iokit/common) not privileged\n"
                         .format(arg.split("=", 1)[0]))
            name, value = arg.split("=", 1)
            with host.mutate():
                host.state.setdefault("nvram", {})[name] = value
        elif arg.startswith("-d") or arg == "-d":
            continue
        elif arg in variables:
            out(admin.nvram_variable(arg, variables[arg]))
        else:
            err(admin.nvram_missing(arg))
            rc = 1
    return rc


# --- dscl -----------------------------------------------------------------------------------

def _user_attributes(entry):
    groups = [g.gr_name for g in grp.getgrall() if entry.pw_name in g.gr_mem]
    attrs = {"NFSHomeDirectory": [entry.pw_dir], "PrimaryGroupID": [str(entry.pw_gid)],
             "RealName": [entry.pw_gecos.split(",")[0] or entry.pw_name],
             "RecordName": [entry.pw_name], "UniqueID": [str(entry.pw_uid)],
             "UserShell": [entry.pw_shell], "RecordType": ["dsRecTypeStandard:Users"]}
    if groups:
        attrs["dsAttrTypeNative:groups"] = groups
    return attrs


def cmd_dscl(host, args):
    if len(args) < 3 or args[0] not in (".", "/Local/Default"):
        raise Fail(1, "Usage: dscl . -read|-list <path> [attributes]\n")
    verb, path, attrs = args[1], args[2], args[3:]
    if verb == "-list" and path == "/Users":
        out("".join(p.pw_name + "\n" for p in sorted(pwd.getpwall(), key=lambda p: p.pw_name)))
        return 0
    if verb == "-list" and path == "/Groups":
        out("".join(g.gr_name + "\n" for g in sorted(grp.getgrall(), key=lambda g: g.gr_name)))
        return 0
    if verb == "-read" and path.startswith("/Users/"):
        try:
            entry = pwd.getpwnam(path.split("/", 2)[2])
        except KeyError:
            raise Fail(admin.EXIT_DSCL_NOT_FOUND, admin.DSCL_NOT_FOUND)
        out(admin.dscl_record(_user_attributes(entry), attrs or None))
        return 0
    if verb == "-read" and path.startswith("/Groups/"):
        try:
            group = grp.getgrnam(path.split("/", 2)[2])
        except KeyError:
            raise Fail(admin.EXIT_DSCL_NOT_FOUND, admin.DSCL_NOT_FOUND)
        record = {"GroupMembership": list(group.gr_mem), "PrimaryGroupID": [str(group.gr_gid)],
                  "RecordName": [group.gr_name]}
        out(admin.dscl_record(record, attrs or None))
        return 0
    raise Fail(1, "dscl: the lab simulates -read/-list of /Users and /Groups\n")


# --- diskutil, df ---------------------------------------------------------------------------

def disk_space(host):
    """(total, free) of the boot volume; `faults.disk_full_bytes` is the free space left."""
    total = int(host.state["hardware"].get("disk_bytes", 10 ** 12))
    forced = host.state.get("faults", {}).get("disk_full_bytes")
    free = int(forced) if forced is not None else total - BASELINE_DISK_USED
    return total, max(0, min(total, free))


def cmd_diskutil(host, args):
    if args[:1] == ["info"] and args[1:] in (["/"], ["disk3s1s1"], ["/dev/disk3s1s1"]):
        out(admin.diskutil_info(*disk_space(host)))
        return 0
    raise Fail(1, "Could not find disk: {}\n".format(" ".join(args[1:]) or "(none)"))


def _bsd_stat_field(token, st, path):
    """One BSD stat(1) -f conversion (the subset testinfra and people use); None when unknown."""
    kind = stat.S_IFMT(st.st_mode)
    names = {stat.S_IFDIR: "Directory", stat.S_IFREG: "Regular File", stat.S_IFLNK: "Symbolic Link",
             stat.S_IFIFO: "Fifo File", stat.S_IFSOCK: "Socket", stat.S_IFCHR: "Character Device",
             stat.S_IFBLK: "Block Device"}
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return {
        "Lp": "%o" % (st.st_mode & 0o7777), "p": "%o" % st.st_mode, "Sp": stat.filemode(st.st_mode),
        "Su": user, "Sg": group, "u": str(st.st_uid), "g": str(st.st_gid), "z": str(st.st_size),
        "m": str(int(st.st_mtime)), "a": str(int(st.st_atime)), "c": str(int(st.st_ctime)),
        "i": str(st.st_ino), "l": str(st.st_nlink), "N": path, "HT": names.get(kind, "Unknown"),
        "%": "%", "n": "\n", "t": "\t",
    }.get(token)


_BSD_STAT_TOKEN = re.compile(r"%(HT|S[pug]|L?p|[ugzmacilN%nt])")


def cmd_stat(host, args):
    """BSD stat(1): `stat [-L] [-f format] file...`. macOS's stat takes -f FORMAT where GNU's takes
    -c; testinfra's macOS backend runs `stat -f %Lp FILE` and friends. Only -L and -f (with the
    conversions in _bsd_stat_field) are simulated; the default output is an approximation of
    BSD's (format unconfirmed for every field)."""
    follow, fmt, files = False, None, []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "-L":
            follow = True
        elif arg == "-f" and rest:
            fmt = rest.pop(0)
        elif arg.startswith("-f") and len(arg) > 2:
            fmt = arg[2:]
        elif arg.startswith("-") and arg != "-":
            raise Fail(1, "stat: the lab simulates -L and -f FORMAT only\n"
                          "usage: stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]\n")
        else:
            files.append(arg)
    if not files:
        raise Fail(1, "usage: stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]\n")
    rc = 0
    for path in files:
        try:
            st = os.stat(path) if follow else os.lstat(path)
        except OSError as exc:
            err("stat: %s: %s\n" % (path, exc.strerror))
            rc = 1
            continue
        if fmt is None:
            out("%d %d %s %d %s %s 0 %d \"%s\" \"%s\" \"%s\" \"%s\" %d %d 0 %s\n" % (
                st.st_dev, st.st_ino, stat.filemode(st.st_mode), st.st_nlink, _bsd_stat_field("Su", st, path),
                _bsd_stat_field("Sg", st, path), st.st_size,
                *[time.strftime("%b %d %H:%M:%S %Y", time.localtime(t))
                  for t in (st.st_atime, st.st_mtime, st.st_ctime, st.st_ctime)],
                4096, (st.st_size + 511) // 512, path))
            continue
        unknown = [t for t in _BSD_STAT_TOKEN.findall(fmt) if _bsd_stat_field(t, st, path) is None]
        if unknown:
            raise Fail(1, "stat: the lab does not simulate %%%s\n" % unknown[0])
        out(_BSD_STAT_TOKEN.sub(lambda m: _bsd_stat_field(m.group(1), st, path), fmt) + "\n")
    return rc


def cmd_df(host, args):
    unit = 512
    for arg in args:
        if arg.startswith("-"):
            for letter in arg[1:]:
                unit = {"k": 1024, "m": 1048576, "g": 1073741824, "h": "h", "H": "h"}.get(letter, unit)
    total, free = disk_space(host)
    out(admin.df(total, free, unit))
    return 0


# --- defaults, plutil -----------------------------------------------------------------------

def _defaults_path(host, domain, current_host):
    if domain in ("-g", "NSGlobalDomain", "-globalDomain"):
        domain = ".GlobalPreferences"
    if domain.startswith("/"):
        return host.fs(domain if domain.endswith(".plist") else domain + ".plist")
    home = os.environ.get("HOME") or "/var/root"
    if current_host:
        return host.fs("{}/Library/Preferences/ByHost/{}.{}.plist".format(
            home, domain, host.state["hardware"]["platform_uuid"]))
    return host.fs("{}/Library/Preferences/{}.plist".format(home, domain))


def _load_plist(path):
    with open(path, "rb") as fh:
        return plistlib.load(fh)


def _save_plist(path, data, fmt=plistlib.FMT_BINARY):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        plistlib.dump(data, fh, fmt=fmt)
    os.replace(tmp, path)


def _typed(kind, text):
    kind = kind.lstrip("-")
    if kind in ("int", "integer"):
        return int(text)
    if kind == "float":
        return float(text)
    if kind in ("bool", "boolean"):
        return text.lower() in ("true", "yes", "1")
    if kind == "date":
        import datetime
        return datetime.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S")
    if kind == "data":
        return bytes.fromhex(text)
    return text


def _typed_list(tokens):
    """`-type value` pairs (or bare strings) as defaults -array / -dict take them."""
    values, i = [], 0
    while i < len(tokens):
        if tokens[i].startswith("-") and i + 1 < len(tokens):
            values.append(_typed(tokens[i], tokens[i + 1]))
            i += 2
        else:
            values.append(tokens[i])
            i += 1
    return values


def cmd_defaults(host, args):
    current_host = False
    while args and args[0] in ("-currentHost", "-host"):
        current_host = args[0] == "-currentHost"
        args = args[2:] if args[0] == "-host" else args[1:]
    if len(args) < 2:
        raise Fail(1, "Command line interface to a user's defaults.\nSyntax:\n\n"
                      "'defaults' [-currentHost | -host <hostname>] followed by one of the following:\n")
    verb, domain, rest = args[0], args[1], args[2:]
    path = _defaults_path(host, domain, current_host)
    exists = os.path.exists(path)
    data = _load_plist(path) if exists else {}
    if verb in ("read", "read-type"):
        if not exists:
            raise Fail(1, "\nDomain {} does not exist\n".format(domain))
        if not rest:
            out(plistfmt.old_style(data) + "\n")
            return 0
        if rest[0] not in data:
            raise Fail(1, "\nThe domain/default pair of ({}, {}) does not exist\n".format(domain, rest[0]))
        value = data[rest[0]]
        out("Type is {}\n".format(plistfmt.type_name(value)) if verb == "read-type"
            else plistfmt.old_style(value) + "\n")
        return 0
    if verb == "export":
        if not exists:
            raise Fail(1, "\nDomain {} does not exist\n".format(domain))
        target = rest[0] if rest else "-"
        if target == "-":
            sys.stdout.flush()
            plistlib.dump(data, sys.stdout.buffer, fmt=plistlib.FMT_XML)
        else:
            _save_plist(host.fs(target), data, plistlib.FMT_XML)
        return 0
    if verb == "write":
        if not rest:
            raise Fail(1, "Command line interface to a user's defaults.\n")
        key, tokens = rest[0], rest[1:]
        if not tokens:
            raise Fail(1, "Command line interface to a user's defaults.\n")
        kind = tokens[0] if tokens[0].startswith("-") else "-string"
        values = tokens[1:] if tokens[0].startswith("-") else tokens
        try:
            if kind in ("-array", "-array-add"):
                value = (list(data.get(key, [])) if kind == "-array-add" else []) + _typed_list(values)
            elif kind in ("-dict", "-dict-add"):
                value = dict(data.get(key, {})) if kind == "-dict-add" else {}
                i = 0
                while i < len(values):
                    if i + 2 < len(values) + 1 and values[i + 1].startswith("-") and i + 2 < len(values):
                        value[values[i]] = _typed(values[i + 1], values[i + 2])
                        i += 3
                    else:
                        value[values[i]] = values[i + 1]
                        i += 2
            else:
                value = _typed(kind, values[0])
        except (ValueError, IndexError):
            raise Fail(1, "Command line interface to a user's defaults.\n")
        data[key] = value
        try:
            _save_plist(path, data)
        except OSError:
            raise Fail(1, "Could not write domain {}; exiting\n".format(domain))
        return 0
    if verb == "delete":
        if not exists:
            raise Fail(1, "\nDomain ({}) not found.\nDefaults have not been changed.\n".format(domain))
        if rest:
            if rest[0] not in data:
                raise Fail(1, "\nDomain ({}) not found.\nDefaults have not been changed.\n".format(domain))
            del data[rest[0]]
            _save_plist(path, data)
        else:
            os.unlink(path)
        return 0
    raise Fail(1, "Command line interface to a user's defaults.\n")


def _keypath_get(data, keypath):
    for part in keypath.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _keypath_parent(data, keypath):
    parts = keypath.split(".")
    parent = _keypath_get(data, ".".join(parts[:-1])) if len(parts) > 1 else data
    return parent, parts[-1]


def cmd_plutil(host, args):
    if not args:
        raise Fail(1, "No files specified.\n")
    verb = args[0]
    output = None
    if "-o" in args:
        index = args.index("-o")
        output = args[index + 1] if args[index + 1] == "-" else host.fs(args[index + 1])
        args = args[:index] + args[index + 2:]
    path = host.fs(args[-1])
    try:
        data = _load_plist(path)
    except FileNotFoundError:
        raise Fail(1, "{}: file does not exist or is not readable or is not a regular file\n".format(args[-1]))
    except (ValueError, plistlib.InvalidFileException) as exc:
        if verb == "-lint":
            raise Fail(1, stdout="{}: {}\n".format(args[-1], exc))
        raise Fail(1, "{}: Property List error: {}\n".format(args[-1], exc))
    if verb == "-lint":
        out("{}: OK\n".format(args[-1]))
        return 0
    if verb == "-p":
        out(plistfmt.plutil_p(data) + "\n")
        return 0
    if verb == "-convert":
        fmt = args[1]
        target = output or path
        if fmt == "json":
            _write_out(target, (json.dumps(data) + "\n").encode())
        elif fmt in ("xml1", "binary1"):
            blob = plistlib.dumps(data, fmt=plistlib.FMT_XML if fmt == "xml1" else plistlib.FMT_BINARY)
            _write_out(target, blob)
        else:
            raise Fail(1, "Unknown format specifier: {}\n".format(fmt))
        return 0
    if verb == "-extract":
        keypath, fmt = args[1], args[2]
        try:
            value = _keypath_get(data, keypath)
        except (KeyError, IndexError, ValueError, TypeError):
            raise Fail(1, "{}: Could not extract value, error: No value at that key path or invalid key path: {}\n"
                       .format(args[-1], keypath))
        if fmt == "json":
            blob = json.dumps(value).encode()
        elif fmt == "raw":
            blob = (plistfmt.plutil_p(value).strip('"') + "\n").encode()
        else:
            blob = plistlib.dumps(value, fmt=plistlib.FMT_XML if fmt == "xml1" else plistlib.FMT_BINARY)
        _write_out(output or "-", blob)
        return 0
    if verb in ("-replace", "-insert", "-remove"):
        keypath = args[1]
        parent, last = _keypath_parent(data, keypath)
        if verb == "-remove":
            if last not in parent:
                raise Fail(1, "Could not modify plist, error: No value to remove at key path {}\n".format(keypath))
            del parent[last]
        else:
            kind, text = args[2], args[3]
            value = json.loads(text) if kind == "-json" else _typed(kind, text)
            if verb == "-insert" and last in parent:
                raise Fail(1, "Could not modify plist, error: Value already exists at key path {}\n".format(keypath))
            parent[last] = value
        _write_out(output or path, plistlib.dumps(data, fmt=plistlib.FMT_BINARY))
        return 0
    raise Fail(1, "unrecognized option: {}\n".format(verb))


def _write_out(target, blob):
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(blob)
        sys.stdout.buffer.flush()
        return
    with open(target, "wb") as fh:
        fh.write(blob)


# --- pfctl (state only: the lab's pf filters no packets) -------------------------------------

PFCTL_OPTIONS = "AdeEghmNnOqRrvza:D:F:f:i:K:k:o:p:s:t:T:x:X:"
PFCTL_FLUSH_MESSAGES = ("rules cleared\n", "nat cleared\n", "0 tables deleted.\n")


def _pf_read(host):
    def read(path):
        with open(host.fs(path) if path != "-" else "/dev/stdin") as fh:
            return fh.read()
    return read


def cmd_pfctl(host, args):
    import getopt
    try:
        options, rest = getopt.getopt(args, PFCTL_OPTIONS)
    except getopt.GetoptError as exc:
        raise Fail(1, "pfctl: {}\nusage: pfctl [-AdeghmNnOqRrvz] [-a anchor] [-F modifier] [-f file] "
                      "[-s modifier] [-X token] ...\n".format(exc))
    if rest:
        raise Fail(1, "pfctl: unknown command line argument: {}\n".format(rest[0]))
    require_root(pf.NOT_ROOT)
    flags = {}
    for flag, value in options:
        flags[flag] = value
    anchor = flags.get("-a", "").rstrip("/*")
    read = _pf_read(host)
    if "-n" in flags:
        if "-f" not in flags:
            return 0
        try:
            pf.parse(flags["-f"], read(flags["-f"]))
        except (IOError, OSError):
            raise Fail(1, "pfctl: {}: No such file or directory\n".format(flags["-f"]))
        except pf.PfError as exc:
            raise Fail(1, str(exc))
        return 0
    with host.mutate():
        state = host.state.setdefault("pf", pf.default_state())
        if "-X" in flags:
            _pf_release(state, flags["-X"])
        if "-d" in flags:
            if not state["enabled"]:
                raise Fail(1, "pfctl: pf not enabled\n")
            state.update(enabled=False, tokens=[], enabled_since=None)
            err("pf disabled\n")
        if "-F" in flags:
            if flags["-F"] not in ("all", "rules", "nat", "Tables"):
                raise Fail(1, "pfctl: Unknown flush modifier '{}'\n".format(flags["-F"]))
            pf.flush(state, anchor)
            err("".join(PFCTL_FLUSH_MESSAGES))
        if "-f" in flags:
            try:
                text = read(flags["-f"])
            except (IOError, OSError):
                raise Fail(1, "pfctl: {}: No such file or directory\n".format(flags["-f"]))
            try:
                pf.load(state, anchor, flags["-f"], text, read)
            except pf.PfError as exc:
                raise Fail(1, str(exc))
            if not anchor:
                err(pf.MAIN_RULESET_WARNING)
        if "-E" in flags or "-e" in flags:
            _pf_enable(state, "-E" in flags)
    if "-s" in flags:
        out(_pf_show(host.state.get("pf") or pf.default_state(), flags["-s"], anchor))
    return 0


def _pf_enable(state, with_reference):
    err(pf.NO_ALTQ)
    if not with_reference and state["enabled"]:
        raise Fail(1, "pfctl: pf already enabled\n")
    if not state["enabled"]:
        state["enabled_since"] = time.time()
    state["enabled"] = True
    out("pf enabled\n")
    if with_reference:
        state["next_token"] = int(state.get("next_token") or pf.FIRST_TOKEN) + 1
        state["tokens"].append(state["next_token"])
        out("Token : {}\n".format(state["next_token"]))


def _pf_release(state, token):
    """-X: drop one enable reference; pf goes off with the last one (macOS's reference counting
    of -E/-X; what it prints then is unconfirmed)."""
    if not token.isdigit() or int(token) not in state["tokens"]:
        raise Fail(1, "pfctl: Invalid argument\n")
    state["tokens"].remove(int(token))
    if not state["tokens"] and state["enabled"]:
        state.update(enabled=False, enabled_since=None)
        err("pf disabled\n")


def _pf_show(state, what, anchor):
    if what == "info":
        return pf.info_text(state, time.time())
    if what in ("rules", "r"):
        return pf.show_rules(state, anchor)
    if what in ("nat", "n"):
        return pf.show_rules(state, anchor, "nat")
    if what == "dummynet":
        return pf.show_rules(state, anchor, "dummynet")
    if what in ("Anchors", "A"):
        return "".join("  {}\n".format(a) for a in sorted(state.get("rulesets", {})) if a)
    raise Fail(1, "pfctl: Unknown show modifier '{}' (the lab shows info, rules, nat, dummynet, Anchors)\n".format(what))


# --- xcode-select ---------------------------------------------------------------------------

COMMAND_LINE_TOOLS = "/Library/Developer/CommandLineTools"


def cmd_xcode_select(host, args):
    """The Command Line Tools are always installed in the lab (their python3 is the CLT one)."""
    if args in (["-p"], ["--print-path"]):
        out(COMMAND_LINE_TOOLS + "\n")
        return 0
    if args == ["--install"]:
        raise Fail(1, admin.XCODE_SELECT_ALREADY_INSTALLED)
    if args in (["-v"], ["--version"]):
        out(admin.XCODE_SELECT_VERSION)
        return 0
    raise Fail(1, "xcode-select: error: the lab simulates -p, --install and --version\n")


# --- dispatch -------------------------------------------------------------------------------

# Every command: where it lives on macOS, and its handler.
MACOS_PATHS = {
    "sw_vers": "/usr/bin/sw_vers", "uname": "/usr/bin/uname", "sysctl": "/usr/sbin/sysctl",
    "vm_stat": "/usr/bin/vm_stat", "who": "/usr/bin/who",
    "system_profiler": "/usr/sbin/system_profiler", "networksetup": "/usr/sbin/networksetup",
    "PlistBuddy": "/usr/libexec/PlistBuddy", "ifconfig": "/sbin/ifconfig", "route": "/sbin/route",
    "ipconfig": "/usr/sbin/ipconfig", "rdma_ctl": "/usr/bin/rdma_ctl",
    "ibv_devices": "/usr/bin/ibv_devices", "ibv_devinfo": "/usr/bin/ibv_devinfo",
    "shutdown": "/sbin/shutdown", "reboot": "/sbin/reboot", "halt": "/sbin/halt",
    "launchctl": "/bin/launchctl", "brew": "/opt/homebrew/bin/brew", "pmset": "/usr/bin/pmset",
    "softwareupdate": "/usr/sbin/softwareupdate", "scutil": "/usr/sbin/scutil",
    "fdesetup": "/usr/bin/fdesetup", "defaults": "/usr/bin/defaults", "plutil": "/usr/bin/plutil",
    "dscl": "/usr/bin/dscl", "diskutil": "/usr/sbin/diskutil", "df": "/bin/df",
    "nvram": "/usr/sbin/nvram", "csrutil": "/usr/bin/csrutil", "ping": "/sbin/ping",
    "pfctl": "/sbin/pfctl", "xcode-select": "/usr/bin/xcode-select", "stat": "/usr/bin/stat",
}
HANDLERS = {
    "sw_vers": cmd_sw_vers, "uname": cmd_uname, "sysctl": cmd_sysctl, "vm_stat": cmd_vm_stat,
    "who": cmd_who, "system_profiler": cmd_system_profiler, "networksetup": cmd_networksetup,
    "PlistBuddy": cmd_plistbuddy, "ifconfig": cmd_ifconfig, "route": cmd_route,
    "ipconfig": cmd_ipconfig, "rdma_ctl": cmd_rdma_ctl, "ibv_devices": cmd_ibv_devices,
    "ibv_devinfo": cmd_ibv_devinfo, "shutdown": cmd_shutdown, "reboot": cmd_reboot,
    "halt": cmd_halt, "launchctl": cmd_launchctl, "brew": cmd_brew, "pmset": cmd_pmset,
    "softwareupdate": cmd_softwareupdate, "scutil": cmd_scutil, "fdesetup": cmd_fdesetup,
    "defaults": cmd_defaults, "plutil": cmd_plutil, "dscl": cmd_dscl, "diskutil": cmd_diskutil,
    "df": cmd_df, "nvram": cmd_nvram, "csrutil": cmd_csrutil, "ping": cmd_ping,
    "pfctl": cmd_pfctl, "xcode-select": cmd_xcode_select, "stat": cmd_stat,
}
# What the runtime's macroot builder consumes: {name: "usr/bin" | "usr/sbin" | "usr/libexec"},
# the overlay directory of each command (Debian's /bin and /sbin are merged into /usr). brew
# (/opt/homebrew/bin) lives in each host's own tree instead: see DESIGN.md.
_OVERLAID = {"/bin": "usr/bin", "/usr/bin": "usr/bin", "/sbin": "usr/sbin", "/usr/sbin": "usr/sbin",
             "/usr/libexec": "usr/libexec"}
COMMANDS = {name: _OVERLAID.get(os.path.dirname(path), os.path.dirname(path).lstrip("/"))
            for name, path in MACOS_PATHS.items()}


def log_call(host, argv, rc):
    try:
        log_dir = os.path.join(host.dir, "log")
        os.makedirs(log_dir, exist_ok=True)
        path = os.path.join(log_dir, "shim.log")
        line = json.dumps({"t": round(time.time(), 3), "argv": list(argv), "uid": os.getuid(),
                           "rc": rc}) + "\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            if os.fstat(fd).st_uid == os.geteuid():
                # Every user's calls are logged: undo the umask on the shared log.
                os.fchmod(fd, 0o666)
            os.write(fd, line.encode())
        finally:
            os.close(fd)
    except OSError:
        # A user who cannot write the log must still get the command's answer.
        pass


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    name = os.path.basename(argv[0])
    args = argv[1:]
    if name not in HANDLERS and args and args[0] in HANDLERS:
        name, args = args[0], args[1:]
        argv = argv[1:]
    if name not in HANDLERS:
        err("macsim shim: unknown command {}; known: {}\n".format(name, " ".join(sorted(HANDLERS))))
        return 127
    host = Host()
    try:
        rc = HANDLERS[name](host, args)
    except Fail as failure:
        out(failure.stdout)
        err(failure.stderr)
        rc = failure.rc
    sys.stdout.flush()
    log_call(host, argv, rc)
    return rc


if __name__ == "__main__":
    sys.exit(main())
