"""`maclab fault ...`, power and recovery: edit lab.json / state.json and the live links.

Every fault is recorded in lab.json `faults` with what it replaced, so `fault clear` can put
exactly that back. The shim reads the state; links change here.
"""
import hashlib
import json
import os
import plistlib
import re
import signal

from . import faultbase, faults_exo, faults_serve, faults_settings, layout, net, statefile, topology
from .formats import profiler

from .faultbase import FaultError


# ---- helpers -------------------------------------------------------------------------------
def _lab(paths):
    if not os.path.exists(paths.lab_json):
        raise FaultError("no lab at %s" % paths.root)
    return statefile.read_json(paths.lab_json)


def _check_host(lab, host):
    if host not in [h["name"] for h in lab["hosts"]]:
        raise FaultError("unknown host %r" % host)


_edit_state = faultbase.edit_state
_record = faultbase.record


_launchd_request = faultbase.launchd_request
_launchd_hostpid = faultbase.launchd_hostpid


def parse_size(text):
    match = re.match(r"^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?$", text.strip(), re.I)
    if not match:
        raise FaultError("cannot read size %r (examples: 0, 500M, 2G)" % text)
    factor = {"": 1, "K": 1000, "M": 1000 ** 2, "G": 1000 ** 3, "T": 1000 ** 4}[match.group(2).upper()]
    return int(float(match.group(1)) * factor)


# ---- power ---------------------------------------------------------------------------------
def _power_request(paths, host, request):
    with open(paths.host_file(host, "run", "power_request"), "w") as handle:
        handle.write(request + "\n")
    pid = _launchd_hostpid(paths, host)
    if pid is None:
        raise FaultError("%s is not running" % host)
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        raise FaultError("%s is not running" % host)


def reboot(paths, host, next_mode=None):
    _check_host(_lab(paths), host)
    if next_mode:
        with _edit_state(paths, host) as state:
            state["boot"]["next_mode"] = next_mode
    _power_request(paths, host, "reboot")
    return "%s rebooting%s" % (host, " into %s" % next_mode if next_mode else "")


def power_on(paths, host):
    with open(paths.host_file(host, "run", "power_on"), "w") as handle:
        handle.write("on\n")


def host_shell_argv(paths, host, command):
    """SSH, or in recoveryOS (no SSH there) the Recovery Terminal: a root shell in the host."""
    lab = _lab(paths)
    _check_host(lab, host)
    state = statefile.read_json(paths.host_file(host, "state.json"))
    if state["boot"].get("mode") == "recovery":
        pid = _launchd_hostpid(paths, host)
        shell = ["/bin/sh", "-c", " ".join(command)] if command else ["/bin/bash", "-l"]
        return ["nsenter", "-t", str(pid), "-a"] + shell
    return ["ssh", "-F", paths.ssh_config, host] + (["--", " ".join(command)] if command else [])


# ---- cables --------------------------------------------------------------------------------
def _cables(lab, a, b):
    _check_host(lab, a)
    _check_host(lab, b)
    cables = topology.cables_between(lab["cables"], a, b)
    if not cables:
        raise FaultError("no cable between %s and %s" % (a, b))
    return cables


def _port_mac(paths, host, device):
    state = statefile.read_json(paths.host_file(host, "state.json"))
    for port in state["hardware"]["tb_ports"]:
        if port["device"] == device:
            return port["mac"]
    raise FaultError("%s has no port %s" % (host, device))


def fault_cut(paths, a, b):
    with statefile.editing(paths.lab_json, paths.root) as lab:
        for cable in _cables(lab, a, b):
            if cable.get("state") == "cut":
                continue
            ends = [(cable["a"], cable["a_device"]), (cable["b"], cable["b_device"])]
            cable["saved_ports"] = {"%s/%s" % end: net.snapshot_port(*end) for end in ends}
            for host, device in ends:
                # Unplugging keeps the port's configuration; only the carrier goes.
                net.create_idle_port(host, device, _port_mac(paths, host, device))
                net.restore_port(host, device, cable["saved_ports"]["%s/%s" % (host, device)])
            cable["state"] = "cut"
    return "cable(s) %s-%s unplugged" % (a, b)


def plug(paths, host):
    """`maclab plug HOST`: the cables planned to HOST (a spare Mac's, or a retired one's) are plugged in; not a
    fault, so `fault clear` leaves them as they are."""
    with statefile.editing(paths.lab_json, paths.root) as lab:
        _check_host(lab, host)
        cables = [c for c in lab["cables"] if host in (c["a"], c["b"]) and c.get("unplugged")]
        for cable in cables:
            cable.pop("unplugged")
            restore_cable(paths, cable)
    return "%s: %d cable(s) plugged in" % (host, len(cables))


