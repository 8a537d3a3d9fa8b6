"""Live interfaces, routes and sockets: ifconfig, route, ipconfig, ping, lsof."""
import ipaddress
import json
import os
import re
import subprocess

from .. import netapply
from ..formats import ifconfig as iffmt
from .registry import command
from .network import find_service
from .state import Fail, err, is_root, out, require_root


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


@command("/sbin/ifconfig")
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


@command("/sbin/ping")
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


@command("/sbin/route")
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


@command("/usr/sbin/ipconfig")
def cmd_ipconfig(host, args):
    if len(args) == 2 and args[0] == "getifaddr":
        inet = host.live.get(host.linux_name(args[1]), {}).get("inet", [])
        if not inet:
            return 1
        out(inet[0][0] + "\n")
        return 0
    raise Fail(1, "usage: ipconfig <command> <args> (the lab simulates getifaddr)\n")


_SS_PROCESS = re.compile(r'\("(?P<name>[^"]*)",pid=(?P<pid>\d+),fd=(?P<fd>\d+)\)')


@command("/usr/sbin/lsof")
def cmd_lsof(host, args):
    """lsof(8) for what the collection asks: `-nP -iTCP -sTCP:LISTEN -Fpcn`, the TCP listeners in field output
    (`p` pid, `c` command, `f` descriptor, `n` ADDRESS:PORT, `*` for every address), from Linux `ss -Hltnp` in
    the host's namespace. As on macOS, a user who is not root sees only their own processes, and nothing
    listening is exit status 1 with nothing printed. Field format from lsof(8)'s "OUTPUT FOR OTHER PROGRAMS",
    not from a capture: unconfirmed (the command name as Linux has it, up to 15 characters)."""
    if sorted(args) != sorted(["-nP", "-iTCP", "-sTCP:LISTEN", "-Fpcn"]):
        raise Fail(1, "lsof: the lab knows only -nP -iTCP -sTCP:LISTEN -Fpcn\n")
    tool = netapply.linux_tool("ss")
    if tool is None:
        raise Fail(1, "lsof: not available in this lab\n")
    proc = subprocess.run([tool, "-Hltnp"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    by_pid = {}
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) < 6:
            continue  # no process shown: another user's socket, which lsof does not list either
        address, _, port = fields[3].rpartition(":")
        address = address.split("%", 1)[0].strip("[]")
        address = "*" if address in ("0.0.0.0", "::", "*") else address
        for found in _SS_PROCESS.finditer(" ".join(fields[5:])):
            pid = int(found.group("pid"))
            if not is_root() and _owner(pid) != os.geteuid():
                continue
            entry = by_pid.setdefault(pid, {"name": found.group("name"), "files": []})
            shown = "[%s]" % address if ":" in address else address
            entry["files"].append((found.group("fd"), "%s:%s" % (shown, port)))
    if not by_pid:
        return 1
    lines = []
    for pid in sorted(by_pid):
        lines += ["p%d" % pid, "c" + by_pid[pid]["name"]]
        for descriptor, name in by_pid[pid]["files"]:
            lines += ["f" + descriptor, "n" + name]
    out("\n".join(lines) + "\n")
    return 0


def _owner(pid):
    try:
        return os.stat("/proc/%d" % pid).st_uid
    except OSError:
        return None
