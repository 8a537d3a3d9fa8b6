"""ibv_devices (plugins/module_utils/_ibv_devices.py): devices, GUIDs and interfaces; invalid outputs refused."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _ibv_devices
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture

VALID_IBV_DEVICES = [
    ("ibv_devices/studio.txt", ["rdma_en%d" % n for n in range(2, 8)]),
    ("ibv_devices/studio_unsorted_without_en4.txt", ["rdma_en5", "rdma_en2", "rdma_en3", "rdma_en7", "rdma_en6"]),
    ("ibv_devices/mini.txt", ["rdma_en2", "rdma_en3", "rdma_en4"]),
    ("ibv_devices/rdma_disabled.txt", []),
]
INVALID_IBV_DEVICES = ["", "ibv_devices/no_header.txt", "ibv_devices/bad_guid.txt"]


@pytest.mark.parametrize("fixture, expected", VALID_IBV_DEVICES)
def test_ibv_devices(fixture, expected):
    devices = _ibv_devices.parse(read_fixture(fixture))
    assert [device["device"] for device in devices] == expected


def test_ibv_devices_guid_pattern():
    # First byte increments per port, the other seven are shared (TN3205, MLX docs).
    guids = [device["node_guid"] for device in _ibv_devices.parse(read_fixture("ibv_devices/studio.txt"))]
    assert guids[0] == "a04c19e2d7b1ac05"
    assert set(guid[2:] for guid in guids) == {"4c19e2d7b1ac05"}


@pytest.mark.parametrize("fixture", INVALID_IBV_DEVICES)
def test_ibv_devices_rejects(fixture):
    with pytest.raises(ParseError, match="`ibv_devices`"):
        _ibv_devices.parse(read_fixture(fixture) if fixture else fixture)


@pytest.mark.parametrize("device, interface", [("rdma_en3", "en3"), ("rdma_", None), ("mlx5_0", None)])
def test_ibv_devices_interface_of(device, interface):
    assert _ibv_devices.interface_of(device) == interface
