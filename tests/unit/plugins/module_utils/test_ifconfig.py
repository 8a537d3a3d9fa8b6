"""ifconfig's parser (plugins/module_utils/_ifconfig.py): bridge members and status, addresses with hex and
dotted netmasks; invalid output refused."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._ifconfig import dotted_netmask, parse_interface
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture


def test_bridge_members_and_status():
    bridge = parse_interface(read_fixture("ifconfig/bridge0_two_members.txt"))
    assert (bridge["name"], bridge["up"], bridge["mtu"]) == ("bridge0", True, 1500)
    assert bridge["members"] == ["en2", "en3"]
    assert bridge["status"] == "active"
    assert bridge["inet"] == []


def test_port_address_with_hex_netmask():
    port = parse_interface(read_fixture("ifconfig/en3_planned.txt"))
    assert port["mtu"] == 9000
    assert port["inet"] == [{"address": "198.19.0.1", "netmask": "255.255.255.252", "broadcast": "198.19.0.3"}]
    assert port["members"] == []


@pytest.mark.parametrize("hex_mask, dotted", [("0xfffffffc", "255.255.255.252"), ("0xffff0000", "255.255.0.0"),
                                              ("0xffffffff", "255.255.255.255")])
def test_dotted_netmask(hex_mask, dotted):
    assert dotted_netmask(hex_mask) == dotted


@pytest.mark.parametrize("text", ["", "ifconfig: interface bridge0 does not exist\n",
                                  "en3: flags=8863<UP> mtu 1500\nen4: flags=8863<UP> mtu 1500\n"])
def test_interface_rejects(text):
    with pytest.raises(ParseError):
        parse_interface(text)
