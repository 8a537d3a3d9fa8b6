"""macops.cluster.power_changes: from preflight's node read (pmset -g as macops.cluster.pmset parses it, the automatic
update keys), only the settings a node does not have yet; without that read, all of them."""
import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.power_changes import FilterModule, power_changes
from ansible_collections.macops.cluster.plugins.module_utils import _pmset

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures", "pmset")
WANTED = {"sleep": 0, "disksleep": 0, "displaysleep": 10, "autorestart": True, "womp": True}
UPDATES = {"AutomaticCheckEnabled": True, "AutomaticallyInstallMacOSUpdates": False, "CriticalUpdateInstall": False,
           "SplatEnabled": False}


def _settings(fixture, auto_updates):
    with open(os.path.join(FIXTURES, fixture)) as handle:
        power = _pmset.parse(handle.read())["settings"]
    return {"power": power, "auto_updates": auto_updates}


def test_a_converged_node_needs_nothing():
    settings = _settings("studio_cluster.txt", dict(UPDATES))
    assert settings["power"]["sleep"] == "0" and settings["power"]["autorestart"] == "1"  # what the fixture holds
    assert power_changes(settings, WANTED, UPDATES) == {"pmset": {}, "software_update": {}}


def test_a_mac_as_it_ships_needs_the_settings_that_differ_with_their_wanted_values():
    settings = _settings("studio_default.txt", {"AutomaticCheckEnabled": True, "AutomaticallyInstallMacOSUpdates": True,
                                                "CriticalUpdateInstall": None, "SplatEnabled": False})
    changes = power_changes(settings, WANTED, UPDATES)
    differing = dict((name, WANTED[name]) for name in WANTED
                     if settings["power"].get(name) != _pmset.normalize_value(WANTED[name]))
    assert differing and changes["pmset"] == differing
    # A key the file does not set (None) is written too; one already right is not.
    assert changes["software_update"] == {"AutomaticallyInstallMacOSUpdates": False, "CriticalUpdateInstall": False}


def test_a_value_with_a_note_counts_as_its_value():
    settings = {"power": {"sleep": "0", "disksleep": "0", "displaysleep": "10", "autorestart": "1", "womp": "1"},
                "auto_updates": dict(UPDATES)}
    settings["power"]["sleep"] = _pmset.parse(" Currently in use:\n sleep                1 (sleep prevented by powerd)\n"
                                              )["settings"]["sleep"]
    assert power_changes(settings, WANTED, UPDATES)["pmset"] == {"sleep": 0}


@pytest.mark.parametrize("settings", [None, {}, {"power": None, "auto_updates": None}])
def test_without_the_read_every_setting_goes_to_the_modules(settings):
    assert power_changes(settings, WANTED, UPDATES) == {"pmset": WANTED, "software_update": UPDATES}


def test_a_setting_pmset_cannot_take_is_an_error_naming_it():
    with pytest.raises(AnsibleFilterError, match="is not a value pmset accepts for sleep"):
        power_changes(None, {"sleep": "soon please"}, UPDATES)


def test_the_filter_is_registered_under_its_name():
    assert FilterModule().filters()["power_changes"] is power_changes
