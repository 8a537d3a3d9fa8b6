"""serve-model.yml's section of the one report (plugins/plugin_utils/_serve_section.py): the endpoint, the ranks
and the first figures for people, the same in data for machines, and serve_not_ready when no completion came."""
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_section import (measured_rate, serve_problems,
                                                                                    serve_section)

PLAN = {"model": {"name": "tiny", "runtime": "mlx-lm", "mode": "pipeline"}, "backend": "ring", "split": [3, 2, 2, 1],
        "leader": "mac1", "endpoint": {"host": "198.18.0.11", "port": 8080, "url": "http://198.18.0.11:8080"},
        "ranks": [{"rank": r, "host": "mac%d" % (r + 1), "layers": [8 - sum([3, 2, 2, 1][:r + 1]),
                                                                   8 - sum([3, 2, 2, 1][:r])], "path": "/m/tiny"}
                  for r in range(4)]}
STATUS = {"state": "ready", "generation": 2, "restarts": 1, "time_to_ready": 9.5, "last_failure": None}


def serve(**changes):
    return dict({"state": "started", "plan": PLAN, "status": STATUS, "ready": {"status": 200},
                 "measured": {"status": 200, "elapsed": 2, "json": {"usage": {"completion_tokens": 64}}}}, **changes)


def test_a_ready_model_shows_its_endpoint_ranks_and_first_rate():
    section = serve_section(serve())
    assert section["operation"] == "serve" and section["data"]["ready"] is True
    assert section["data"]["measured"] == {"tokens": 64, "seconds": 2.0, "tokens_per_second": 32.0}
    assert section["summary"][0] == "tiny at http://198.18.0.11:8080: READY, mlx-lm over ring on 4 rank(s)"
    assert [row[:3] for row in section["tables"][0]["rows"]] == [["0", "mac1", "5-7"], ["1", "mac2", "3-4"],
                                                                 ["2", "mac3", "1-2"], ["3", "mac4", "0-0"]]
    assert "[3, 2, 2, 1]" in section["notes"][0] and serve_problems(serve()) == []


def test_no_completion_is_serve_not_ready_with_the_supervisor_s_last_failure():
    status = dict(STATUS, state="failed", last_failure={"message": "rank 3 (mac4) exited with status 0"})
    found = serve_problems(serve(ready={"status": 503, "json": {"state": "failed"}}, status=status, measured={}))
    assert [(p["code"], p["host"]) for p in found] == [("serve_not_ready", "mac1")]
    assert "rank 3 (mac4) exited" in found[0]["message"] and measured_rate({}) is None


def test_a_completion_the_controller_could_not_send_is_serve_unreachable_not_serve_not_ready():
    """Issue 49: the serving firewall dropped the controller's connect (another subnet): not the server's fault."""
    dropped = {"status": -1, "msg": "Request failed: <urlopen error timed out>"}
    [found] = serve_problems(serve(ready=dropped, measured={}))
    assert (found["code"], found["host"], found["details"]["url"]) == ("serve_unreachable", "mac1", PLAN["endpoint"][
        "url"])
    waited = serve_problems(serve(ready={"status": -1, "msg": "Connection failure: timed out"}, measured={}))
    assert [p["code"] for p in waited] == ["serve_not_ready"]


def test_a_model_that_answers_once_then_refuses_the_timed_completion_is_serve_not_ready_with_the_endpoint_s_error():
    refused = {"status": 503, "msg": "Status code was 503 and not [200]: HTTP Error 503: Service Unavailable",
               "json": {"error": {"message": "The model is not answering now (restarting); try again shortly.",
                                  "type": "model_not_ready"}}}
    status = dict(STATUS, state="restarting", last_failure={"message": "exo's API on port 52415 did not answer"})
    found = serve_problems(serve(measured=refused, status=status))
    assert [(p["code"], p["host"]) for p in found] == [("serve_not_ready", "mac1")]
    assert "then failed the next (status 503: The model is not answering now (restarting)" in found[0]["message"]
    assert "exo's API on port 52415 did not answer" in found[0]["message"]
    lost = serve_problems(serve(measured={"status": -1, "msg": "Connection reset by peer"}))
    assert "status -1: Connection reset by peer" in lost[0]["message"]
    section = serve_section(serve(measured=refused))
    assert section["data"]["measured"] is None and not any("first measured" in line for line in section["summary"])


def test_a_stopped_model_or_a_check_run_reports_no_problem():
    assert serve_section(serve(state="stopped"))["title"] == "Serving: stopped"
    assert serve_problems(serve(state="stopped", ready={})) == []
    assert serve_problems(serve(check_mode=True, ready={})) == []


def test_the_rate_uses_the_endpoint_s_own_milliseconds_not_uri_s_whole_seconds():
    """A completion under a second: uri's elapsed is 0 (whole seconds), the endpoint's header has the time."""
    quick = {"status": 200, "elapsed": 0, "x_macops_seconds": "0.640", "json": {"usage": {"completion_tokens": 64}}}
    assert measured_rate(quick) == {"tokens": 64, "seconds": 0.64, "tokens_per_second": 100.0}
    older = {"status": 200, "elapsed": 2, "json": {"usage": {"completion_tokens": 64}}}  # a front without the header
    assert measured_rate(older)["tokens_per_second"] == 32.0
