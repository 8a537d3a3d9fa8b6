"""node_count (exo_health's and node_facts' count) reads exo's /state shape (camelCase, 1.0.x) and never guesses."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._exo_health import node_count

IDS = ["12D3KooWA", "12D3KooWB", "12D3KooWC"]


@pytest.mark.parametrize("state, count", [
    ({"topology": {"nodes": IDS, "connections": []}}, 3),
    ({"topology": {"nodes": [{"nodeId": i} for i in IDS] + [{"nodeId": IDS[0]}]}}, 3),
    ({"topology": {"nodes": {i: {} for i in IDS[:2]}}}, 2),
    ({"topology": {"nodes": []}, "nodeIdentities": {i: {"friendlyName": i} for i in IDS}}, 3),
    ({"nodeIdentities": {IDS[0]: {}}}, 1),
    ({"instances": {}}, 0),
    ({}, 0),
    (None, 0),
    ("<html>502</html>", 0),
])
def test_counts_distinct_nodes(state, count):
    assert node_count(state) == count
