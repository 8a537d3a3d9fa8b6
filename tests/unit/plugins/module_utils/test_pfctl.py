"""pfctl -s info and pfctl -a ANCHOR -s rules parsers: valid and invalid outputs as data."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils import _pfctl
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


@pytest.mark.parametrize("fixture, expected", [
    ("pfctl/info_enabled.txt", {"enabled": True, "status": "Enabled for 0 days 00:12:34"}),
    ("pfctl/info_disabled.txt", {"enabled": False, "status": "Disabled for 0 days 00:00:41"}),
    # The ALTQ notices on stdout (as a terminal shows them merged) come before the status line.
    ("pfctl/info_with_altq_notice.txt", {"enabled": True, "status": "Enabled for 3 days 01:02:03"}),
])
def test_info(fixture, expected):
    assert _pfctl.parse_info(read_fixture(fixture)) == expected


@pytest.mark.parametrize("text", ["Status: Disabled\n", "Status: Disabled                              Debug: Urgent\n"])
def test_info_without_duration(text):
    assert _pfctl.parse_info(text) == {"enabled": False, "status": "Disabled"}


@pytest.mark.parametrize("text, reason", [
    ("", "the output is empty"),
    (read_fixture("pfctl/not_root.txt"), "no `Status: Enabled/Disabled` line"),
    ("Status: Unknown\n", "no `Status: Enabled/Disabled` line"),
    # "Enabledness" is not a status word.
    ("Status: Enabledness\n", "no `Status: Enabled/Disabled` line"),
])
def test_info_malformed(text, reason):
    with pytest.raises(ParseError) as error:
        _pfctl.parse_info(text)
    assert reason in str(error.value) and "pfctl -s info" in str(error.value)


def test_rules():
    rules = _pfctl.parse_rules(read_fixture("pfctl/anchor_rules.txt"))
    assert len(rules) == 5
    assert rules[0] == "pass in quick on lo0 all flags S/SA keep state"
    assert rules[-1] == "block drop in quick inet proto tcp from any to any port = 52416"


@pytest.mark.parametrize("text", ["", "\n\n", None, "No ALTQ support in kernel\nALTQ related functions disabled\n"])
def test_no_rules(text):
    assert _pfctl.parse_rules(text) == []