def unplug(paths, host):
    """`maclab unplug HOST`: every cable of HOST unplugged (a Mac taken out of the cluster) until `maclab plug`."""
    with statefile.editing(paths.lab_json, paths.root) as lab:
        _check_host(lab, host)
        peers = sorted(set(c["b"] if c["a"] == host else c["a"] for c in lab["cables"]
                           if host in (c["a"], c["b"]) and c.get("state") != "cut"))
    for peer in peers:
        fault_cut(paths, host, peer)
    with statefile.editing(paths.lab_json, paths.root) as lab:
        for cable in lab["cables"]:
            if host in (cable["a"], cable["b"]):
                cable["unplugged"] = True
    return "%s: unplugged from %s" % (host, ", ".join(peers) or "nothing")


def restore_cable(paths, cable):
    ends = [(cable["a"], cable["a_device"]), (cable["b"], cable["b_device"])]
    net.create_cable(cable, {end: _port_mac(paths, *end) for end in ends})
    for host, device in ends:
        saved = cable.get("saved_ports", {}).get("%s/%s" % (host, device))
        if saved:
            net.restore_port(host, device, saved)
    cable["state"] = "connected"
    cable.pop("saved_ports", None)


def fault_degrade(paths, a, b):
    with statefile.editing(paths.lab_json, paths.root) as lab:
        for cable in _cables(lab, a, b):
            topology.set_kind(cable, "tb4", lab["link_rate"])
            if cable.get("state") == "connected":
                net.shape(cable["a"], cable["a_device"], cable["rate"])
                net.shape(cable["b"], cable["b_device"], cable["rate"])
    return "cable(s) %s-%s now TB4 (%s)" % (a, b, topology.TB4_SPEED)


def fault_slow(paths, a, b, rate):
    """A cable that carries less than it negotiates (damaged, or a bad connector): the same TB5 link in
    system_profiler, a lower tbf rate (RATE as tc writes it, such as 40mbit)."""
    with statefile.editing(paths.lab_json, paths.root) as lab:
        for cable in _cables(lab, a, b):
            cable["rate"], cable["slow"] = rate, True
            if cable.get("state") == "connected":
                net.shape(cable["a"], cable["a_device"], rate)
                net.shape(cable["b"], cable["b_device"], rate)
    return "cable(s) %s-%s now carry %s" % (a, b, rate)


# ---- host state ----------------------------------------------------------------------------
def fault_rdma_off(paths, host):
    with _edit_state(paths, host) as state:
        saved = dict(state["rdma"])
        state["rdma"] = {"enabled": False, "pending": None}
    _record(paths, "rdma-off", [host], saved)
    return "%s: RDMA disabled" % host


def fault_build(paths, host, build):
    with _edit_state(paths, host) as state:
        saved = state["os"]["build"]
        state["os"]["build"] = build
    _record(paths, "build", [host, build], saved)
    return "%s: macOS build %s" % (host, build)


def _tb_devices(state):
    return [p["device"] for p in state["hardware"]["tb_ports"]]


def fault_bridge_on(paths, host):
    with _edit_state(paths, host) as state:
        network = state["network"]
        saved = {"bridge": dict(network["bridge"]),
                 "service": next((dict(s) for s in network["services"] if s["device"] == "bridge0"), None)}
        network["bridge"] = {"exists": True, "members": _tb_devices(state)}
        service = next((s for s in network["services"] if s["device"] == "bridge0"), None)
        if service is None:
            network["services"].append({"name": "Thunderbolt Bridge", "device": "bridge0", "enabled": True,
                                        "ipv4": {"method": "dhcp"}, "mtu": 1500})
            network["order"].append("Thunderbolt Bridge")
        else:
            service["enabled"] = True
        mac = state["hardware"]["bridge_mac"]
        members = network["bridge"]["members"]
    net.create_tb_bridge(host, mac, members)  # with STP, before netapply sees it
    reapply_network(paths, host)
    _record(paths, "bridge-on", [host], saved)
    return "%s: Thunderbolt Bridge on over %s" % (host, ", ".join(members))


_REAPPLY = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from macsim import netapply
with open(os.path.join(sys.argv[2], "state.json")) as handle:
    netapply.apply(json.load(handle), sys.argv[2])
