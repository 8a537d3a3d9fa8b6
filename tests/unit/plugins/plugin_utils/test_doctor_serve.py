"""doctor.yml's serving checks (plugins/plugin_utils/_doctor_serve.py): a node that serves needs its job loaded and
its supervisor not given up; rank 0's endpoint must answer a completion, a timeout being a hung rank."""
from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_checks import _verdict
from ansible_collections.macops.cluster.plugins.plugin_utils._doctor_serve import serving

CONFIG, STATUS, LABEL = "/state/serve/serve.json", "/state/serve/run/status.json", "org.macops.serve"


def node(rank=0, loaded=True, state="ready", config=True, **status):
    document = {"rank": rank, "model": "tiny", "endpoint": {"host": "198.18.0.11", "port": 8080, "url": "http://198.18.0.11:8080"} if rank == 0 else None}
    return {"files": {CONFIG: {"exists": config, "json": document if config else None},
                      STATUS: {"exists": True, "json": dict({"state": state, "generation": 3, "detail": "gave up: x"},
                                                            **status)}},
            "launchd": {LABEL: loaded}}


def settings(answer=None):
    return {"serve": {"config": CONFIG, "status": STATUS, "label": LABEL, "timeout": 10, "answer": answer}}


def found(results):
    return [(check["name"], check["ok"], problem["code"] if problem else None) for check, problem in results]


def test_a_node_that_serves_nothing_has_no_serving_check():
    assert serving("mac2", node(config=False), settings(), _verdict) == []


def test_a_loaded_job_and_an_answered_completion_pass():
    results = serving("mac1", node(), settings({"status": 200}), _verdict)
    assert found(results) == [("serving", True, None), ("serve_endpoint", True, None)]
    assert found(serving("mac2", node(rank=1), settings({"status": 200}), _verdict)) == [("serving", True, None)]


def test_a_job_not_loaded_is_a_stopped_rank_and_a_supervisor_that_gave_up_is_not_ready():
    assert found(serving("mac3", node(rank=2, loaded=False), settings(), _verdict)) == [
        ("serving", False, "serve_rank_stopped")]
    assert found(serving("mac3", node(rank=2, state="failed"), settings(), _verdict)) == [
        ("serving", False, "serve_not_ready")]


def test_a_completion_that_times_out_is_a_hung_server_and_a_503_says_the_supervisor_s_state():
    hung = serving("mac1", node(), settings({"status": -1, "msg": "Status code was -1: timed out"}), _verdict)
    assert found(hung)[1] == ("serve_endpoint", False, "serve_hung") and hung[1][1]["port"] == "8080"
    busy = serving("mac1", node(), settings({"status": 503, "json": {"state": "restarting"}}), _verdict)
    assert found(busy)[1] == ("serve_endpoint", False, "serve_not_ready") and "restarting" in busy[1][1]["message"]


# What ansible.builtin.uri says (captured from ansible-core's uri against a closed port and against a socket that
# takes the connection and never answers): urllib's connect error is wrapped, a read that timed out is not.
REFUSED = {"status": -1, "msg": "Request failed: <urlopen error [Errno 111] Connection refused>"}
DROPPED = {"status": -1, "msg": "Request failed: <urlopen error timed out>"}
NO_ANSWER = {"status": -1, "msg": "Connection failure: timed out"}


def test_a_completion_that_never_connected_is_unreachable_not_a_hung_server():
    """Issue 49: a controller the serving firewall does not admit (its connect dropped) or a closed port: nothing saw
    the request, so not serve_hung; a request that connected and got no answer stays the server's."""
    for answer, why in ((DROPPED, "timed out"), (REFUSED, "[Errno 111] Connection refused")):
        found_ = serving("mac1", node(), settings(answer), _verdict)
        assert found(found_)[1] == ("serve_endpoint", False, "serve_unreachable"), found_
        assert found_[1][1]["details"]["error"] == why and "serve_allowed_networks" in found_[1][1]["message"]
    assert found(serving("mac1", node(), settings(NO_ANSWER), _verdict))[1] == ("serve_endpoint", False, "serve_hung")


def test_a_503_because_nothing_moves_is_a_hung_server_with_the_supervisor_s_words():
    """Issue 47: from half of serve_stall_timeout the endpoint refuses requests at once (state stalled) instead of
    letting doctor.yml's completion hang: that is the hung rank doctor.yml reports, not a model that is not ready."""
    answer = {"status": 503, "json": {"state": "stalled", "error": {"message": "nothing has moved for 47 s"}}}
    stalled = serving("mac1", node(), settings(answer), _verdict)
    assert found(stalled)[1] == ("serve_endpoint", False, "serve_hung")
    assert "nothing has moved for 47 s" in stalled[1][1]["message"] and stalled[1][1]["port"] == "8080"


def test_a_completion_that_times_out_behind_moving_requests_is_a_busy_server_not_a_hung_one():
    timed_out = settings({"status": -1, "msg": "Status code was -1: timed out"})
    busy = serving("mac1", node(in_flight=3, quiet_since=None), timed_out, _verdict)
    assert found(busy)[1] == ("serve_endpoint", True, None) and "3 request(s) in flight" in busy[1][0]["detail"]
    still = serving("mac1", node(in_flight=3, quiet_since=1765000000.0), timed_out, _verdict)
    assert found(still)[1] == ("serve_endpoint", False, "serve_hung")  # requests in flight, but nothing moves
