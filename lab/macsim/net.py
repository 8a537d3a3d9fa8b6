"""Live links, from the controller's (root) network namespace, with `ip` and `tc`.

Only 198.18.0.0/24 is configured here (management); Thunderbolt addresses come from the
collection's address plan. No default route is ever added and forwarding stays off.
"""
import json
import os
import subprocess

from . import layout

TBF_BURST = "256kb"  # veth uses GSO: smaller bursts throttle far below the set rate
TBF_LATENCY = "50ms"
# STP timers: the kernel minimum forward delay (2 s) keeps ports usable soon after boot.
STP_FORWARD_DELAY_CS = 200


class NetError(RuntimeError):
    pass


def run(argv, check=True, env=None):
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, env=env)
    if check and proc.returncode != 0:
        raise NetError("%s failed (rc %d): %s" % (" ".join(argv), proc.returncode, proc.stderr.strip()))
    return proc


def ip(*args, **kwargs):
    return run(["ip"] + list(args), **kwargs)


def ns_ip(host, *args, **kwargs):
    return run(["ip", "-n", layout.netns(host)] + list(args), **kwargs)


def netns_list():
    out = ip("-j", "netns", "list", check=False).stdout.strip()
    return [entry["name"] for entry in json.loads(out)] if out else []


def link_exists(name, host=None):
    argv = ["ip"] + (["-n", layout.netns(host)] if host else []) + ["link", "show", "dev", name]
    return run(argv, check=False).returncode == 0


def links(host):
    out = ns_ip(host, "-j", "link", "show").stdout
    return [entry["ifname"] for entry in json.loads(out) if entry["ifname"] != "lo"]


def ensure_mgmt_bridge():
    if not link_exists(layout.MGMT_BRIDGE):
        ip("link", "add", layout.MGMT_BRIDGE, "type", "bridge")
    ip("addr", "replace", "%s/%d" % (layout.CONTROLLER_IP, layout.MGMT_PREFIX_LEN), "dev", layout.MGMT_BRIDGE)
    ip("link", "set", layout.MGMT_BRIDGE, "up")


def _quiet_ipv6(host):
    # New interfaces copy `default`: no router solicitations or RA processing on dozens of
    # links that have no router anyway.
    for key in ("net.ipv6.conf.default.router_solicitations=0", "net.ipv6.conf.default.accept_ra=0",
                "net.ipv6.conf.all.accept_ra=0"):
        run(["ip", "netns", "exec", layout.netns(host), "sysctl", "-qw", key])


def create_host(host, index, mgmt_device):
    ns = layout.netns(host)
    if ns not in netns_list():
        ip("netns", "add", ns)
    _quiet_ipv6(host)
    ns_ip(host, "link", "set", "lo", "up")
    veth = layout.root_veth(host)
    if not link_exists(veth):
        ip("link", "add", veth, "address", layout.root_veth_mac(index), "type", "veth",
           "peer", "name", mgmt_device, "netns", ns, "address", layout.mgmt_mac(index))
    ip("link", "set", veth, "master", layout.MGMT_BRIDGE, "up")
    ns_ip(host, "addr", "replace", "%s/%d" % (layout.mgmt_ip(index), layout.MGMT_PREFIX_LEN), "dev", mgmt_device)
    ns_ip(host, "link", "set", mgmt_device, "up")


def shape(host, device, rate):
    run(["tc", "-n", layout.netns(host), "qdisc", "replace", "dev", device, "root", "tbf",
         "rate", rate, "burst", TBF_BURST, "latency", TBF_LATENCY])


def create_cable(cable, port_macs):
    """A veth pair straight into both namespaces; port_macs: {(host, device): mac}."""
    a, b = cable["a"], cable["b"]
    da, db = cable["a_device"], cable["b_device"]
    for host, device in ((a, da), (b, db)):
        if link_exists(device, host):
            ns_ip(host, "link", "del", device)
    ip("link", "add", da, "netns", layout.netns(a), "address", port_macs[(a, da)], "type", "veth",
       "peer", "name", db, "netns", layout.netns(b), "address", port_macs[(b, db)])
    for host, device in ((a, da), (b, db)):
        shape(host, device, cable["rate"])
        ns_ip(host, "link", "set", device, "up")


IDLE_NETNS = layout.NETNS_PREFIX + "idle"


def create_idle_port(host, device, mac):
    """An uncabled port: exists, no carrier. The kernel may lack the `dummy` driver, so this is
    a veth whose other end stays down in the parking namespace `maclab-idle`."""
    if link_exists(device, host):
        ns_ip(host, "link", "del", device)
    if IDLE_NETNS not in netns_list():
        ip("netns", "add", IDLE_NETNS)
    parked = "i%d-%s" % (layout.host_index(host), device)
    run(["ip", "-n", IDLE_NETNS, "link", "del", parked], check=False)
    ip("link", "add", device, "netns", layout.netns(host), "address", mac, "type", "veth",
       "peer", "name", parked, "netns", IDLE_NETNS)


def create_tb_bridge(host, mac, members):
    """The Thunderbolt Bridge, with STP on. Deviation from macOS (no STP there): a mesh of
    bridged ports without loop protection would flood the machine with a broadcast storm."""
    if not link_exists("bridge0", host):
        ns_ip(host, "link", "add", "bridge0", "address", mac, "type", "bridge",
              "stp_state", "1", "forward_delay", str(STP_FORWARD_DELAY_CS))
    for device in members:
        if link_exists(device, host):
            ns_ip(host, "link", "set", device, "master", "bridge0")
    ns_ip(host, "link", "set", "bridge0", "up")


def set_links(host, up):
    """Power: a host that is off shows no carrier to its peers and its manager."""
    for name in links(host):
        ns_ip(host, "link", "set", name, "up" if up else "down", check=False)


def snapshot_port(host, device):
    """What a cable replug must restore: addresses, master, mtu, admin state."""
    data = json.loads(ns_ip(host, "-j", "addr", "show", "dev", device).stdout)[0]
    return {
        "addrs": ["%s/%s" % (a["local"], a["prefixlen"]) for a in data.get("addr_info", []) if a["family"] == "inet"],
        "master": data.get("master"),
        "mtu": data.get("mtu", 1500),
        "up": "UP" in data.get("flags", []),
    }


def restore_port(host, device, snapshot):
    ns_ip(host, "link", "set", device, "mtu", str(snapshot["mtu"]))
    if snapshot.get("master") and link_exists(snapshot["master"], host):
        ns_ip(host, "link", "set", device, "master", snapshot["master"])
    for addr in snapshot["addrs"]:
        ns_ip(host, "addr", "replace", addr, "dev", device)
    ns_ip(host, "link", "set", device, "up" if snapshot["up"] else "down")


def delete_netns(name):
    ip("netns", "del", name, check=False)


def delete_link(name):
    if link_exists(name):
        ip("link", "del", name, check=False)


def host_processes(host, launchd_pid):
    """The root-namespace PIDs of every process of the running host: its network namespace's that
    share launchd's PID namespace (the `unshare` parent waiting on launchd is outside it and must
    stay free to reap it when the host is power-cycled)."""
    try:
        own = os.readlink("/proc/%d/ns/pid" % launchd_pid)
    except OSError:
        return []
    pids = []
    for pid in ip("netns", "pids", layout.netns(host), check=False).stdout.split():
        try:
            if os.readlink("/proc/%s/ns/pid" % pid) == own:
                pids.append(int(pid))
        except OSError:
            continue
    return pids
