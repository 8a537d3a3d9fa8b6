"""tb_network's warnings for what it found changed since its last run and put back (the Thunderbolt
Bridge back, a service that lost its planned address) and for a loaded address-resetting daemon."""
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_problems import repaired_drift_problems

DAEMON = "/Library/LaunchDaemons/io.exo.networksetup.plist"
READDRESSED = [{"device": "en3", "service": "Thunderbolt 2", "was": {"method": "dhcp", "ip_address": None}}]


def applied(state_found=True, bridge_removed=False, readdressed=()):
    return {"state_found": state_found, "bridge_removed": bridge_removed, "readdressed": list(readdressed)}


def codes(problems):
    return [(p["code"], p["severity"], p.get("port")) for p in problems]


def test_nothing_put_back_and_no_daemon_is_no_problem():
    assert repaired_drift_problems("mac1", applied(), [DAEMON], []) == []


def test_the_bridge_back_and_a_lost_address_are_warnings_naming_the_host():
    problems = repaired_drift_problems("mac1", applied(bridge_removed=True, readdressed=READDRESSED), [], [])
    assert codes(problems) == [("tb_bridge_returned", "warning", "bridge0"), ("tb_address_reset", "warning", "en3")]
    assert all(p["host"] == "mac1" for p in problems)
    assert "Thunderbolt 2 had lost the planned address (found: dhcp)" in problems[1]["message"]


def test_a_first_run_puts_nothing_back_it_only_applies():
    # No state file yet: a bridge removed or an address set is the first apply, not drift.
    assert repaired_drift_problems("mac1", applied(False, True, READDRESSED), [], []) == []


def test_a_known_daemon_is_the_fix_of_a_lost_address_and_a_loaded_one_is_a_warning_of_its_own():
    problems = repaired_drift_problems("mac1", applied(readdressed=READDRESSED), [DAEMON], [DAEMON])
    assert codes(problems) == [("tb_address_reset", "warning", "en3"), ("tb_exo_networksetup_daemon", "warning", None)]
    assert DAEMON in problems[0]["fix"] and DAEMON in problems[1]["fix"]
