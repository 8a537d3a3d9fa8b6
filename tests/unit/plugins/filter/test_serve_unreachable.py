"""macops.cluster.serve_unreachable (reboot-cluster.yml's served-model check): urllib's reason when the controller
never connected to the endpoint, nothing when it connected (an HTTP status, or no answer in time)."""
import pytest

from ansible_collections.macops.cluster.plugins.filter.serve_unreachable import serve_unreachable


@pytest.mark.parametrize("answer, reason", [
    ({"status": -1, "msg": "Request failed: <urlopen error [Errno 111] Connection refused>"},
     "[Errno 111] Connection refused"),
    ({"status": -1, "msg": "Request failed: <urlopen error timed out>"}, "timed out"),
    ({"status": -1, "msg": "Connection failure: timed out"}, ""),
    ({"status": 503, "msg": "OK (unknown bytes)"}, ""),
    ({"status": 200}, ""),
    ({}, ""),
])
def test_only_a_request_that_never_connected_is_unreachable(answer, reason):
    assert serve_unreachable(answer) == reason
