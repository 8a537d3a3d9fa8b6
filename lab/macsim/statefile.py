"""Reading and writing lab.json, state.json and volatile.json safely.

Writers (faults from the controller, launchd at boot, the shim inside a host) take an exclusive
flock on `state.lock` in the host directory and replace files atomically, so a reader never sees
half a file. Runs inside hosts too: Python 3.9, stdlib only.
"""
import contextlib
import fcntl
import json
import os
import tempfile
import time
import uuid

from . import identity, layout, profiles

SCHEMA = 1


def read_json(path, default=None):
    try:
        with open(path) as handle:
            return json.load(handle)
    except FileNotFoundError:
        if default is not None:
            return default
        raise


def write_json(path, data, mode=0o644):
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def locked(host_dir):
    """Exclusive lock on a host's state (same lock file the shim uses)."""
    with open(os.path.join(host_dir, "state.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def editing(path, host_dir):
    """Load a JSON file under the host lock, let the caller change it, write it back."""
    with locked(host_dir):
        data = read_json(path)
        yield data
        write_json(path, data)


def new_host_state(lab_name, host, index, profile_name, os_info, boot_seconds, cables):
    profile = profiles.get(profile_name)
    tb_ports = []
    for bus, port in enumerate(profile["tb_ports"]):
        tb_ports.append({
            "receptacle": port["receptacle"], "device": port["device"], "bus": bus,
            "domain_uuid": identity.stable_uuid(lab_name, host, "tb", port["receptacle"]),
            "mac": identity.local_mac(lab_name, host, "tb", port["receptacle"]),
            "switch_uid": identity.switch_uid(lab_name, host, port["receptacle"]),
            "tb5": port["tb5"],
        })
    tb_devices = [p["device"] for p in tb_ports]
    mgmt = profile["management_port"]
    services = [{
        "name": mgmt["name"], "device": mgmt["device"], "enabled": True, "mtu": 1500,
        "ipv4": {"method": "manual", "address": layout.mgmt_ip(index), "mask": "255.255.255.0",
                 "router": layout.CONTROLLER_IP},
    }]
    services.append({"name": "Thunderbolt Bridge", "device": "bridge0", "enabled": True,
                     "ipv4": {"method": "dhcp"}, "mtu": 1500})
    for port in tb_ports:
        services.append({"name": "Thunderbolt %d" % port["receptacle"], "device": port["device"],
                         "enabled": True, "ipv4": {"method": "dhcp"}, "mtu": 1500})
    now = int(time.time())
    return {
        "schema": SCHEMA,
        "name": host,
        "profile": profile_name,
        "hardware": {
            "model_id": profile["model_id"], "model_name": profile["model_name"],
            "chip": profile["chip"], "model_number": profile["model_number"],
            "cores_total": profile["cores_perf"] + profile["cores_eff"],
            "cores_perf": profile["cores_perf"], "cores_eff": profile["cores_eff"],
            "memory_bytes": profile["memory_bytes"], "disk_bytes": profile["disk_bytes"],
            "serial": identity.serial(lab_name, host),
            "platform_uuid": identity.stable_uuid(lab_name, host, "platform"),
            "provisioning_udid": identity.provisioning_udid(lab_name, host),
            "boot_rom": profile["boot_rom"],
            "ethernet": {"device": mgmt["device"], "mac": layout.mgmt_mac(index), "name": mgmt["name"]},
            "other_ports": [dict(p, mac=identity.local_mac(lab_name, host, p["device"]))
                            for p in profile["other_ports"]],
            "bridge_mac": identity.local_mac(lab_name, host, "bridge0"),
            "tb_ports": tb_ports,
        },
        "os": dict(os_info),
        "rdma": {"enabled": False, "pending": None},
        "network": {
            "bridge": {"exists": True, "members": tb_devices},
            "services": services,
            "order": [s["name"] for s in services],
            "locations": {"Automatic": None},
            "current_location": "Automatic",
        },
        "names": {"ComputerName": host, "LocalHostName": host, "HostName": None},
        "pmset": {"sleep": 1, "disksleep": 10, "displaysleep": 10, "autorestart": 0, "womp": 1},
        "defaults": {},
        "filevault": False,
        "pending_updates": [],
        "launchd_disabled": [],
        "boot": {"count": 0, "boottime": now, "boot_seconds": float(boot_seconds),
                 "mode": "normal", "next_mode": "normal", "no_return": False},
        "faults": {"ip_reset": False, "disk_full_bytes": None},
    }


def new_volatile(previous_boottime, now=None):
    """Volatile state of a fresh boot. boottime moves by >= 60 s: `who -b` has minute resolution
    and ansible.builtin.reboot compares its output, so two quick reboots must still differ."""
    now = int(now if now is not None else time.time())
    return {
        "boot_session_uuid": str(uuid.uuid4()).upper(),
        "boottime": max(now, int(previous_boottime) + 60),
        "sysctl": {"iogpu.wired_limit_mb": 0},
        "ifconfig_overrides": {},
        "routes": [],
    }
