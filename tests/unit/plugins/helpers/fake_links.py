"""A fake Mac for the cable check (route, ping, networksetup), with one cable of mac1's to mac2 over en3."""
from fixture_files import read_fixture
from module_harness import FakeMac

NS = "/usr/sbin/networksetup"
PORTS = [NS, "-listallhardwareports"]


def ok(fixture):
    return (0, read_fixture(fixture), "")


ROUTE = "/sbin/route"
PING = "/sbin/ping"


def link_mac(peer_route="route/peer_on_en3.txt", ping=("ping/macos_two_replies.txt", 0), default=(0, "route/default_en0.txt")):
    ping_fixture, ping_rc = ping
    default_rc, default_fixture = default
    return FakeMac([
        (PORTS, ok("networksetup/listallhardwareports_studio.txt")),
        ([ROUTE, "-n", "get", "default"], (default_rc, read_fixture(default_fixture) if default_fixture else "",
                                           "route: writing to routing socket: not in table\n" if default_rc else "")),
        ([ROUTE, "-n", "get", "198.19.0.2"], ok(peer_route) if peer_route else (1, "", "not in table")),
        ([PING, "-c", "2", "-t", "3", "198.19.0.2"], (ping_rc, read_fixture(ping_fixture), "")),
    ])


LINK = {"interface": "en3", "peer_ip": "198.19.0.2", "peer_host": "mac2"}
