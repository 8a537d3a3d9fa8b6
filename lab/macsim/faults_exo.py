"""`maclab fault` for exo: its io.exo.networksetup daemon resetting the Thunderbolt addresses
(ip-reset, exo #2067), a node on another exo version (a real pip install from the lab's index and a
restart: the node leaves the cluster's namespace, as exo does), a node whose exo comes back with a
new node id (the others keep its old one: exo #2194), and exo removed with its networksetup daemon
left behind (exo #2279), and exo's API port dropped on a host's Thunderbolt ports. `undo` is what `fault clear` does for each."""
import glob
import json
import os
import plistlib
import re
import shutil
import subprocess

from . import layout, statefile
from .faultbase import FaultError, edit_state, in_host, launchd_request, record

# The exo role's defaults, which the lab's inventory keeps (exo_launchd_label, exo_venv_path, ~/.exo).
EXO_LABEL = "org.macops.exo"
EXO_PLIST = "/Library/LaunchDaemons/%s.plist" % EXO_LABEL
EXO_VENV = "/opt/macops/exo-venv"
EXO_HOME = "/Users/%s/.exo" % layout.ADMIN_USER


IP_RESET_LABEL = "io.exo.networksetup"
IP_RESET_SCRIPT = "/Library/Application Support/EXO/reset_tb_dhcp.sh"
IP_RESET_PLIST = "/Library/LaunchDaemons/%s.plist" % IP_RESET_LABEL
IP_RESET_BODY = """\
#!/bin/bash
# Installed by `maclab fault ip-reset`: like exo's io.exo.networksetup daemon, keep putting every
# Thunderbolt service back on DHCP, which removes the addresses the collection planned.
while true; do
  networksetup -listallnetworkservices 2>/dev/null | tail -n +2 | sed 's/^\\*//' \\
    | grep 'Thunderbolt' | grep -v '^Thunderbolt Bridge$' | while IFS= read -r service; do
      networksetup -setdhcp "$service"
    done
  sleep 3
done
"""


def fault_ip_reset(paths, host, kind="ip-reset"):
    fs = paths.host_file(host, "fs")
    script = fs + IP_RESET_SCRIPT
    os.makedirs(os.path.dirname(script), exist_ok=True)
    with open(script, "w") as handle:
        handle.write(IP_RESET_BODY)
    os.chmod(script, 0o755)
    with open(fs + IP_RESET_PLIST, "wb") as handle:
        plistlib.dump({"Label": IP_RESET_LABEL, "ProgramArguments": ["/bin/bash", IP_RESET_SCRIPT],
                       "RunAtLoad": True, "KeepAlive": True,
                       "StandardOutPath": "/var/log/io.exo.networksetup.log",
                       "StandardErrorPath": "/var/log/io.exo.networksetup.err.log"}, handle)
    with edit_state(paths, host) as state:
        state["faults"]["ip_reset"] = True
    reply = launchd_request(paths, host, {"op": "bootstrap", "plist": IP_RESET_PLIST})
    record(paths, kind, [host])
    if reply["rc"] not in (0, 5):
        raise FaultError("%s: bootstrap failed: %s" % (host, reply["err"].strip()))
    return "%s: %s installed and running" % (host, IP_RESET_LABEL)


def _undo_ip_reset(paths, host):
    try:
        launchd_request(paths, host, {"op": "bootout", "label": IP_RESET_LABEL})
    except OSError:
        pass  # host is off: removing the plist is enough
    fs = paths.host_file(host, "fs")
    for path in (fs + IP_RESET_PLIST, fs + IP_RESET_SCRIPT):
        if os.path.exists(path):
            os.unlink(path)
    with edit_state(paths, host) as state:
        state["faults"]["ip_reset"] = False


def _exo_version(paths, host):
    """The exo version installed in the host's exo environment (its dist-info), or None."""
    found = sorted(glob.glob(paths.host_file(host, "fs") + EXO_VENV + "/lib/python*/site-packages/exo-*.dist-info"))
    for info in found:
        with open(os.path.join(info, "METADATA")) as handle:
            match = re.search(r"(?m)^Version: (.+)$", handle.read())
        if match:
            return match.group(1).strip()
    return None


