"""`lsof -nP -iTCP -sTCP:LISTEN -Fpcn` (_lsof.py): every listener with its process, IPv4 and IPv6 of one
socket once each, none on exit status 1, output that is not lsof's field format refused naming the command;
and which listeners hold a port an address needs."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils._lsof import holders, parse
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


def test_every_listener_with_the_process_that_holds_it():
    found = parse(read_fixture("lsof/listening.txt"))
    assert found[0] == {"pid": 412, "command": "ControlCe", "address": "*", "port": 7000}
    # one socket on IPv4 and IPv6 at once (two file descriptors, one name) is listed once
    assert [(e["command"], e["port"]) for e in found].count(("ControlCe", 7000)) == 1
    assert {"pid": 598, "command": "cupsd", "address": "::1", "port": 631} in found
    assert [(e["pid"], e["address"], e["port"]) for e in found if e["command"] == "Python"] == [
        (1733, "198.18.0.11", 8080), (1733, "198.18.0.11", 8081)]
    assert len(found) == 9


def test_no_listener_is_exit_status_1_with_nothing_printed():
    assert parse("", rc=1) == [] and parse("") == []


@pytest.mark.parametrize("text, rc, words", [
    ("p12\nccupsd\nn*:ipp\n", 0, "not ADDRESS:PORT"),
    ("n*:8080\n", 0, "before any process"),
    ("pabc\n", 0, "not a number"),
    ("", 2, "exit status 2"),
    ("lsof: WARNING: can't stat() fuse file system\n", 1, "exit status 1"),
])
def test_output_that_is_not_lsofs_field_format_is_refused(text, rc, words):
    with pytest.raises(ParseError) as caught:
        parse(text, rc)
    assert words in str(caught.value) and "lsof -nP -iTCP -sTCP:LISTEN -Fpcn" in str(caught.value)


def test_a_port_is_held_where_the_address_meets_the_listener():
    found = parse(read_fixture("lsof/listening.txt"))
    assert [e["pid"] for e in holders(found, 7000, "198.18.0.11")] == [412]  # * takes every address
    assert holders(found, 631, "198.18.0.11") == [] and [e["pid"] for e in holders(found, 631, "::1")] == [598]
    assert [e["pid"] for e in holders(found, 18080)] == [1790]  # every address: any listener on the port
    assert holders(found, 9999) == []
