"""The planned peers doctor compares the cables with (plugins/plugin_utils/_doctor_cabling.py): the union of the
swept nodes' copies of the applied plan that are a plan."""
import copy

from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_cabling import planned_peers

from doctor_sweep import PLAN_FILE, three_studios_with_mac3_not_answering


def test_the_planned_peers_are_the_union_of_the_copies_that_are_a_plan():
    sweeps, _ = three_studios_with_mac3_not_answering()
    older = copy.deepcopy(sweeps["mac2"])
    del older["files"][PLAN_FILE]["json"]["hosts"]["mac3"]
    older["files"][PLAN_FILE]["json"]["hosts"]["mac1"]["en5"]["peer_host"] = "mac9"
    broken = copy.deepcopy(sweeps["mac2"])
    broken["files"][PLAN_FILE]["json"] = {"hosts": {"mac1": {"en3": {"peer_host": "mac2"}}}}
    peers = planned_peers({"mac1": sweeps["mac1"], "mac2": older, "mac4": broken,
                           "mac5": {"unreachable": True}}, PLAN_FILE)
    # mac1's copy comes first and wins; mac2's older one adds nothing new; a copy with an end
    # without its address (no plan) adds nothing at all.
    assert peers == {("mac1", "en3"): "mac2", ("mac1", "en5"): "mac3", ("mac2", "en3"): "mac1",
                     ("mac2", "en4"): "mac3", ("mac3", "en4"): "mac2", ("mac3", "en5"): "mac1"}
    assert planned_peers({"mac4": broken}, PLAN_FILE) == {} and planned_peers({}, PLAN_FILE) == {}