def _pip_install(paths, host, version):
    """`pip install exo==VERSION` into the host's exo environment from the lab's index, as its owner."""
    venv = paths.host_file(host, "fs") + EXO_VENV
    owner = os.stat(venv)
    done = in_host(paths, host, [EXO_VENV + "/bin/python", "-m", "pip", "install", "--no-cache-dir",
                                 "--disable-pip-version-check", "--quiet", "--index-url", layout.PACKAGE_INDEX_URL,
                                 "--trusted-host", layout.CONTROLLER_IP, "exo==%s" % version],
                   uid=owner.st_uid, gid=owner.st_gid,
                   env={"PATH": "/usr/bin:/bin", "HOME": "/Users/%s" % layout.ADMIN_USER})
    if done is None:
        raise FaultError("%s is not up: exo cannot be installed there" % host)
    if done.returncode != 0:
        raise FaultError("%s: pip install exo==%s failed: %s" % (host, version, done.stderr.strip()[-500:]))


def _restart_exo(paths, host):
    reply = launchd_request(paths, host, {"op": "kickstart", "label": EXO_LABEL, "kill": True})
    if reply["rc"] != 0:
        raise FaultError("%s: exo could not be restarted: %s" % (host, reply["err"].strip()))


def fault_exo_version(paths, host, version):
    """exo VERSION on HOST (the lab's index serves the pinned version and the one before), restarted."""
    installed = _exo_version(paths, host)
    if installed is None:
        raise FaultError("%s has no exo in %s (run site.yml first)" % (host, EXO_VENV))
    _pip_install(paths, host, version)
    _restart_exo(paths, host)
    record(paths, "exo-version", [host, version], installed)
    return "%s: exo %s (was %s), restarted" % (host, version, installed)


def fault_exo_stale_id(paths, host):
    """HOST's exo comes back with a new node id (its node_zid gone, as after a reset of ~/.exo); the
    other nodes keep its old id in /state."""
    path = paths.host_file(host, "fs") + EXO_HOME + "/node_zid"
    try:
        with open(path) as handle:
            saved = handle.read()
    except OSError:
        raise FaultError("%s's exo has no node id yet (%s): run site.yml first" % (host, EXO_HOME + "/node_zid"))
    os.unlink(path)
    _restart_exo(paths, host)
    record(paths, "exo-stale-id", [host], saved)
    return "%s: exo restarted with a new node id (the old one was %s)" % (host, saved.strip())


RUNNER_FAULT = EXO_HOME + "/standin-faults.json"


def fault_exo_runner_fails(paths, host):
    """Every runner an instance placed through HOST's exo gets fails once it starts loading (RunnerFailed, as exo's
    runner reports an error such as an RDMA allocation that fails); the instances already placed are unchanged."""
    path = paths.host_file(host, "fs") + RUNNER_FAULT
    if not os.path.isdir(os.path.dirname(path)):
        raise FaultError("%s has no exo home %s (run site.yml first)" % (host, EXO_HOME))
    with open(path, "w") as handle:
        json.dump({"runner_fails": "RuntimeError: [jaccl] Couldn't allocate protection domain (lab fault "
                                   "exo-runner-fails)"}, handle)
    record(paths, "exo-runner-fails", [host])
    return "%s: the runners its exo places fail" % host


def _aside(paths, host):
    return paths.host_file(host, "exo-removed")


def fault_exo_removed(paths, host):
    """exo gone from HOST (its LaunchDaemon unloaded, the plist and environment removed) while exo.app's
    io.exo.networksetup daemon stays loaded, as after deleting the app (exo #2279). The removed files
    wait in the host's lab directory for `fault clear`."""
    fs = paths.host_file(host, "fs")
    if not os.path.exists(fs + EXO_PLIST):
        raise FaultError("%s has no %s (run site.yml first)" % (host, EXO_PLIST))
    launchd_request(paths, host, {"op": "bootout", "label": EXO_LABEL})
    aside = _aside(paths, host)
    os.makedirs(aside, exist_ok=True)
    for path, name in ((EXO_PLIST, "plist"), (EXO_VENV, "venv")):
        if os.path.lexists(fs + path):
            shutil.move(fs + path, os.path.join(aside, name))
    message = fault_ip_reset(paths, host, kind="exo-removed")
    return "%s: exo removed; %s" % (host, message)


