"""ibv_devinfo parser (plain and -v)."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils import _ibv_devinfo
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


def summary(devices):
    """device -> (state, state_code, active_mtu, ipv4 GIDs) of port 1."""
    result = {}
    for device in devices:
        port = _ibv_devinfo.port_one(device)
        result[device["hca_id"]] = (port["state"], port["state_code"], port["active_mtu"],
                                    [gid["ipv4"] for gid in port["gids"] if gid["ipv4"]])
    return result


VALID = [
    ("ibv_devinfo/studio_ready_v.txt", {
        "rdma_en2": ("PORT_DOWN", 1, 1024, []),
        "rdma_en3": ("PORT_ACTIVE", 4, 4096, ["198.19.0.1"]),
        "rdma_en4": ("PORT_ACTIVE", 4, 4096, ["198.19.0.5"]),
        "rdma_en5": ("PORT_DOWN", 1, 1024, []),
        "rdma_en6": ("PORT_DOWN", 1, 1024, []),
        "rdma_en7": ("PORT_DOWN", 1, 1024, []),
    }),
    ("ibv_devinfo/studio_problems_v.txt", {
        "rdma_en2": ("PORT_DOWN", 1, 1024, []),
        "rdma_en3": ("PORT_ACTIVE", 4, 4096, []),
        "rdma_en4": ("PORT_DOWN", 1, 1024, ["198.19.0.5"]),
        "rdma_en5": ("PORT_DOWN", 1, 1024, []),
        "rdma_en6": ("PORT_DOWN", 1, 1024, []),
        "rdma_en7": ("PORT_DOWN", 1, 1024, []),
    }),
    ("ibv_devinfo/mini_plain.txt", {
        "rdma_en2": ("PORT_ACTIVE", 4, 4096, []),
        "rdma_en3": ("PORT_DOWN", 1, 1024, []),
        "rdma_en4": ("PORT_DOWN", 1, 1024, []),
    }),
    ("ibv_devinfo/full_width_gids_v.txt", {"rdma_en2": ("PORT_ACTIVE", 4, 4096, ["169.254.0.1"])}),
]
INVALID = [
    ("", "the output is empty"),
    ("ibv_devinfo/port_before_hca.txt", "comes before any `hca_id:` line"),
    ("ibv_devinfo/no_hca.txt", "no `hca_id:` line"),
    ("hca_id:\t\n", "without a device name"),
    ("hca_id:\trdma_en2\n\t\tport:\tone\n", "is not a number"),
]


@pytest.mark.parametrize("fixture, expected", VALID)
def test_ports(fixture, expected):
    assert summary(_ibv_devinfo.parse(read_fixture(fixture))) == expected


def test_device_fields_and_gid_table():
    device = _ibv_devinfo.parse(read_fixture("ibv_devinfo/studio_ready_v.txt"), _ibv_devinfo.VERBOSE_COMMAND)[1]
    port = device["ports"][0]
    assert (device["hca_id"], device["transport"], device["transport_code"]) == ("rdma_en3", "Thunderbolt", 100)
    assert (device["node_guid"], device["sys_image_guid"]) == ("a14c:19e2:d7b1:ac05", "a04c:19e2:d7b1:ac05")
    assert (port["port"], port["max_mtu"], port["link_layer"], port["ipv4_gid"]) == (1, 4096, "Thunderbolt", True)
    assert port["gids"] == [
        {"index": 0, "gid": "fe80::345e:bff:fe41:7c02", "ipv4": None},
        {"index": 1, "gid": "::ffff:198.19.0.1", "ipv4": "198.19.0.1"},
        {"index": 2, "gid": "fe80::1c8a:4dff:fe21:93b0", "ipv4": None},
    ]


def test_plain_output_has_no_gid_table():
    port = _ibv_devinfo.parse(read_fixture("ibv_devinfo/mini_plain.txt"))[0]["ports"][0]
    assert (port["gids"], port["ipv4_gid"]) == ([], False)


def test_no_devices():
    assert _ibv_devinfo.parse(read_fixture("ibv_devinfo/no_devices.txt")) == []


def test_port_one_missing():
    assert _ibv_devinfo.port_one({"ports": [{"port": 2}]}) is None


def test_unparseable_gid_is_not_ipv4():
    text = "hca_id:\trdma_en2\n\t\tport:\t1\n\t\t\tmax_mtu:\t\tunknown\n\t\t\tGID[  0]:\t\tnot-an-address\n"
    port = _ibv_devinfo.parse(text)[0]["ports"][0]
    assert (port["max_mtu"], port["gids"][0]["ipv4"], port["ipv4_gid"]) == (None, None, False)


@pytest.mark.parametrize("fixture, reason", INVALID)
def test_rejects(fixture, reason):
    text = read_fixture(fixture) if fixture.endswith(".txt") else fixture
    with pytest.raises(ParseError, match="`ibv_devinfo -v`") as error:
        _ibv_devinfo.parse(text, _ibv_devinfo.VERBOSE_COMMAND)
    assert reason in error.value.reason
