"""Puts a host's persistent network state (state.json `network`) on its live Linux interfaces.

Called by launchd at boot as `apply(state, host_dir)` (every managed device) and by the shim
after a networksetup change (only the devices that change). It also owns the one reader of the
live interfaces (`live_interfaces`), so the shim's ifconfig, system_profiler and ibv_* views and
this reconciler see the same data.

Mapping macOS -> lab: a service's `device` is the Linux interface of the same name (en0, enX,
bridge0). The Thunderbolt Bridge is a Linux bridge `bridge0` enslaving the TB ports; a disabled
bridge service leaves bridge0 down with no members (a real Mac keeps the members but stops
bridging; releasing them is what makes the ports usable on Linux). DHCP gets no lease in the
lab (a real Mac would self-assign 169.254/16, which the lab keeps out of its address space).
"""
import ipaddress
import json
import os
import subprocess

DEFAULT_LINUX_DIR = "/var/db/maclab-linux"
BRIDGE = "bridge0"
# Linux bridges are created with STP (DESIGN.md, "Network at boot"): a mesh of bridged ports
# without it is a broadcast storm on the CI machine. A deliberate deviation from macOS.
BRIDGE_TYPE_ARGS = ["type", "bridge", "stp_state", "1", "forward_delay", "200"]


def linux_tool(name):
    """Path of a real Linux tool: the hosts shadow /usr/bin and /usr/sbin, so prefer the
    pre-overlay bind the runtime provides (env MACLAB_LINUX_DIR for tests)."""
    base = os.environ.get("MACLAB_LINUX_DIR", DEFAULT_LINUX_DIR)
    for sub in ("sbin", "bin"):
        path = os.path.join(base, sub, name)
        if os.access(path, os.X_OK):
            return path
    for path in ("/usr/sbin/" + name, "/usr/bin/" + name, "/sbin/" + name):
        if os.access(path, os.X_OK):
            return path
    return None


