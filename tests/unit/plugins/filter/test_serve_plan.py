"""macops.cluster.serve_plan as a filter: a node read it cannot plan from is a filter error, not a traceback
(the plan itself: plugin_utils/test_serve_plan.py)."""
import copy

import pytest

from ansible_collections.macops.cluster.plugins.filter.serve_plan import serve_plan

from serve_fixture import SETTINGS, facts


@pytest.mark.parametrize("broken", [{"mac1": None}, {"mac1": "not a dict"}])
def test_a_broken_read_is_a_filter_error_not_a_traceback(broken):
    from ansible.errors import AnsibleFilterError
    nodes = copy.deepcopy(facts())
    nodes.update(broken)
    with pytest.raises(AnsibleFilterError):
        serve_plan(nodes, SETTINGS)
