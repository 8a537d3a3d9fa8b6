"""ping's summary (plugins/module_utils/_ping.py), with and without one."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._ping import parse_summary

from fixture_files import read_fixture


@pytest.mark.parametrize("fixture, summary", [
    ("ping/macos_two_replies.txt", {"transmitted": 2, "received": 2}),
    ("ping/macos_no_reply.txt", {"transmitted": 2, "received": 0}),
    ("ping/iputils_one_reply.txt", {"transmitted": 2, "received": 1}),
])
def test_ping_summary(fixture, summary):
    assert parse_summary(read_fixture(fixture)) == summary


def test_ping_without_summary():
    assert parse_summary("ping: sendto: No route to host\n") is None
