"""Parsers for ifconfig, route -n get and ping summaries (the Thunderbolt link checks)."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils._ifconfig import dotted_netmask, parse_interface
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._ping import parse_summary
from ansible_collections.macops.cluster.plugins.module_utils._route import parse_route_get
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_plan import plan_links, select_peers


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


def test_route_to_peer():
    route = parse_route_get(read_fixture("route/peer_on_en3.txt"))
    assert route["interface"] == "en3"
    assert route["gateway"] is None
    assert route["destination"] == "198.19.0.0"


def test_default_route():
    route = parse_route_get(read_fixture("route/default_en0.txt"))
    assert (route["interface"], route["gateway"], route["route_to"]) == ("en0", "10.0.1.1", "default")


def test_route_without_interface_is_an_error():
    with pytest.raises(ParseError):
        parse_route_get("   route to: 198.19.0.2\ndestination: 198.19.0.0\n")


@pytest.mark.parametrize("fixture, summary", [
    ("ping/macos_two_replies.txt", {"transmitted": 2, "received": 2}),
    ("ping/macos_no_reply.txt", {"transmitted": 2, "received": 0}),
    ("ping/iputils_one_reply.txt", {"transmitted": 2, "received": 1}),
])
def test_ping_summary(fixture, summary):
    assert parse_summary(read_fixture(fixture)) == summary


def test_ping_without_summary():
    assert parse_summary("ping: sendto: No route to host\n") is None


PLAN = '{"hosts": {"mac1": {"en4": {"peer_ip": "198.19.0.6", "peer_host": "mac3"}, "en3": {"peer_ip": "198.19.0.2"}}}}'


def test_plan_links_sorted_by_device():
    assert plan_links(PLAN, "mac1") == [{"interface": "en3", "peer_ip": "198.19.0.2", "peer_host": None},
                                        {"interface": "en4", "peer_ip": "198.19.0.6", "peer_host": "mac3"}]
    assert [link["interface"] for link in plan_links(PLAN, "mac1", "bridge0")] == ["bridge0", "bridge0"]
    assert plan_links(PLAN, "mac2") == [] and plan_links("{}", "mac1") == []


def test_select_peers():
    links = plan_links(PLAN, "mac1")
    assert select_peers(links, None) == links
    assert [link["peer_host"] for link in select_peers(links, ["mac3"])] == ["mac3"]


@pytest.mark.parametrize("text, message", [
    ("{", "not JSON"),
    ("[]", "no 'hosts' object"),
    ('{"hosts": []}', "no 'hosts' object"),
    ('{"hosts": {"mac1": []}}', "hosts.mac1 is not an object"),
    ('{"hosts": {"mac1": {"en3": {"peer_host": "mac2"}}}}', "hosts.mac1.en3 has no peer_ip"),
])
def test_plan_links_rejects(text, message):
    with pytest.raises(PlanError, match=message):
        plan_links(text, "mac1")
