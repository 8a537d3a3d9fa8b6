"""networksetup parsers."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils import _networksetup as ns
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

VALID_HARDWARE_PORTS = [
    ("networksetup/listallhardwareports_studio.txt", {
        "Ethernet": "en0", "Wi-Fi": "en1", "Thunderbolt Bridge": "bridge0",
        "Thunderbolt 1": "en2", "Thunderbolt 2": "en3", "Thunderbolt 3": "en4",
        "Thunderbolt 4": "en5", "Thunderbolt 5": "en6", "Thunderbolt 6": "en7",
    }),
    ("networksetup/listallhardwareports_mini.txt", {
        "Ethernet": "en0", "Wi-Fi": "en1", "Thunderbolt Bridge": "bridge0",
        "Thunderbolt 1": "en2", "Thunderbolt 2": "en3", "Thunderbolt 3": "en4",
    }),
    ("networksetup/listallhardwareports_macbook_pro.txt", {
        "Wi-Fi": "en0", "Thunderbolt Bridge": "bridge0",
        "Thunderbolt 1": "en1", "Thunderbolt 2": "en2", "Thunderbolt 3": "en3",
    }),
]
INVALID_HARDWARE_PORTS = [
    ("", "the output is empty"),
    ("networksetup/listallhardwareports_no_device.txt", "has no `Device:` line"),
    ("networksetup/listallhardwareports_garbage.txt", "unexpected line"),
    ("Device: en0\n", "comes before any `Hardware Port:` line"),
    ("\nVLAN Configurations\n===================\n", "no `Hardware Port:` entries"),
]


@pytest.mark.parametrize("fixture, expected", VALID_HARDWARE_PORTS)
def test_hardware_ports(fixture, expected):
    ports = ns.parse_hardware_ports(read_fixture(fixture))
    assert ns.device_by_port_name(ports) == expected


def test_hardware_ports_macs_and_order():
    ports = ns.parse_hardware_ports(read_fixture("networksetup/listallhardwareports_studio.txt"))
    assert ports[0] == {"name": "Ethernet", "device": "en0", "mac": "3c:a6:f6:10:22:01"}
    assert ports[-1] == {"name": "Thunderbolt 6", "device": "en7", "mac": "36:5e:0b:41:7c:06"}


def test_hardware_ports_stop_at_vlan_trailer():
    text = "Hardware Port: Ethernet\nDevice: en0\nEthernet Address: N/A\n\nVLAN Configurations\n===================\nDevice: vlan0\n"
    assert ns.parse_hardware_ports(text) == [{"name": "Ethernet", "device": "en0", "mac": None}]


@pytest.mark.parametrize("fixture, reason", INVALID_HARDWARE_PORTS)
def test_hardware_ports_reject(fixture, reason):
    text = read_fixture(fixture) if fixture.endswith(".txt") else fixture
    with pytest.raises(ParseError, match="networksetup -listallhardwareports") as error:
        ns.parse_hardware_ports(text)
    assert reason in error.value.reason


def test_service_order():
    assert ns.parse_service_order(read_fixture("networksetup/listnetworkserviceorder.txt")) == [
        {"order": 1, "name": "Ethernet", "enabled": True, "hardware_port": "Ethernet", "device": "en0"},
        {"order": 2, "name": "Thunderbolt 2", "enabled": True, "hardware_port": "Thunderbolt 2", "device": "en3"},
        {"order": 3, "name": "Office VPN", "enabled": True, "hardware_port": "Office VPN", "device": None},
        {"order": None, "name": "Thunderbolt Bridge", "enabled": False, "hardware_port": "Thunderbolt Bridge", "device": "bridge0"},
    ]


@pytest.mark.parametrize("text", [
    "",
    "(1) Ethernet\n(Hardware Port: Ethernet, Device: en0)\n",
    ns.DISABLED_NOTE + "\n(Hardware Port: Ethernet, Device: en0)\n",
    ns.DISABLED_NOTE + "\n(1) Ethernet\nsomething else\n",
])
def test_service_order_rejects(text):
    with pytest.raises(ParseError, match="networksetup -listnetworkserviceorder"):
        ns.parse_service_order(text)


def test_all_services():
    assert ns.parse_all_services(read_fixture("networksetup/listallnetworkservices.txt")) == [
        {"name": "Ethernet", "enabled": True},
        {"name": "Thunderbolt 2", "enabled": True},
        {"name": "Thunderbolt Bridge", "enabled": False},
    ]


def test_all_services_rejects_missing_header():
    with pytest.raises(ParseError, match="networksetup -listallnetworkservices"):
        ns.parse_all_services("Ethernet\n")


@pytest.mark.parametrize("text, enabled", [("Enabled\n", True), ("Disabled\n", False)])
def test_service_enabled(text, enabled):
    assert ns.parse_service_enabled(text) is enabled


@pytest.mark.parametrize("text", ["", "enabled maybe\n"])
def test_service_enabled_rejects(text):
    with pytest.raises(ParseError, match="networksetup -getnetworkserviceenabled"):
        ns.parse_service_enabled(text)


@pytest.mark.parametrize("fixture, expected", [
    ("networksetup/getinfo_manual.txt", {
        "method": "manual", "ip_address": "198.19.0.1", "subnet_mask": "255.255.255.252",
        "router": None, "ipv6": "Automatic", "mac": "36:5e:0b:41:7c:02"}),
    ("networksetup/getinfo_dhcp_no_lease.txt", {
        "method": "dhcp", "ip_address": None, "subnet_mask": None,
        "router": None, "ipv6": "Automatic", "mac": "36:5e:0b:41:7c:03"}),
])
def test_getinfo(fixture, expected):
    assert ns.parse_getinfo(read_fixture(fixture)) == expected


@pytest.mark.parametrize("text, reason", [
    ("", "the output is empty"),
    (read_fixture("networksetup/getinfo_unknown_service.txt"), "is not a recognized network service"),
    ("IPv6: Automatic\n", "neither a `<Method> Configuration` line"),
])
def test_getinfo_rejects(text, reason):
    with pytest.raises(ParseError, match="networksetup -getinfo") as error:
        ns.parse_getinfo(text)
    assert reason in error.value.reason


def test_getmtu():
    assert ns.parse_mtu("Active MTU: 9000 (Current Setting: 1500)\n") == {"active": 9000, "current": 1500}


@pytest.mark.parametrize("text", ["", "MTU 1500\n", "Could not find hardware port or device named en9.\n"])
def test_getmtu_rejects(text):
    with pytest.raises(ParseError, match="networksetup -getMTU"):
        ns.parse_mtu(text)