"""


def reapply_network(paths, host):
    """Put the host's persistent network state on its live links, with the same reconciler the
    host runs at boot (netapply), from the controller: works whether the host is up or not."""
    env = dict(os.environ, MACLAB_WORLD_DIR=paths.root)
    lab = _lab(paths)
    net.run(["ip", "netns", "exec", layout.netns(host), lab["tools_python"], "-sE", "-c", _REAPPLY,
             paths.code, paths.host(host)], env=env)


def _undo_bridge_on(paths, host, saved):
    with _edit_state(paths, host) as state:
        network = state["network"]
        network["bridge"] = saved["bridge"]
        network["services"] = [s for s in network["services"] if s["device"] != "bridge0"]
        if saved["service"] is not None:
            network["services"].append(saved["service"])
        elif "Thunderbolt Bridge" in network["order"]:
            network["order"].remove("Thunderbolt Bridge")
    reapply_network(paths, host)


def fault_no_return(paths, host):
    with _edit_state(paths, host) as state:
        state["boot"]["no_return"] = True
    _record(paths, "no-return", [host])
    return "%s: next reboot will not come back" % host


def fault_down(paths, host):
    _power_request(paths, host, "halt")
    _record(paths, "down", [host])
    return "%s: halted" % host


def fault_up(paths, host):
    _check_host(_lab(paths), host)
    power_on(paths, host)
    return "%s: powering on" % host


def fault_disk_full(paths, host, size):
    free = parse_size(size)
    with _edit_state(paths, host) as state:
        saved = state["faults"].get("disk_full_bytes")
        state["faults"]["disk_full_bytes"] = free
    _record(paths, "disk-full", [host, size], saved)
    return "%s: boot volume full (%d bytes free)" % (host, free)


def fault_filevault_on(paths, host):
    with _edit_state(paths, host) as state:
        saved = bool(state.get("filevault"))
        state["filevault"] = True
    _record(paths, "filevault-on", [host], saved)
    return "%s: FileVault on (reboots stop at the unlock screen; fdesetup authrestart skips it)" % host


def fault_filevault_pending(paths, host):
    """`fdesetup status` says FileVault will be enabled after the next restart; that restart
    waits at the unlock screen and leaves FileVault on (the supervisor does both)."""
    with _edit_state(paths, host) as state:
        saved = state.get("filevault", False)
        state["filevault"] = "pending"
    _record(paths, "filevault-pending", [host], saved)
    return "%s: FileVault pending (enabled at the next restart, which stops at the unlock screen)" % host


def fault_authrestart_unsupported(paths, host):
    """`fdesetup supportsauthrestart` says false and authrestart refuses: with FileVault on, every restart stops at
    the unlock screen."""
    with _edit_state(paths, host) as state:
        saved = state["faults"].get("authrestart_unsupported", False)
        state["faults"]["authrestart_unsupported"] = True
    _record(paths, "authrestart-unsupported", [host], saved)
    return "%s: fdesetup supportsauthrestart false" % host


def fault_ssd(paths, host, receptacle):
    """An external SSD (what owners plug in to hold the models) on a free Thunderbolt port: the
    shim lists it under that port's bus as real Macs do, a device without a domain UUID."""
    lab = _lab(paths)
    state = statefile.read_json(paths.host_file(host, "state.json"))
    receptacles = [str(p["receptacle"]) for p in state["hardware"]["tb_ports"]]
    if str(receptacle) not in receptacles:
        raise FaultError("%s has no Thunderbolt port %s (ports %s)" % (host, receptacle, ", ".join(receptacles)))
    for cable in lab["cables"]:
        ends = [(cable["a"], str(cable["a_port"])), (cable["b"], str(cable["b_port"]))]
        if (host, str(receptacle)) in ends and cable.get("state") != "cut":
            raise FaultError("%s port %s carries cable %s: a drive needs a free port" % (host, receptacle, cable["id"]))
    uid = "0x8087%s00" % hashlib.sha256(("%s/%s/%s/ssd" % (lab["name"], host, receptacle)).encode()).hexdigest()[:10].upper()
    with _edit_state(paths, host) as state:
        devices = state.setdefault("tb_devices", {})
        saved = devices.get(str(receptacle))
        devices[str(receptacle)] = dict(profiler.DEVICES["ssd"], switch_uid=uid)
    _record(paths, "ssd", [host, str(receptacle)], saved)
    return "%s: external SSD (%s) on Thunderbolt port %s" % (host, profiler.DEVICES["ssd"]["_name"], receptacle)


def fault_slow_boot(paths, host, seconds):
    try:
        value = float(seconds)
    except ValueError:
        raise FaultError("cannot read seconds %r" % seconds)
    if value < 0:
        raise FaultError("boot seconds must be >= 0, got %s" % seconds)
    with _edit_state(paths, host) as state:
        saved = state["boot"].get("boot_seconds")
        state["boot"]["boot_seconds"] = value
    _record(paths, "slow-boot", [host, seconds], saved)
    return "%s: next boots take %g s" % (host, value)


def _signal_host(host, launchd_pid, signum):
    """Send ``signum`` to every process of the host, again until no new one appears (a process
    that forks between the listing and the signal)."""
    done = set()
    for _ in range(5):
        new = [pid for pid in net.host_processes(host, launchd_pid) if pid not in done]
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass
            done.add(pid)
    return len(done)


