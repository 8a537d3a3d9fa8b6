"""macops.cluster.mlx_backend: input that is not the planner's is the planner's error, raised again as a filter
error naming the filter."""
import pytest

from ansible_collections.macops.cluster.plugins.filter import mlx_backend as mlx_backend_filter
from ansible_collections.macops.cluster.plugins.plugin_utils._mlx_backend import choose_backend
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError


@pytest.mark.parametrize("topology, rdma, message", [
    ({}, {}, "expected the result of macops.cluster.thunderbolt_topology"),
    ({"hostfiles": {}}, [], "rdma must be a dict"),
])
def test_bad_input_is_a_filter_error(topology, rdma, message):
    with pytest.raises(TopologyError, match=message):
        choose_backend(topology, rdma)
    from ansible.errors import AnsibleFilterError
    with pytest.raises(AnsibleFilterError, match="mlx_backend: " + message):
        mlx_backend_filter.mlx_backend(topology, rdma)
