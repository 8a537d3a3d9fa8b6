"""A stand-in for ip(8) over a JSON file, so the shim's live-interface paths run without
network namespaces. It keeps just enough of iproute2's behaviour for the shim and netapply:
`-j -d addr show`, addr add/replace/del, link set up/down/mtu/master/nomaster, link add bridge,
link del, route replace/del and `-j route get`. Every mutating call is appended to FILE.log.

Each interface in the file: {ifname, ifindex, address, mtu, up, carrier (cable has a live peer),
kind, master, inet: ["a/p"], inet6: ["fe80::.../64"]}.
"""
import ipaddress
import json
import os
import sys


def load(path):
    with open(path) as fh:
        return json.load(fh)


def save(path, data):
    with open(path, "w") as fh:
        json.dump(data, fh)


def render(ifaces):
    result = []
    for it in ifaces.values():
        flags = ["BROADCAST", "MULTICAST"] if it["kind"] != "loopback" else ["LOOPBACK"]
        if it["up"]:
            flags.append("UP")
            if it["carrier"]:
                flags.append("LOWER_UP")
        entry = {"ifindex": it["ifindex"], "ifname": it["ifname"], "flags": flags,
                 "mtu": it["mtu"], "address": it["address"], "addr_info": []}
        if it["kind"] not in ("loopback", "ether"):
            entry["linkinfo"] = {"info_kind": it["kind"]}
        if it.get("master"):
            entry["master"] = it["master"]
        for cidr in it["inet"]:
            net = ipaddress.IPv4Interface(cidr)
            entry["addr_info"].append({"family": "inet", "local": str(net.ip),
                                       "prefixlen": net.network.prefixlen,
                                       "broadcast": str(net.network.broadcast_address)})
        for cidr in it.get("inet6", []):
            addr, prefix = cidr.split("/")
            entry["addr_info"].append({"family": "inet6", "local": addr, "prefixlen": int(prefix)})
        result.append(entry)
    return result


def main(argv):
    path = os.environ["FAKE_IP_STATE"]
    data = load(path)
    ifaces = data["interfaces"]
    args = [a for a in argv if a not in ("-j", "-d")]
    if args[:2] == ["addr", "show"]:
        print(json.dumps(render(ifaces)))
        return 0
    if args[:2] == ["route", "get"]:
        target = ipaddress.IPv4Address(args[2])
        for route in data.get("routes", []):
            if ipaddress.IPv4Address(route["dst"]) == target:
                print(json.dumps([{"dst": args[2], "dev": route["dev"]}]))
                return 0
        for it in ifaces.values():
            for cidr in it["inet"]:
                if target in ipaddress.IPv4Interface(cidr).network:
                    print(json.dumps([{"dst": args[2], "dev": it["ifname"],
                                       "prefsrc": cidr.split("/")[0]}]))
                    return 0
        sys.stderr.write("RTNETLINK answers: Network is unreachable\n")
        return 2
    with open(path + ".log", "a") as log:
        log.write(" ".join(args) + "\n")
    if args[0] == "addr":
        verb, cidr, dev = args[1], args[2], args[args.index("dev") + 1]
        if dev not in ifaces:
            sys.stderr.write('Cannot find device "%s"\n' % dev)
            return 1
        inet = ifaces[dev]["inet"]
        if verb in ("add", "replace"):
            if cidr in inet and verb == "add":
                sys.stderr.write("RTNETLINK answers: File exists\n")
                return 2
            if cidr not in inet:
                inet.append(cidr)
        elif verb == "del":
            if cidr not in inet:
                sys.stderr.write("RTNETLINK answers: Cannot assign requested address\n")
                return 2
            inet.remove(cidr)
    elif args[:2] == ["link", "set"]:
        dev = args[args.index("dev") + 1]
        if dev not in ifaces:
            sys.stderr.write('Cannot find device "%s"\n' % dev)
            return 1
        rest = args[args.index("dev") + 2:]
        while rest:
            word = rest.pop(0)
            if word in ("up", "down"):
                ifaces[dev]["up"] = word == "up"
            elif word == "mtu":
                ifaces[dev]["mtu"] = int(rest.pop(0))
            elif word == "master":
                ifaces[dev]["master"] = rest.pop(0)
            elif word == "nomaster":
                ifaces[dev].pop("master", None)
    elif args[:2] == ["link", "add"]:
        name = args[2]
        if name in ifaces:
            sys.stderr.write("RTNETLINK answers: File exists\n")
            return 2
        mac = args[args.index("address") + 1] if "address" in args else "02:00:00:00:99:99"
        ifaces[name] = {"ifname": name, "ifindex": max(i["ifindex"] for i in ifaces.values()) + 1,
                        "address": mac, "mtu": 1500, "up": False, "carrier": True,
                        "kind": args[args.index("type") + 1], "inet": [], "inet6": []}
    elif args[:2] == ["link", "del"]:
        ifaces.pop(args[2], None)
        for it in ifaces.values():
            if it.get("master") == args[2]:
                it.pop("master")
    elif args[0] == "route":
        dst = args[2].split("/")[0]
        routes = [r for r in data.get("routes", []) if r["dst"] != dst]
        if args[1] == "replace" and "dev" in args:
            routes.append({"dst": dst, "dev": args[args.index("dev") + 1]})
        data["routes"] = routes
    save(path, data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
