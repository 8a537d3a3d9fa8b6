"""How this node's rank starts (serve_supervisor.py runs it): what its backend needs before a start is made, and
the files and variables MLX's init reads, as mlx.launch would set them. Python 3.9, stdlib only."""
import json
import re
import socket
import subprocess


def addresses_up(addresses):
    """True when every address is one of this node's (it can be bound)."""
    for address in addresses:
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            probe.bind((address, 0))
        except OSError:
            return False
        finally:
            probe.close()
    return True


# RDMA port states as ibv_devinfo prints them (Apple TN3205): "state: PORT_ACTIVE (4)"; JACCL also needs an
# IPv4-mapped GID ("::ffff:a.b.c.d", the port's interface carrying an IPv4 address: mlx rdma.cpp).
PORT_STATE = re.compile(r"^\s*state:\s*(\S+)", re.M)
IPV4_GID = re.compile(r"GID\[\s*\d+\]:\s*::ffff:\d", re.I)


def start_blockers(config):
    """Why this node's rank cannot start now ([] when it can), checked before every start, so a start that would
    fail (and on JACCL leak an RDMA protection domain) is not made: the addresses its backend binds (ring: its
    Thunderbolt addresses; JACCL: its management address) and, for JACCL, each of its RDMA devices active with an
    IPv4-mapped GID. The leader's control port answering is the coordinator's host reachable (the heartbeat)."""
    blockers = []
    missing = [address for address in config["wait_for_addresses"] if not addresses_up([address])]
    if missing:
        blockers.append("address %s is not up" % ", ".join(missing))
    if config.get("backend") in ("jaccl", "jaccl-ring"):
        devices = [device for device in (config["launch"]["rdma"][config["rank"]] or []) if device]
        for device in devices:
            try:
                shown = subprocess.run(["ibv_devinfo", "-v", "-d", device], check=False,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10,
                                       universal_newlines=True).stdout
            except (OSError, subprocess.SubprocessError) as exc:
                blockers.append("%s cannot be read: %s" % (device, exc))
                continue
            state = PORT_STATE.search(shown)
            if not state or state.group(1) != "PORT_ACTIVE":
                blockers.append("RDMA device %s is %s" % (device, state.group(1) if state else "not listed"))
            elif not IPV4_GID.search(shown):
                blockers.append("RDMA device %s has no IPv4 address (JACCL needs an IPv4-mapped GID)" % device)
    return blockers


def launch_files(config, generation):
    """{variable: file content} and {variable: value} MLX's init reads for this generation. Generations take turns
    between the plan's two port blocks, so a new rank 0 never waits for the old one's port to leave TIME_WAIT."""
    launch = config["launch"]
    ports = launch["ports"][generation % 2]
    if config["backend"] == "ring":
        return {"MLX_HOSTFILE": json.dumps([["%s:%d" % (ip, ports[i])] for i, ip in enumerate(launch["ips"])])}, {}
    env = {"MLX_JACCL_COORDINATOR": "%s:%d" % (launch["ips"][0], ports[0])}
    if config["backend"] == "jaccl-ring":
        env["MLX_JACCL_RING"] = "1"
    return {"MLX_IBV_DEVICES": json.dumps(launch["rdma"])}, env
