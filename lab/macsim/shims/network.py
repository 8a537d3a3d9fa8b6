"""Network services (SystemConfiguration prefs): networksetup, and PlistBuddy as exo's
disable_bridge.sh uses it on preferences.plist."""
import ipaddress
import shlex

from .. import netapply
from ..formats import netsetup
from ..formats import plist as plistfmt
from .registry import command
from .state import Fail, hostname, is_root, out


SYSTEMCONFIG_PREFS = "/Library/Preferences/SystemConfiguration/preferences.plist"
BRIDGE_PREFS_KEY = ":VirtualNetworkInterfaces:Bridge:bridge0"


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


@command("/usr/sbin/networksetup")
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


@command("/usr/libexec/PlistBuddy")
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
