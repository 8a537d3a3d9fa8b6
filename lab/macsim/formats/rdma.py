"""rdma_ctl, ibv_devices, ibv_devinfo.

Confirmed (Apple TN3205, MLX's `check_rdma`, exo's `RdmaCtlStatus`): `rdma_ctl status` prints one word; ibv_devices
header and `rdma_enX` rows with the per-port GUID pattern; ibv_devinfo's tab layout, transport,
PORT_ACTIVE (4) / PORT_DOWN (1), GID values. Unconfirmed: rdma_ctl's error outside Recovery,
ibv_devinfo -v's limits block order and its "No IB devices found" exit code.
"""

# Format unconfirmed: what rdma_ctl prints when run in normal macOS (only Recovery may change
# the setting; the wording is ours).
NOT_IN_RECOVERY = ("rdma_ctl: changing the RDMA setting is only allowed from the Recovery OS "
                   "(Operation not permitted)\n")
NO_DEVICES = "No IB devices found\n"


def status(enabled):
    return "enabled\n" if enabled else "disabled\n"


def devices(rows):
    """rows: [(device name, guid int)]; rdma-core's `    %-16s\t%016llx` layout."""
    out = "    {:<16}\t   node GUID\n".format("device")
    out += "    {:<16}\t----------------\n".format("------")
    for name, guid in rows:
        out += "    {:<16}\t{:016x}\n".format(name, guid)
    return out


def colon_guid(guid):
    text = "{:016x}".format(guid)
    return ":".join(text[i:i + 4] for i in range(0, 16, 4))


def devinfo(dev, verbose):
    """dev: name, guid, sys_guid, active (bool), gids [str]."""
    lines = ["hca_id:\t" + dev["name"],
             "\ttransport:\t\t\tThunderbolt (100)",
             "\tfw_ver:\t\t\t\t0.0.0",
             "\tnode_guid:\t\t\t" + colon_guid(dev["guid"]),
             "\tsys_image_guid:\t\t\t" + colon_guid(dev["sys_guid"]),
             "\tvendor_id:\t\t\t0x0000",
             "\tvendor_part_id:\t\t\t0",
             "\thw_ver:\t\t\t\t0x0",
             "\tphys_port_cnt:\t\t\t1"]
    if verbose:
        # Apple's limits from TN3205 and one capture (max_qp 11, max_pd 11, max_mr 100).
        lines += ["\tmax_mr_size:\t\t\t0xffe000", "\tpage_size_cap:\t\t\t0x4000",
                  "\tmax_qp:\t\t\t\t11", "\tmax_qp_wr:\t\t\t4095", "\tmax_sge:\t\t\t1",
                  "\tmax_cq:\t\t\t\t11", "\tmax_cqe:\t\t\t4095", "\tmax_mr:\t\t\t\t100",
                  "\tmax_pd:\t\t\t\t11"]
    state = "PORT_ACTIVE (4)" if dev["active"] else "PORT_DOWN (1)"
    lines += ["\t\tport:\t1",
              "\t\t\tstate:\t\t\t" + state,
              "\t\t\tmax_mtu:\t\t4096 (5)",
              "\t\t\tactive_mtu:\t\t4096 (5)",
              "\t\t\tsm_lid:\t\t\t2",
              "\t\t\tport_lid:\t\t2",
              "\t\t\tport_lmc:\t\t0x00",
              "\t\t\tlink_layer:\t\tThunderbolt"]
    if verbose:
        lines += ["\t\t\tmax_msg_sz:\t\t0xffe000",
                  "\t\t\tactive_width:\t\t8X (4)",
                  "\t\t\tactive_speed:\t\t10.0 Gbps (4)",
                  "\t\t\tphys_state:\t\t" + ("LINK_UP (5)" if dev["active"] else "DISABLED (3)")]
        for index, gid in enumerate(dev["gids"]):
            lines.append("\t\t\tGID[{:>3}]:\t\t{}".format(index, gid))
    return "\n".join(lines) + "\n\n"


def mac_to_link_local(mac):
    """EUI-64 link-local address of a MAC (fe80::xx:xxff:fexx:xxxx), as the kernel derives it."""
    octets = [int(x, 16) for x in mac.split(":")]
    octets[0] ^= 0x02
    eui = octets[:3] + [0xff, 0xfe] + octets[3:]
    groups = ["{:x}".format((eui[i] << 8) | eui[i + 1]) for i in range(0, 8, 2)]
    return "fe80::" + ":".join(groups)
