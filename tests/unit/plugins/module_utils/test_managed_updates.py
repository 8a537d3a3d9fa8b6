"""_managed_updates: the MDM enrollment as `profiles status -type enrollment` prints it (the lines the update tool super
and Fleet's agent match), a restrictions profile's deferrals and what softwareupdated's DDM state enforces."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _managed_updates
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

ENROLLED = "Enrolled via DEP: Yes\nMDM enrollment: Yes (User Approved)\nMDM server: https://example.com/mdm/ServerURL\n"
NOT_ENROLLED = "Enrolled via DEP: No\nMDM enrollment: No\n"


def test_an_enrolled_mac_names_its_server_and_how_it_enrolled():
    assert _managed_updates.parse_enrollment(ENROLLED) == {
        "enrolled": True, "dep": True, "user_approved": True, "server": "https://example.com/mdm/ServerURL"}
    # Enrolled by hand, not approved by the user: "Yes" alone.
    assert _managed_updates.parse_enrollment("Enrolled via DEP: No\nMDM enrollment: Yes\n") == {
        "enrolled": True, "dep": False, "user_approved": False, "server": None}


def test_a_mac_no_mdm_manages_is_not_enrolled_and_other_output_is_refused():
    assert _managed_updates.parse_enrollment(NOT_ENROLLED)["enrolled"] is False
    with pytest.raises(ParseError):
        _managed_updates.parse_enrollment("profiles: command not supported\n")


def test_a_restrictions_profile_defers_by_its_days_or_thirty_when_it_names_none():
    assert _managed_updates.restriction_deferrals({}) == {"minor": None, "major": None, "other": None}
    minor = {"forceDelayedSoftwareUpdates": True, "enforcedSoftwareUpdateMinorOSDeferredInstallDelay": 14}
    assert _managed_updates.restriction_deferrals(minor) == {"minor": 14, "major": None, "other": 30}
    older = {"forceDelayedSoftwareUpdates": True, "enforcedSoftwareUpdateDelay": 7,
             "forceDelayedMajorSoftwareUpdates": True}
    assert _managed_updates.restriction_deferrals(older) == {"minor": 7, "major": 7, "other": 7}
    # A delay without its force flag defers nothing.
    assert _managed_updates.restriction_deferrals({"enforcedSoftwareUpdateDelay": 7})["minor"] is None


def test_ddm_state_lists_each_enforced_install_soonest_first_and_its_deferral_periods():
    state = {"SUCorePersistedStatePolicyFields": {
        "Declarations": {
            "later": {"TargetOSVersion": "26.5", "TargetLocalDateTime": "2027-01-20T02:00:00"},
            "sooner": {"TargetOSVersion": "26.4", "TargetBuildVersion": "25E246", "TargetLocalDateTime":
                       "2026-12-10T02:00:00", "DetailsURL": "https://example.com/update"}},
        "SUCoreDDMDeclarationGlobalSettings": {"minorOSDeferralPeriod": 21, "majorOSDeferralPeriod": 0}},
        "SUCorePersistedStateCoreVersion": "2.1.0"}
    found = _managed_updates.ddm_state(state)
    assert found["enforced"] == [
        {"version": "26.4", "build": "25E246", "at": "2026-12-10T02:00:00", "details_url": "https://example.com/update"},
        {"version": "26.5", "build": None, "at": "2027-01-20T02:00:00", "details_url": None}]
    assert found["deferrals"] == {"major": None, "minor": 21, "system": None}
    # Nothing enforced: the file as softwareupdated leaves it (a capture of macOS 14.2.1's).
    empty = {"SUCorePersistedStatePolicyFields": {"Declarations": {}}, "SUCorePersistedStateCoreVersion": "2.1.0"}
    assert _managed_updates.ddm_state(empty) == {"enforced": [], "deferrals": {"major": None, "minor": None,
                                                                               "system": None}}


def test_the_managed_fact_takes_the_longer_deferral_of_profile_and_ddm():
    enrollment = _managed_updates.parse_enrollment(ENROLLED)
    state = {"SUCorePersistedStatePolicyFields": {"SUCoreDDMDeclarationGlobalSettings": {"minorOSDeferralPeriod": 21,
                                                                                        "systemUpdatesDeferralPeriod": 3}}}
    found = _managed_updates.managed(enrollment, {"forceDelayedSoftwareUpdates": True,
                                                  "enforcedSoftwareUpdateDelay": 14}, state)
    assert found["deferred_days"] == {"minor": 21, "major": None, "other": 14}
    assert found["enrolled"] and found["enforced"] == []
