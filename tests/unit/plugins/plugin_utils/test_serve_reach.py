"""Whether the controller reached the serving endpoint at all (plugins/plugin_utils/_serve_reach.py): urllib's
reason when uri never connected, None when a server answered or the answer is not uri's; and the serve_unreachable
problem naming the URL and the reason, on the node and port given."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_reach import could_not_connect, unreachable_problem

REFUSED = {"status": -1, "msg": "Request failed: <urlopen error [Errno 111] Connection refused>"}


@pytest.mark.parametrize("answer, reason", [
    (REFUSED, "[Errno 111] Connection refused"),
    ({"status": -1, "msg": "Request failed: <urlopen error >"}, "no connection"),
    ({"status": -1, "msg": "Connection failure: timed out"}, None),  # connected, then no answer in time
    ({"status": 503, "msg": "Request failed: <urlopen error x>"}, None),
    ({"status": -1}, None),
    ("not an answer", None),
    (None, None),
])
def test_only_an_answer_that_never_connected_gives_a_reason(answer, reason):
    assert could_not_connect(answer) == reason


def test_an_answer_that_never_connected_is_serve_unreachable_naming_url_and_reason():
    found = unreachable_problem(REFUSED, "http://198.18.0.11:8080/v1/models", "mac1", "8080")
    assert is_problem(found) and (found["code"], found["host"], found["port"]) == ("serve_unreachable", "mac1", "8080")
    assert "could not connect to http://198.18.0.11:8080/v1/models ([Errno 111] Connection refused)" in found["message"]
    assert found["details"] == {"url": "http://198.18.0.11:8080/v1/models", "error": "[Errno 111] Connection refused"}
    assert unreachable_problem({"status": 200}, "http://198.18.0.11:8080", "mac1") is None