def _undo_exo_removed(paths, host):
    _undo_ip_reset(paths, host)
    fs, aside = paths.host_file(host, "fs"), _aside(paths, host)
    for path, name in ((EXO_PLIST, "plist"), (EXO_VENV, "venv")):
        if os.path.lexists(os.path.join(aside, name)):
            shutil.move(os.path.join(aside, name), fs + path)
    os.rmdir(aside)
    try:
        launchd_request(paths, host, {"op": "bootstrap", "plist": EXO_PLIST})
    except OSError:
        pass  # host is off: launchd loads the plist at boot


# A firewall rule on the host that drops exo's API port arriving over its Thunderbolt ports (as a pf
# block or the Application Firewall would): packet filtering in the host's own network namespace.
EXO_API_PORT = 52415
BLOCK_TABLE = "maclab_exo_block"


def _tb_devices(paths, host):
    lab = statefile.read_json(paths.lab_json)
    devices = set(["bridge0"])
    for cable in lab.get("cables", []):
        for end in ("a", "b"):
            if cable.get(end) == host:
                devices.add(cable[end + "_device"])
    return sorted(devices)


def fault_exo_port_blocked(paths, host):
    devices = ", ".join('"%s"' % device for device in _tb_devices(paths, host))
    script = ("add table inet {table}\n"
              "add chain inet {table} input {{ type filter hook input priority 0; policy accept; }}\n"
              "add rule inet {table} input iifname {{ {devices} }} tcp dport {port} drop\n").format(
                  table=BLOCK_TABLE, devices=devices, port=EXO_API_PORT)
    done = subprocess.run(["ip", "netns", "exec", layout.netns(host), "nft", "-f", "-"], input=script,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        raise FaultError("%s: nft could not add the rule: %s" % (host, done.stderr.strip()))
    record(paths, "exo-port-blocked", [host])
    return "%s: TCP %d dropped on %s" % (host, EXO_API_PORT, devices)


def _undo_exo_port_blocked(paths, host):
    subprocess.run(["ip", "netns", "exec", layout.netns(host), "nft", "delete", "table", "inet", BLOCK_TABLE],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _restart_every_exo(paths):
    """What clears a stale id in exo: every node's exo restarted (the hosts that are up)."""
    for host in sorted(os.listdir(os.path.join(paths.root, "hosts"))):
        try:
            launchd_request(paths, host, {"op": "kickstart", "label": EXO_LABEL, "kill": True})
        except OSError:
            pass  # the host is off: its exo starts fresh at boot


def undo(paths, kind, host, saved):
    """Put back what fault ``kind`` replaced on ``host``; False for a kind this module does not know."""
    if kind == "ip-reset":
        _undo_ip_reset(paths, host)
    elif kind == "exo-version":
        # site.yml may have put the pinned version back already, as it does on a Mac: nothing to undo then.
        if _exo_version(paths, host) != saved:
            _pip_install(paths, host, saved)
            _restart_exo(paths, host)
    elif kind == "exo-stale-id":
        with open(paths.host_file(host, "fs") + EXO_HOME + "/node_zid", "w") as handle:
            handle.write(saved)
        _restart_every_exo(paths)
    elif kind == "exo-removed":
        _undo_exo_removed(paths, host)
    elif kind == "exo-port-blocked":
        _undo_exo_port_blocked(paths, host)
    elif kind == "exo-runner-fails":
        if os.path.exists(paths.host_file(host, "fs") + RUNNER_FAULT):
            os.unlink(paths.host_file(host, "fs") + RUNNER_FAULT)
    else:
        return False
    return True


KINDS = {
    "ip-reset": (1, fault_ip_reset), "exo-version": (2, fault_exo_version), "exo-stale-id": (1, fault_exo_stale_id),
    "exo-removed": (1, fault_exo_removed), "exo-port-blocked": (1, fault_exo_port_blocked),
    "exo-runner-fails": (1, fault_exo_runner_fails),
}
