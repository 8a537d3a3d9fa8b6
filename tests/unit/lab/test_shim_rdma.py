"""rdma_ctl (Recovery-only changes), ibv_devices and ibv_devinfo (PORT_ACTIVE rule, GIDs)."""
import ipaddress
import re

from shimlab import NOBODY


def enable_rdma(lab, *hosts):
    for host in hosts:
        with lab.edit_state(host) as state:
            state["rdma"]["enabled"] = True


def test_status_words(lab):
    assert lab.run("rdma_ctl", "status").out == "disabled\n"
    enable_rdma(lab, "mac1")
    assert lab.run("rdma_ctl", "status").out == "enabled\n"


def test_enable_refused_outside_recovery(lab):
    result = lab.run("rdma_ctl", "enable")
    assert result.rc == 1 and "Recovery" in result.err
    assert lab.state()["rdma"] == {"enabled": False, "pending": None}


def test_enable_in_recovery_is_pending_until_next_boot(lab):
    with lab.edit_state() as state:
        state["boot"]["mode"] = "recovery"
    assert lab.run_process("rdma_ctl", "enable", uid=NOBODY).rc == 1
    assert lab.run("rdma_ctl", "enable").rc == 0
    assert lab.state()["rdma"] == {"enabled": False, "pending": True}
    assert lab.run("rdma_ctl", "status").out == "disabled\n"
    assert lab.run("rdma_ctl", "disable").rc == 0
    assert lab.state()["rdma"]["pending"] is False


def test_ibv_devices_empty_while_disabled(lab):
    assert lab.run("ibv_devices").out == ("    device          \t   node GUID\n"
                                          "    ------          \t----------------\n")
    assert lab.run("ibv_devinfo").rc == 255


def device_rows(lab, host=None):
    rows = {}
    for line in lab.run("ibv_devices", host=host).out.splitlines()[2:]:
        name, guid = line.split()
        rows[name] = guid
    return rows


def test_one_device_per_tb5_port_with_guid_pattern(lab):
    enable_rdma(lab, "mac1", "mac3")
    rows = device_rows(lab)
    assert sorted(rows) == ["rdma_en%d" % n for n in range(2, 8)]
    assert {g[2:] for g in rows.values()} == {rows["rdma_en2"][2:]}
    assert [rows["rdma_en%d" % n][:2] for n in range(2, 8)] == ["a0", "a1", "a2", "a3", "a4", "a5"]
    # MLX's check: tokens starting with rdma_.
    assert sorted(rows) == sorted(t for t in lab.run("ibv_devices").out.split() if t.startswith("rdma_"))
    assert sorted(device_rows(lab, "mac3")) == ["rdma_en2", "rdma_en3", "rdma_en4"]


def port_states(lab, host=None):
    text = lab.run("ibv_devinfo", host=host).out
    return dict(re.findall(r"hca_id:\t(\S+)\n(?:.*\n)*?\t\t\tstate:\t\t\t(PORT_\w+)", text))


def test_port_active_needs_both_ends_enabled_tb5_and_no_bridge(lab):
    enable_rdma(lab, "mac1")
    assert set(port_states(lab).values()) == {"PORT_DOWN"}
    enable_rdma(lab, "mac2", "mac3")
    # Still bridged (the default Thunderbolt Bridge holds every port).
    assert set(port_states(lab).values()) == {"PORT_DOWN"}
    assert lab.run("networksetup", "-setnetworkserviceenabled", "Thunderbolt Bridge", "off").rc == 0
    states = port_states(lab)
    # en3: TB5 to mac2. en4: degraded (TB4) cable to mac3. en5: cut cable.
    assert [d for d, s in sorted(states.items()) if s == "PORT_ACTIVE"] == ["rdma_en3"]


def test_verbose_gids_follow_the_live_addresses(lab):
    enable_rdma(lab, "mac1", "mac2")
    lab.run("ifconfig", "en3", "inet", "198.19.0.1", "netmask", "255.255.255.252")
    text = lab.run("ibv_devinfo", "-d", "rdma_en3", "-v").out
    assert text.startswith("hca_id:\trdma_en3\n\ttransport:\t\t\tThunderbolt (100)\n")
    assert text.count("hca_id:") == 1
    gids = re.findall(r"GID\[\s*(\d+)\]:\t\t(\S+)", text)
    octets = [int(x, 16) for x in lab.live()["en3"]["address"].split(":")]
    eui64 = [octets[0] ^ 2] + octets[1:3] + [0xff, 0xfe] + octets[3:]
    expected = ipaddress.IPv6Address(bytes([0xfe, 0x80] + [0] * 6 + eui64))
    assert ipaddress.IPv6Address(gids[0][1]) == expected
    assert ("1", "::ffff:198.19.0.1") in gids
    assert "\tmax_qp:\t\t\t\t11\n" in text
    assert lab.run("ibv_devinfo", "-d", "rdma_en99").rc == 255


def test_ibv_devinfo_list(lab):
    enable_rdma(lab, "mac3")
    assert lab.run("ibv_devinfo", "-l", host="mac3").out == \
        "3 HCAs found:\n\trdma_en2\n\trdma_en3\n\trdma_en4\n"
