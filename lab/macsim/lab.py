"""Lab lifecycle: up, down, status, wait, self-check (the CLI's verbs live in cli.py)."""
import concurrent.futures
import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import time

from . import hostfs, inventory, layout, net, profiles, statefile, testmodel, topology, wheelhouse


class LabError(RuntimeError):
    pass


def _read_pid(path):
    try:
        with open(path) as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


def _pid_cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _kill_recorded(path, marker):
    """Kill a process we started, by its recorded PID, only if it is still ours (PID reuse)."""
    pid = _read_pid(path)
    if pid and marker in _pid_cmdline(pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for _ in range(50):
            if not os.path.exists("/proc/%d" % pid) or _pid_state(pid) == "Z":
                break
            time.sleep(0.02)


def _pid_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def load(paths):
    if not os.path.exists(paths.lab_json):
        raise LabError("no lab at %s (run `maclab up`)" % paths.root)
    return statefile.read_json(paths.lab_json)


def save(paths, lab):
    statefile.write_json(paths.lab_json, lab)


def supervisor_alive(paths, host):
    pid = _read_pid(paths.supervisor_pid(host))
    return bool(pid) and "macsim" in _pid_cmdline(pid) and _pid_state(pid) not in (None, "Z")


# Power states of a host that stays without SSH until `maclab fault up` (or `clear`): halted,
# the no-return fault, waiting at the FileVault unlock screen.
DARK_POWER_STATES = ("off", "no-return", "locked")


def power_state(paths, host):
    data = statefile.read_json(paths.host_file(host, "run", "power.json"), {"state": "unknown"})
    return data["state"]


def launchd_pid(paths, host):
    return _read_pid(paths.host_file(host, "run", "launchd.pid"))


# ---- up ------------------------------------------------------------------------------------
def plan(name, nodes, topology_arg, profile_names, link_rate, boot_seconds, os_info, rdma=True, spare=0):
    """The lab to build. The last ``spare`` hosts are Macs on the shelf: up, with their cables planned but
    unplugged (`maclab plug HOST` connects them) and outside the inventory's group macs (in `spare`): a Mac to
    add to the cluster."""
    if not 0 <= spare < nodes:
        raise LabError("--spare must leave at least one node in the cluster (%d of %d)" % (spare, nodes))
    if profile_names is None:
        profile_names = profiles.default_profiles(nodes)
    if len(profile_names) != nodes:
        raise LabError("--profiles lists %d profiles for %d nodes" % (len(profile_names), nodes))
    for profile_name in profile_names:
        profiles.get(profile_name)
    hosts = []
    for index in range(1, nodes + 1):
        hosts.append({"name": layout.host_name(index), "index": index, "profile": profile_names[index - 1],
                      "ip": layout.mgmt_ip(index), "os": dict(os_info), "rdma": bool(rdma)})
        if index > nodes - spare:
            hosts[-1]["spare"] = True
    cables = topology.plan_cables(topology_arg, {h["name"]: h["profile"] for h in hosts}, link_rate)
    shelf = set(h["name"] for h in hosts if h.get("spare"))
    for cable in cables:
        if cable["a"] in shelf or cable["b"] in shelf:
            cable.update(state="cut", unplugged=True)
    pythons = hostfs.find_pythons()
    return {
        "schema": 1, "name": name, "hosts": hosts, "cables": cables, "boot_seconds": float(boot_seconds),
        "admin_user": layout.ADMIN_USER, "link_rate": link_rate, "topology": topology_arg,
        "pythons": pythons, "clt_python": hostfs.clt_python(pythons), "tools_python": hostfs.tools_python(),
        "package_index": layout.PACKAGE_INDEX_URL, "created_mountpoints": [],
    }


def _same_lab(old, new):
    keys = ("name", "hosts", "topology", "link_rate", "boot_seconds")
    return all(old.get(k) == new.get(k) for k in keys)


def _create_mountpoints(lab):
    """Create the host mount points the machine lacks, and register this lab as a user of every
    mount point a lab created (layout.MOUNTPOINT_REGISTRY): labs side by side share them, and the
    last one down removes them (see _release_mountpoints)."""
    with _mountpoint_registry() as registry:
        for path in layout.HOST_MOUNTPOINTS:
            missing = []
            probe = path
            while not os.path.exists(probe):
                missing.append(probe)
                probe = os.path.dirname(probe)
            os.makedirs(path, exist_ok=True)
            registry["created"].extend(p for p in reversed(missing) if p not in registry["created"])
        if registry["created"] and layout.LAB_NUMBER not in registry["labs"]:
            registry["labs"].append(layout.LAB_NUMBER)
    lab["created_mountpoints"] = []  # kept for labs written before the registry; see down()


def _release_mountpoints(lab):
    """This lab no longer uses the mount points; the last lab out removes what any lab created."""
    with _mountpoint_registry() as registry:
        registry["labs"] = [n for n in registry["labs"] if n != layout.LAB_NUMBER]
        created = registry["created"] if not registry["labs"] else []
        for path in reversed(created + lab.get("created_mountpoints", [])):
            try:
                os.rmdir(path)
            except OSError:
                pass
        if not registry["labs"]:
            registry["created"] = []


@contextlib.contextmanager
def _mountpoint_registry():
    """The machine's mount point registry, read and written under an exclusive lock."""
    path = layout.MOUNTPOINT_REGISTRY
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # The lock is on the registry's directory: a lock file would outlive the last lab.
    lock = os.open(os.path.dirname(path), os.O_RDONLY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        registry = statefile.read_json(path, {}) if os.path.exists(path) else {}
        registry = {"labs": registry.get("labs", []), "created": registry.get("created", [])}
        yield registry
        if registry["labs"] or registry["created"]:
            statefile.write_json(path, registry)
        elif os.path.exists(path):
            os.unlink(path)
    finally:
        os.close(lock)


def _host_port_macs(states):
    macs = {}
    for host, state in states.items():
        for port in state["hardware"]["tb_ports"]:
            macs[(host, port["device"])] = port["mac"]
    return macs


def build_network(lab, states):
    net.ensure_mgmt_bridge()
    for host in lab["hosts"]:
        net.create_host(host["name"], host["index"], states[host["name"]]["hardware"]["ethernet"]["device"])
    port_macs = _host_port_macs(states)
    for cable in lab["cables"]:
        if cable.get("state", "connected") == "connected":
            net.create_cable(cable, port_macs)
    for host in lab["hosts"]:
        name = host["name"]
        cabled = topology.cabled_devices([c for c in lab["cables"] if c.get("state") == "connected"], name)
        for port in states[name]["hardware"]["tb_ports"]:
            if port["device"] not in cabled:
                net.create_idle_port(name, port["device"], port["mac"])
        bridge = states[name]["network"]["bridge"]
        if bridge["exists"]:
            net.create_tb_bridge(name, states[name]["hardware"]["bridge_mac"], bridge["members"])


def start_supervisor(paths, lab, host):
    with open(paths.host_file(host, "log", "launchd.log"), "ab") as log:
        subprocess.Popen([lab["tools_python"], "-sE", "-c",
                          "import sys; sys.path.insert(0, sys.argv[1]); from macsim import supervisor; "
                          "supervisor.main(sys.argv[2:])", paths.code, paths.root, host],
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                         cwd="/")
    deadline = time.time() + 5
    while time.time() < deadline and not supervisor_alive(paths, host):
        time.sleep(0.05)


def up(paths, lab, ssh_timeout=30.0, selfcheck_enabled=True, log=print):
    if os.geteuid() != 0:
        raise LabError("maclab up needs root (namespaces, mounts)")
    if os.path.exists(paths.lab_json):
        old = statefile.read_json(paths.lab_json)
        if _same_lab(old, lab) and all(supervisor_alive(paths, h["name"]) for h in old["hosts"]):
            log("lab %s is already up (%d hosts)" % (paths.root, len(old["hosts"])))
            inventory.write_inventory(paths, old)
            return old
        log("cleaning up the previous lab first")
    down(paths, log=lambda *_: None)
    started = time.time()
    os.makedirs(paths.root, mode=0o755, exist_ok=True)
    os.chmod(paths.root, 0o755)
    password = hostfs.make_controller_credentials(paths)
    hostfs.install_code(paths)
    lab["recv_wait"] = hostfs.build_recv_wait(paths)
    hostfs.build_macroot(paths)
    lab["overlay_dirs"] = hostfs.overlay_dirs(paths)
    lab["tools"] = hostfs.lab_tools(paths)
    _create_mountpoints(lab)
    save(paths, lab)  # early, so that `down` can undo a half-built lab
    states = {}
    for host in lab["hosts"]:
        name = host["name"]
        os.makedirs(paths.host(name), exist_ok=True)
        state = statefile.new_host_state(lab["name"], name, host["index"], host["profile"], host["os"],
                                         lab["boot_seconds"], lab["cables"])
        state["rdma"]["enabled"] = host.get("rdma", True)
        statefile.write_json(paths.host_file(name, "state.json"), state)
        statefile.write_json(paths.host_file(name, "volatile.json"),
                             statefile.new_volatile(state["boot"]["boottime"] - 60))
        hostfs.build_host_fs(paths, lab, host, password)
        states[name] = state
    # The owners' downloaded model, on every node: what benchmark.yml's generate suite runs.
    testmodel.place(paths, [h["name"] for h in lab["hosts"]], testmodel.LAB_MODEL_PATH)
    build_network(lab, states)
    keys = {h["name"]: hostfs.host_public_key(paths, h["name"]) for h in lab["hosts"]}
    inventory.write_ssh_files(paths, lab, keys)
    inventory.write_inventory(paths, lab)
    count = wheelhouse.fill(paths)
    wheelhouse.serve(paths, lab["tools_python"])
    lab["wheel_count"] = count
    save(paths, lab)
    for host in lab["hosts"]:
        start_supervisor(paths, lab, host["name"])
    wait(paths, lab, timeout=ssh_timeout)
    if selfcheck_enabled:
        selfcheck(paths, lab)
    log("lab up: %d hosts, %d cables, %d wheels in %.1f s; inventory %s" % (
        len(lab["hosts"]), len(lab["cables"]), count, time.time() - started, inventory.INVENTORY_DIR))
    return lab


# ---- ssh -----------------------------------------------------------------------------------
def ssh_argv(paths, host, command):
    return ["ssh", "-F", paths.ssh_config, host, "--", command]


def ssh(paths, host, command, timeout=60):
    return subprocess.run(ssh_argv(paths, host, command), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout, stdin=subprocess.DEVNULL)


def port_open(ip, port=22, timeout=0.5):
    try:
        with socket.create_connection((ip, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait(paths, lab, timeout=60.0, hosts=None):
    """Every host that is powered on answers `ssh true`; raises naming the hosts that did not."""
    names = hosts or [h["name"] for h in lab["hosts"]
                      if power_state(paths, h["name"]) not in DARK_POWER_STATES]
    deadline = time.time() + timeout
    pending = list(names)
    while pending and time.time() < deadline:
        for name in list(pending):
            ip = layout.mgmt_ip(layout.host_index(name))
            if port_open(ip) and ssh(paths, name, "true", timeout=10).returncode == 0:
                pending.remove(name)
        if pending:
            time.sleep(0.3)
    if pending:
        raise LabError("no SSH after %.0f s: %s (see %s/hosts/<h>/log/)" % (timeout, ", ".join(pending), paths.root))


SELFCHECK = r"""
echo "uname=$(uname -s)"
echo "python=$(/usr/bin/python3 -c 'import platform; print(platform.system())')"
echo "sw_vers=$(sw_vers -productVersion)"
echo "shutdown=$(readlink "$(command -v shutdown)")"
sudo -n true >/dev/null 2>&1; echo "sudo_nopass_rc=$?"
"""


def selfcheck_host(paths, lab, host):
    proc = ssh(paths, host["name"], SELFCHECK)
    got = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    problems = []
    expect = {"uname": "Darwin", "python": "Darwin", "sw_vers": host["os"]["version"],
              "shutdown": hostfs.SHIM_ENTRY}
    for key, value in expect.items():
        if got.get(key) != value:
            problems.append("%s is %r, expected %r" % (key, got.get(key), value))
    if got.get("sudo_nopass_rc") in (None, "0"):
        problems.append("sudo does not ask for a password")
    if problems:
        return "%s: %s (stderr: %s)" % (host["name"], "; ".join(problems), proc.stderr.strip()[-300:])
    return None


def selfcheck(paths, lab):
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        failures = [f for f in pool.map(lambda h: selfcheck_host(paths, lab, h), lab["hosts"]) if f]
    if failures:
        raise LabError("self-check failed:\n  " + "\n  ".join(failures))


# ---- status --------------------------------------------------------------------------------
def status(paths):
    lab = load(paths)
    hosts = []
    for host in lab["hosts"]:
        name = host["name"]
        state = statefile.read_json(paths.host_file(name, "state.json"))
        hosts.append({
            "name": name, "ip": host["ip"], "profile": host["profile"],
            "supervisor": supervisor_alive(paths, name), "power": power_state(paths, name),
            "mode": state["boot"]["mode"], "boot_count": state["boot"]["count"],
            "ssh": port_open(host["ip"]), "os": "%s (%s)" % (state["os"]["version"], state["os"]["build"]),
            "rdma": state["rdma"]["enabled"],
        })
    return {"root": paths.root, "name": lab["name"], "hosts": hosts, "cables": lab["cables"],
            "http": bool(_read_pid(paths.http_pid)) and "http.server" in _pid_cmdline(_read_pid(paths.http_pid))}


# ---- down ----------------------------------------------------------------------------------
def down(paths, log=print):
    """Idempotent teardown, also after a crashed run: recorded PIDs, namespace members,
    namespaces, links, mounts, mount points, the lab root."""
    lab = statefile.read_json(paths.lab_json, {}) if os.path.exists(paths.lab_json) else {}
    root_hosts = os.path.join(paths.root, "hosts")
    hosts = sorted(os.listdir(root_hosts)) if os.path.isdir(root_hosts) else []
    for host in hosts:  # supervisors first: a host mid-reboot must not boot again
        _kill_recorded(paths.supervisor_pid(host), "macsim")
    _kill_recorded(paths.http_pid, "http.server")
    for ns in net.netns_list():
        if not ns.startswith(layout.NETNS_PREFIX):
            continue
        pids = net.ip("netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        net.delete_netns(ns)
    for name in _root_links():
        if name.startswith(layout.ROOT_VETH_PREFIX) or name == layout.MGMT_BRIDGE:
            net.delete_link(name)
    for mount in _mounts_under(paths.root):
        subprocess.run(["umount", "-l", mount], check=False)
    _release_mountpoints(lab)
    if os.path.exists(paths.root):
        shutil.rmtree(paths.root)
    inventory.remove_inventory()
    log("lab down (%s)" % paths.root)


def _root_links():
    out = net.ip("-j", "link", "show", check=False).stdout
    return [entry["ifname"] for entry in json.loads(out)] if out.strip() else []


def _mounts_under(root):
    result = []
    with open("/proc/self/mounts") as handle:
        for line in handle:
            mountpoint = line.split()[1].replace("\\040", " ")
            if mountpoint == root or mountpoint.startswith(root + "/"):
                result.append(mountpoint)
    return sorted(result, key=len, reverse=True)
