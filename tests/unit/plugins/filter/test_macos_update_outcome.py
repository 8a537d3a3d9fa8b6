"""macops.cluster.macos_update_outcome (update-macos.yml's record of where the installs left the cluster): the
filter takes the nodes' results first and the plan second, as a template writes them, and a plan or a result it
cannot read is a filter error naming it, not a traceback."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.macos_update_outcome import FilterModule, macos_update_outcome

PLAN = {"nodes": {"mac1": {"install": True, "from_build": "25C56"}, "mac2": {"install": True, "from_build": "25C56"},
                  "mac3": {"install": False, "from_build": "25D60"}}}


def test_the_results_come_first_and_the_plan_second():
    outcome = macos_update_outcome({"mac1": {"rebooted": True, "build": "25D60"}, "mac2": None}, PLAN)
    assert (outcome["updated"], outcome["untouched"], outcome["current"]) == (["mac1"], ["mac2"], ["mac3"])
    assert outcome["one_build"] is False  # mac2 is still on 25C56
    failed = macos_update_outcome({"mac1": {"failed": True, "reachable": False}, "mac2": {"build": "25D60"}}, PLAN)
    assert (failed["failed"], failed["unreachable"], failed["updated"]) == (["mac1"], ["mac1"], ["mac2"])


@pytest.mark.parametrize("results, plan", [({}, {"nodes": ["mac1"]}), ({}, "not a plan"), ("not results", PLAN)])
def test_what_is_not_a_plan_or_results_is_a_filter_error(results, plan):
    with pytest.raises(AnsibleFilterError, match="^macos_update_outcome: "):
        macos_update_outcome(results, plan)


def test_the_filter_is_registered_under_its_name():
    assert FilterModule().filters() == {"macos_update_outcome": macos_update_outcome}
