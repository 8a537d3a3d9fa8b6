"""ifconfig, route and ipconfig.

Confirmed (Apple TN3205's `ifconfig bridge0`, MLX's `--auto-setup` commands): interface header
line with flags and mtu, tab-indented
`ether`, `inet A netmask 0xHEX broadcast B`, `inet6 fe80::...%ifN prefixlen 64 secured scopeid
0xN`, bridge `member:` lines and `status: active|inactive`. Unconfirmed: `options=` values of
en0/bridge0/lo0, media strings other than the TB port's, route's output block and its
"not in table" error (usual BSD wording).
"""
import ipaddress

FLAG_BITS = [("UP", 0x1), ("BROADCAST", 0x2), ("LOOPBACK", 0x8), ("POINTOPOINT", 0x10),
             ("SMART", 0x20), ("RUNNING", 0x40), ("SIMPLEX", 0x800), ("MULTICAST", 0x8000)]
OPTIONS = {
    "lo0": "options=1203<RXCSUM,TXCSUM,TXSTATUS,SW_TIMESTAMP>",
    "en0": "options=50b<RXCSUM,TXCSUM,VLAN_HWTAGGING,AV,CHANNEL_IO>",
    "bridge0": "options=63<RXCSUM,TXCSUM,TSO4,TSO6>",
    "tb": "options=460<TSO4,TSO6,CHANNEL_IO>",
}
NO_SUCH_INTERFACE = "ifconfig: interface {} does not exist\n"
NOT_PERMITTED = "ifconfig: ioctl ({}): Operation not permitted\n"
ROUTE_NOT_IN_TABLE = "route: writing to routing socket: not in table\n"
ROUTE_NEEDS_ROOT = "route: must be root to alter routing table\n"


def hex_netmask(prefixlen):
    return "0x{:08x}".format(int(ipaddress.IPv4Network("0.0.0.0/{}".format(prefixlen)).netmask))


def flag_word(names):
    value = sum(bit for name, bit in FLAG_BITS if name in names)
    return "flags={:x}<{}>".format(value, ",".join(n for n, _ in FLAG_BITS if n in names))


def interface(iface):
    """iface: dict with name, kind (loopback|ethernet|tb|bridge), up, carrier, mtu, mac,
    inet [(addr, prefixlen, broadcast)], inet6 [(addr, prefixlen)], index, members [names]."""
    name = iface["name"]
    kind = iface["kind"]
    flags = {"MULTICAST"}
    if kind == "loopback":
        flags |= {"LOOPBACK"}
    else:
        flags |= {"BROADCAST", "SMART", "SIMPLEX"}
    if iface["up"]:
        flags |= {"UP", "RUNNING"}
    lines = ["{}: {} mtu {}".format(name, flag_word(flags), iface["mtu"])]
    lines.append("\t" + OPTIONS["tb" if kind == "tb" else name if name in OPTIONS else "en0"])
    if kind != "loopback":
        lines.append("\tether " + iface["mac"])
    for addr, prefixlen in iface.get("inet6", []):
        scoped = addr.lower().startswith("fe80")
        lines.append("\tinet6 {}{} prefixlen {}{}".format(
            addr, "%" + name if scoped else "", prefixlen,
            " secured scopeid 0x{:x}".format(iface["index"]) if scoped else ""))
    for addr, prefixlen, broadcast in iface.get("inet", []):
        line = "\tinet {} netmask {}".format(addr, hex_netmask(prefixlen))
        if broadcast and kind != "loopback":
            line += " broadcast " + broadcast
        lines.append(line)
    if kind == "bridge":
        lines.append("\tConfiguration:")
        lines.append("\t\tid 0:0:0:0:0:0 priority 0 hellotime 0 fwddelay 0")
        for port, member in enumerate(iface.get("members", []), 10):
            lines.append("\tmember: {} flags=3<LEARNING,DISCOVER>".format(member))
            lines.append("\t        ifmaxaddr 0 port {} priority 0 path cost 0".format(port))
    lines.append("\tnd6 options=201<PERFORMNUD,DAD>")
    if kind == "ethernet":
        lines.append("\tmedia: autoselect (10Gbase-T <full-duplex>)")
    elif kind == "tb":
        lines.append("\tmedia: autoselect <full-duplex>")
    if kind != "loopback":
        lines.append("\tstatus: " + ("active" if iface["carrier"] and iface["up"] else "inactive"))
    return "\n".join(lines) + "\n"


def route_get(destination, gateway, interface_name, mtu, is_default):
    """route -n get: the block BSD's route(8) prints; ansible reads `gateway:` and
    `interface:`."""
    flags = "<UP,GATEWAY,DONE,STATIC,PRCLONING,GLOBAL>" if gateway else "<UP,HOST,DONE,LLINFO,WASCLONED,IFSCOPE,IFREF>"
    lines = ["   route to: " + destination,
             "destination: " + destination]
    if is_default:
        lines.append("       mask: default")
    if gateway:
        lines.append("    gateway: " + gateway)
    lines += ["  interface: " + interface_name,
              "      flags: " + flags,
              " recvpipe  sendpipe  ssthresh  rtt,msec    rttvar  hopcount      mtu     expire",
              "       0         0         0         0         0         0  {:>7}         0 "
              .format(mtu)]
    return "\n".join(lines) + "\n"


def route_changed(verb, destination, interface_name):
    # BSD route(8) echo of a successful change (format unconfirmed on macOS 26).
    return "{} host {}: gateway {}\n".format(verb, destination, interface_name)
