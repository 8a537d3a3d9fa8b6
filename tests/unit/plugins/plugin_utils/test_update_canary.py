"""update-macos.yml's canary (plugins/plugin_utils/_update_canary.py): serving comes back between waves only where it
runs across two builds (MLX's ring over TCP, not RDMA); the best of the timed completions counts."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._update_canary import best_rate, serving_between_waves

from update_cluster import RING, WAVES, timed


@pytest.mark.parametrize("serving, waves, between", [
    (RING, WAVES, True),
    (dict(RING, backend="jaccl"), WAVES, False),
    (dict(RING, backend="jaccl-ring"), WAVES, False),
    (None, WAVES, False),
    (RING, [["mac1", "mac2"]], False),  # one wave: serving comes back after it anyway
    (dict(RING, runtime="exo"), WAVES, False),  # exo needs one build on every node
])
def test_serving_comes_back_between_waves_only_where_it_runs_across_two_builds(serving, waves, between):
    decided = serving_between_waves(serving, waves)
    assert decided["between_waves"] is between and decided["why"].startswith(decided["reason"])


def test_the_best_of_the_timed_completions_counts_and_a_failed_one_does_not():
    assert best_rate([timed(20.0), timed(32.0), {"status": 503, "json": {}}]) == 32.0
    assert best_rate([{"status": -1, "msg": "timed out"}]) is None and best_rate(None) is None
