"""pmset -g parser and the change computation behind macops.cluster.pmset."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils import _pmset
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


def test_parse_keeps_names_with_spaces_and_strips_notes():
    parsed = _pmset.parse(read_fixture("pmset/studio_default.txt"))
    assert parsed["settings"]["Sleep On Power Button"] == "1"
    assert parsed["settings"]["sleep"] == "1"
    assert parsed["notes"] == {"sleep": "sleep prevented by sharingd, powerd"}
    assert parsed["settings"]["womp"] == "1"
    assert len(parsed["settings"]) == 12
    assert parsed["system_wide"] == {}


def test_parse_separates_system_wide_settings_and_paths():
    parsed = _pmset.parse(read_fixture("pmset/macbook_battery.txt"))
    assert parsed["system_wide"] == {"SleepDisabled": "0"}
    assert parsed["settings"]["hibernatefile"] == "/var/vm/sleepimage"
    assert parsed["settings"]["lidwake"] == "1"
    assert "SleepDisabled" not in parsed["settings"]


@pytest.mark.parametrize("text, reason", [
    ("", "the output is empty"),
    (read_fixture("pmset/usage.txt"), "unexpected line 'Usage: pmset <options>'"),
    ("System-wide power settings:\n SleepDisabled 0\n", "no 'Currently in use:' section"),
    ("Currently in use:\n sleep\n", "unexpected line 'sleep'"),
])
def test_parse_rejects(text, reason):
    with pytest.raises(ParseError) as error:
        _pmset.parse(text)
    assert reason in error.value.reason


def test_differences_compare_text_and_ignore_settings_not_asked_for():
    current = _pmset.parse(read_fixture("pmset/studio_default.txt"))["settings"]
    wanted = _pmset.validate({"sleep": 0, "disksleep": 0, "displaysleep": 10, "autorestart": True, "womp": True})
    assert wanted == {"sleep": "0", "disksleep": "0", "displaysleep": "10", "autorestart": "1", "womp": "1"}
    assert _pmset.differences(current, wanted) == {"autorestart": "1", "disksleep": "0", "sleep": "0"}
    converged = _pmset.parse(read_fixture("pmset/studio_cluster.txt"))["settings"]
    assert _pmset.differences(converged, wanted) == {}


def test_a_setting_the_mac_does_not_report_is_a_difference():
    assert _pmset.differences({"sleep": "0"}, {"sleep": "0", "womp": "1"}) == {"womp": "1"}


@pytest.mark.parametrize("wanted, reason", [
    ({"-a": 1}, "'-a' is not a pmset setting name"),
    ({"sleep now": 1}, "'sleep now' is not a pmset setting name"),
    ({"sleep": "0; reboot"}, "'0; reboot' is not a value pmset accepts for sleep"),
    ({"sleep": ""}, "'' is not a value pmset accepts for sleep"),
])
def test_validate_rejects_what_pmset_would_misread(wanted, reason):
    with pytest.raises(ValueError, match=reason.replace("(", r"\(")):
        _pmset.validate(wanted)


def test_set_argv_is_sorted_and_absolute():
    assert _pmset.set_argv("/usr/bin/pmset", "a", {"sleep": "0", "autorestart": "1"}) == \
        ["/usr/bin/pmset", "-a", "autorestart", "1", "sleep", "0"]
