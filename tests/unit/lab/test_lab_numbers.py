"""Labs side by side (MACLAB_ID): each number has its own names, addresses and inventory, lab 0
keeps the historic ones, and the mount points labs share outlive every lab but the last."""
import json
import os
import subprocess
import sys

import pytest

from shimlab import LAB_DIR
from macsim import lab as lab_module, layout

NAMES = ("DEFAULT_ROOT", "NETNS_PREFIX", "MGMT_BRIDGE", "ROOT_VETH_PREFIX", "CONTROLLER_IP",
         "PACKAGE_INDEX_URL", "INVENTORY_DIR")


def _layout_of(number):
    """The layout's names for lab `number`, read in a fresh interpreter (they are set at import)."""
    code = ("import json; from macsim import layout as l; print(json.dumps(dict([(n, getattr(l, n)) for n in %r]"
            " + [('ip1', l.mgmt_ip(1)), ('mac1', l.mgmt_mac(1)), ('veth_mac1', l.root_veth_mac(1)),"
            " ('ns', l.netns('mac1')), ('veth', l.root_veth('mac1'))])))" % (NAMES,))
    env = dict(os.environ, MACLAB_ID=str(number), PYTHONPATH=LAB_DIR)
    proc = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    return proc


def test_lab_0_keeps_the_historic_names():
    names = json.loads(_layout_of(0).stdout)
    assert names["DEFAULT_ROOT"] == "/var/lib/maclab" and names["ns"] == "maclab-mac1"
    assert names["MGMT_BRIDGE"] == "maclab0" and names["veth"] == "mlb-mac1"
    assert names["CONTROLLER_IP"] == "198.18.0.1" and names["ip1"] == "198.18.0.11"
    assert names["PACKAGE_INDEX_URL"] == "http://198.18.0.1:8101/simple/"
    assert (names["mac1"], names["veth_mac1"]) == ("02:00:c6:12:00:01", "02:00:c6:12:01:01")
    assert names["INVENTORY_DIR"].endswith("/inventories/lab")


def test_two_labs_share_no_name_address_or_path():
    zero, one = json.loads(_layout_of(0).stdout), json.loads(_layout_of(1).stdout)
    assert one["ns"] == "maclab1-mac1" and one["MGMT_BRIDGE"] == "maclab1" and one["ip1"] == "198.18.1.11"
    for key in zero:
        assert zero[key] != one[key], key
    # Neither lab's names start with the other's prefixes: `down` of one never takes the other's.
    assert not one["ns"].startswith(zero["NETNS_PREFIX"]) and not zero["ns"].startswith(one["NETNS_PREFIX"])
    assert not one["veth"].startswith(zero["ROOT_VETH_PREFIX"])
    # Lab traffic stays in 198.18.0.0/15.
    assert one["CONTROLLER_IP"].startswith("198.18.")


@pytest.mark.parametrize("value", ["10", "-1", "one", ""])
def test_a_lab_number_outside_0_to_9_is_refused_naming_the_variable(value):
    proc = _layout_of(value)
    assert proc.returncode != 0 and "MACLAB_ID is %r: a lab number from 0 to 9" % value in proc.stderr


def test_shared_mount_points_go_with_the_last_lab(tmp_path, monkeypatch):
    points = (str(tmp_path / "Users"), str(tmp_path / "opt" / "homebrew"))
    monkeypatch.setattr(layout, "HOST_MOUNTPOINTS", points)
    monkeypatch.setattr(layout, "MOUNTPOINT_REGISTRY", str(tmp_path / "registry.json"))
    first, second = {"created_mountpoints": []}, {"created_mountpoints": []}
    monkeypatch.setattr(layout, "LAB_NUMBER", 0)
    lab_module._create_mountpoints(first)
    monkeypatch.setattr(layout, "LAB_NUMBER", 1)
    lab_module._create_mountpoints(second)  # finds them made: uses them, creates nothing
    with open(layout.MOUNTPOINT_REGISTRY) as handle:
        registry = json.load(handle)
    assert registry["labs"] == [0, 1]
    assert sorted(registry["created"]) == sorted([points[0], str(tmp_path / "opt"), points[1]])
    monkeypatch.setattr(layout, "LAB_NUMBER", 0)
    lab_module._release_mountpoints(first)  # the first lab down: lab 1's hosts still mount over them
    assert all(os.path.isdir(p) for p in points)
    monkeypatch.setattr(layout, "LAB_NUMBER", 1)
    lab_module._release_mountpoints(second)  # the last lab down: everything any lab made goes
    assert not any(os.path.exists(p) for p in points + (str(tmp_path / "opt"), layout.MOUNTPOINT_REGISTRY))
    assert sorted(os.listdir(str(tmp_path))) == []
