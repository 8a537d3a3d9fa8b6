"""route -n get (plugins/module_utils/_route.py): the interface to a peer and the default route; a route without an
interface refused."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._route import parse_route_get

from fixture_files import read_fixture


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