def fault_hang(paths, host):
    """The host hangs: every process of it stops (launchd, sshd, exo), while its Thunderbolt links
    stay lit and its peers still see it on their ports. New SSH connections get no banner, commands
    over an open one never end; a power cycle (PDU) or `fault clear` ends it."""
    pid = _launchd_hostpid(paths, host)
    if pid is None:
        raise FaultError("%s is not running" % host)
    with faultbase.signals_lock(paths, host):
        count = _signal_host(host, pid, signal.SIGSTOP)
        _record(paths, "hang", [host], pid)
    return "%s: hung (%d processes stopped, its cables still lit)" % (host, count)


def _undo_hang(paths, host, pid):
    """Resume the host's processes, unless it has booted since (a power cycle ended the hang)."""
    if pid is not None and _launchd_hostpid(paths, host) == pid:
        _signal_host(host, pid, signal.SIGCONT)


def fault_wired_reset(paths, host):
    with _edit_state(paths, host, "volatile.json") as volatile:
        volatile.setdefault("sysctl", {})["iogpu.wired_limit_mb"] = 0
    return "%s: iogpu.wired_limit_mb reset to 0" % host


def fault_clear(paths):
    with statefile.editing(paths.lab_json, paths.root) as lab:
        for cable in lab["cables"]:
            if cable.get("kind") != "tb5" or cable.pop("slow", False):
                topology.set_kind(cable, "tb5", lab["link_rate"])
                if cable.get("state") == "connected":
                    net.shape(cable["a"], cable["a_device"], cable["rate"])
                    net.shape(cable["b"], cable["b_device"], cable["rate"])
            if cable.get("state") == "cut" and not cable.get("unplugged"):
                restore_cable(paths, cable)
        recorded = list(reversed(lab.get("faults", [])))
        lab["faults"] = []
    for fault in recorded:
        kind, args, saved = fault["kind"], fault["args"], fault.get("saved")
        host = args[0] if args else None
        if kind == "rdma-off":
            with _edit_state(paths, host) as state:
                state["rdma"] = saved
        elif kind == "build":
            with _edit_state(paths, host) as state:
                state["os"]["build"] = saved
        elif kind == "bridge-on":
            _undo_bridge_on(paths, host, saved)
        elif kind == "disk-full":
            with _edit_state(paths, host) as state:
                state["faults"]["disk_full_bytes"] = saved
        elif kind == "no-return":
            with _edit_state(paths, host) as state:
                state["boot"]["no_return"] = False
        elif kind == "authrestart-unsupported":
            with _edit_state(paths, host) as state:
                state["faults"]["authrestart_unsupported"] = saved
        elif kind in ("filevault-on", "filevault-pending"):
            with _edit_state(paths, host) as state:
                state["filevault"] = saved
        elif kind == "ssd":
            with _edit_state(paths, host) as state:
                devices = state.setdefault("tb_devices", {})
                if saved is None:
                    devices.pop(args[1], None)
                else:
                    devices[args[1]] = saved
        elif kind == "slow-boot":
            with _edit_state(paths, host) as state:
                state["boot"]["boot_seconds"] = saved
        elif kind == "hang":
            _undo_hang(paths, host, saved)
        elif faults_settings.undo(paths, kind, host, saved) or faults_exo.undo(paths, kind, host, saved) \
                or faults_serve.undo(paths, kind, host, saved):
            pass
    from . import lab as labmod
    for host in [h["name"] for h in lab["hosts"]]:
        if labmod.power_state(paths, host) in labmod.DARK_POWER_STATES:
            power_on(paths, host)
    return "all faults cleared"


KINDS = {
    "cut": (2, fault_cut), "degrade": (2, fault_degrade), "slow": (3, fault_slow), "rdma-off": (1, fault_rdma_off),
    "build": (2, fault_build), "bridge-on": (1, fault_bridge_on),
    "no-return": (1, fault_no_return), "down": (1, fault_down), "up": (1, fault_up),
    "disk-full": (2, fault_disk_full), "wired-reset": (1, fault_wired_reset), "clear": (0, fault_clear),
    "filevault-on": (1, fault_filevault_on), "authrestart-unsupported": (1, fault_authrestart_unsupported),
    "filevault-pending": (1, fault_filevault_pending),
    "slow-boot": (2, fault_slow_boot), "ssd": (2, fault_ssd), "hang": (1, fault_hang),
}
KINDS.update(faults_settings.KINDS)
KINDS.update(faults_exo.KINDS)
KINDS.update(faults_serve.KINDS)


def apply(paths, kind, args):
    count, function = KINDS[kind]
    if len(args) != count:
        raise FaultError("fault %s takes %d argument(s), got %d" % (kind, count, len(args)))
    lab = _lab(paths)
    if kind in ("cut", "degrade", "slow"):
        _cables(lab, *args[:2])
    elif count:
        _check_host(lab, args[0])
    return function(paths, *args)