def run_ip(args, check=True):
    ip = linux_tool("ip")
    if ip is None:
        raise OSError("ip(8) not found")
    proc = subprocess.run([ip] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if check and proc.returncode != 0:
        raise OSError("ip {} failed: {}".format(" ".join(args), proc.stderr.strip()))
    return proc


def live_interfaces():
    """{name: {name, index, up, carrier, mtu, mac, kind, master, inet, inet6}} from
    `ip -j -d addr show`; empty when ip(8) is unavailable."""
    try:
        proc = run_ip(["-j", "-d", "addr", "show"])
    except OSError:
        return {}
    result = {}
    for entry in json.loads(proc.stdout or "[]"):
        flags = entry.get("flags", [])
        info = entry.get("linkinfo", {})
        inet, inet6 = [], []
        for addr in entry.get("addr_info", []):
            if addr.get("family") == "inet":
                inet.append((addr["local"], int(addr["prefixlen"]), addr.get("broadcast")))
            elif addr.get("family") == "inet6":
                inet6.append((addr["local"], int(addr["prefixlen"])))
        result[entry["ifname"]] = {
            "name": entry["ifname"], "index": entry.get("ifindex", 0),
            "up": "UP" in flags, "carrier": "LOWER_UP" in flags,
            "mtu": entry.get("mtu", 1500), "mac": entry.get("address", "00:00:00:00:00:00"),
            "kind": info.get("info_kind", "loopback" if "LOOPBACK" in flags else "ether"),
            "master": entry.get("master"), "inet": inet, "inet6": inet6,
        }
    return result


def bridge_mac(state):
    hw = state["hardware"]
    if hw.get("bridge_mac"):
        return hw["bridge_mac"]
    first = hw["tb_ports"][0]["mac"] if hw.get("tb_ports") else "02:00:00:00:00:01"
    return first.rsplit(":", 1)[0] + ":00"


def cabled_ports(state, world):
    """Receptacle numbers of this host that have a cable in lab.json (cut or not)."""
    name = state["name"]
    ports = set()
    for cable in (world or {}).get("cables", []):
        if cable.get("a") == name:
            ports.add(int(cable["a_port"]))
        if cable.get("b") == name:
            ports.add(int(cable["b_port"]))
    return ports


def desired_config(state, world=None):
    """What the persistent state asks of each managed device:
    {device: {"inet": set("a/p"), "mtu": int|None, "up": bool}}, plus the bridge plan."""
    hw = state["hardware"]
    net = state["network"]
    tb_devices = {p["device"]: p["receptacle"] for p in hw.get("tb_ports", [])}
    cabled = cabled_ports(state, world)
    managed = {hw["ethernet"]["device"]: {"inet": set(), "mtu": None, "up": True}}
    for device in tb_devices:
        managed[device] = {"inet": set(), "mtu": None, "up": True}
    bridge_service = None
    for svc in net.get("services", []):
        device = svc["device"]
        if device == BRIDGE:
            bridge_service = svc
        entry = managed.setdefault(device, {"inet": set(), "mtu": None, "up": True})
        if svc.get("mtu"):
            entry["mtu"] = int(svc["mtu"])
        if not svc.get("enabled", True):
            continue
        ipv4 = svc.get("ipv4") or {}
        if ipv4.get("method") != "manual" or not ipv4.get("address"):
            continue
        # The contract: only a cabled port or an explicitly created service gets addresses.
        if device in tb_devices and tb_devices[device] not in cabled and not svc.get("created"):
            continue
        prefix = ipaddress.IPv4Network("0.0.0.0/" + ipv4["mask"]).prefixlen
        entry["inet"].add("{}/{}".format(ipv4["address"], prefix))
    bridge = net.get("bridge", {})
    exists = bool(bridge.get("exists"))
    active = exists and bridge_service is not None and bridge_service.get("enabled", True)
    if exists:
        managed.setdefault(BRIDGE, {"inet": set(), "mtu": None, "up": True})["up"] = active
    plan = {"exists": exists, "active": active,
            "members": [m for m in bridge.get("members", []) if m in tb_devices] if active else []}
    return managed, plan


def apply(state, host_dir, devices=None, world=None):
    """Reconcile the live interfaces with `state`. `devices` limits the work to those names
    (None: every managed device, as at boot). Returns the ip(8) argument lists it ran."""
    if world is None:
        world = _read_world(host_dir)
    managed, plan = desired_config(state, world)
    live = live_interfaces()
    ran = []

    def ip(*args):
        ran.append(list(args))
        run_ip(list(args), check=False)

    def in_scope(device):
        return devices is None or device in devices

    if in_scope(BRIDGE):
        if not plan["exists"]:
            if BRIDGE in live:
                ip("link", "del", BRIDGE)
        else:
            if BRIDGE not in live:
                ip("link", "add", BRIDGE, "address", bridge_mac(state), *BRIDGE_TYPE_ARGS)
            for name, iface in sorted(live.items()):
                if iface.get("master") == BRIDGE and name not in plan["members"]:
                    ip("link", "set", "dev", name, "nomaster")
            for member in plan["members"]:
                if member in live and live[member].get("master") != BRIDGE:
                    ip("link", "set", "dev", member, "master", BRIDGE)
    for device, want in sorted(managed.items()):
        if not in_scope(device):
            continue
        if device not in live and not (device == BRIDGE and plan["exists"]):
            continue
        current = live.get(device, {"inet": [], "mtu": None, "up": False})
        have = {"{}/{}".format(a, p) for a, p, _ in current["inet"]}
        for cidr in sorted(have - want["inet"]):
            ip("addr", "del", cidr, "dev", device)
        for cidr in sorted(want["inet"] - have):
            ip("addr", "add", cidr, "broadcast", "+", "dev", device)
        if want["mtu"] and want["mtu"] != current.get("mtu"):
            ip("link", "set", "dev", device, "mtu", str(want["mtu"]))
        if want["up"] and not current.get("up"):
            ip("link", "set", "dev", device, "up")
        elif not want["up"] and current.get("up"):
            ip("link", "set", "dev", device, "down")
    return ran


def _read_world(host_dir):
    """lab.json through the world mount; absent in unit tests of a lone host."""
    world_dir = os.environ.get("MACLAB_WORLD_DIR", "/var/db/maclab-world")
    try:
        with open(os.path.join(world_dir, "lab.json")) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}
