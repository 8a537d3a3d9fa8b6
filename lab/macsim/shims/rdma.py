"""RDMA over Thunderbolt 5: rdma_ctl, ibv_devices, ibv_devinfo."""

from .. import netapply
from ..formats import rdma as rdmafmt
from .registry import command
from .state import Fail, is_root, out, tb_links


@command("/usr/bin/rdma_ctl")
def cmd_rdma_ctl(host, args):
    rdma = host.state.get("rdma", {})
    if args == ["status"]:
        out(rdmafmt.status(rdma.get("enabled", False)))
        return 0
    if args in (["enable"], ["disable"]):
        if host.boot_mode != "recovery" or not is_root():
            raise Fail(1, rdmafmt.NOT_IN_RECOVERY)
        with host.mutate():
            host.state.setdefault("rdma", {})["pending"] = args[0] == "enable"
        return 0
    raise Fail(1, "usage: rdma_ctl status|enable|disable\n")


def _guid_base(state):
    import hashlib  # here, not at the top: most rdma calls never derive a GUID

    return int(hashlib.sha256(state["hardware"]["platform_uuid"].encode()).hexdigest()[:14], 16)


def rdma_devices(host):
    """One device per TB5 port while RDMA is enabled, with its PORT_ACTIVE rule: cabled at TB5
    speed to a running host that has RDMA enabled too, and not enslaved to bridge0 (a bridge
    member reports PORT_DOWN, as a third-party guide found)."""
    state = host.state
    if not state.get("rdma", {}).get("enabled"):
        return []
    base = _guid_base(state)
    ports = [p for p in state["hardware"].get("tb_ports", []) if p.get("tb5", True)]
    links = tb_links(host)
    devices = []
    sys_guid = ((0xa0 << 56) | base)
    for port in ports:
        link = links.get(port["receptacle"])
        live = host.live.get(port["device"], {})
        active = bool(link and link["tb5"]
                      and link["peer_state"].get("rdma", {}).get("enabled")
                      and live.get("master") != netapply.BRIDGE)
        mac = live.get("mac") or port["mac"]
        gids = [rdmafmt.mac_to_link_local(mac)]
        gids += ["::ffff:" + a for a, _, _ in live.get("inet", [])]
        gids += [a for a, _ in live.get("inet6", []) if a != gids[0]]
        devices.append({"name": "rdma_" + port["device"],
                        "guid": ((0xa0 + port["bus"]) << 56) | base,
                        "sys_guid": sys_guid, "active": active, "gids": gids})
    return devices


@command("/usr/bin/ibv_devices")
def cmd_ibv_devices(host, args):
    out(rdmafmt.devices([(d["name"], d["guid"]) for d in rdma_devices(host)]))
    return 0


@command("/usr/bin/ibv_devinfo")
def cmd_ibv_devinfo(host, args):
    verbose = "-v" in args or "--verbose" in args
    wanted = None
    for flag in ("-d", "--ib-dev"):
        if flag in args:
            wanted = args[args.index(flag) + 1]
    devices = rdma_devices(host)
    if not devices:
        raise Fail(255, rdmafmt.NO_DEVICES)
    if "-l" in args or "--list" in args:
        out("{} HCA{} found:\n".format(len(devices), "" if len(devices) == 1 else "s") +
            "".join("\t{}\n".format(d["name"]) for d in devices))
        return 0
    if wanted is not None:
        devices = [d for d in devices if d["name"] == wanted]
        if not devices:
            raise Fail(255, "IB device '{}' wasn't found\n".format(wanted))
    out("".join(rdmafmt.devinfo(d, verbose) for d in devices))
    return 0
