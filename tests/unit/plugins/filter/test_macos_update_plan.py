"""macops.cluster.macos_update_plan (update-macos.yml's plan, run once on the controller): the filter hands the
nodes' reads, the owners and the settings to the planner as they come, and a read that is not node_facts' is a
filter error saying so, not a traceback."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.macos_update_plan import FilterModule, macos_update_plan
from ansible_collections.macops.cluster.plugins.plugin_utils._update_plan import update_plan

from update_cluster import SETTINGS, cluster, owners


def test_the_filter_gives_the_planner_s_plan():
    planned = macos_update_plan(cluster(), owners(), SETTINGS)
    assert planned == update_plan(cluster(), owners(), SETTINGS)
    assert planned["target"]["build"] == "25D60" and planned["waves"][0] == ["mac1"]


@pytest.mark.parametrize("reads", [{"mac1": None}, {"mac1": "not a read"},
                                   {"mac1": {"macos": {"version": "26.2", "build": "25C56"}, "updates": "none"}}])
def test_a_read_that_is_not_node_facts_is_a_filter_error(reads):
    with pytest.raises(AnsibleFilterError, match="^macos_update_plan: not every node's read is node_facts'"):
        macos_update_plan(reads, owners(), SETTINGS)


def test_the_filter_is_registered_under_its_name():
    assert FilterModule().filters() == {"macos_update_plan": macos_update_plan}
