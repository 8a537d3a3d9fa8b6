"""update-macos.yml's section of the one report (plugins/plugin_utils/_update_section.py): each node's old and new
build and its outcome, where the cluster stands after a failure, and the problems that say so; it validates
against the report's one schema."""
import json

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._update_plan import update_outcome
from ansible_collections.macops.cluster.plugins.plugin_utils._update_section import update_problems, update_section

from report_fixture import healthy_inputs
from report_schema import assert_valid_report

TARGET = {"version": "26.3", "build": "25D60", "label": "macOS Tahoe 26.3-25D60", "title": "macOS Tahoe 26.3",
          "size_bytes": 4000000000}


def plan(installing=("mac1", "mac2", "mac3", "mac4")):
    nodes = dict((h, {"from_version": "26.2", "from_build": "25C56", "install": h in installing, "says": ""})
                 for h in ("mac1", "mac2", "mac3", "mac4"))
    waves = [[installing[0]], list(installing[1:])] if installing else []
    return {"target": TARGET, "nodes": nodes, "waves": waves, "strategy": "canary_parallel", "problems": []}


def back(build="25D60", waited=12.5, deadline=False):
    return {"changed": True, "rebooted": True, "build": build, "waited": waited, "restarted_by_deadline": deadline}


# Serving stopped for the installs at 128.0 (a run whose download failed records no stop: NOT_STOPPED).
TIMES = {"started": 100.0, "downloading": 104.0, "installing": 130.0, "installed": 166.5, "done": 178.0,
         "stops": [128.0], "backs": []}
NOT_STOPPED = dict(TIMES, stops=[])


def update(results, **changes):
    return dict({"check_mode": False, "plan": plan(), "results": results, "times": TIMES, "serving": None,
                 "serve_answer": {}}, **changes)


def test_every_node_updated_shows_old_and_new_builds_and_the_phases():
    section = update_section(update(dict((h, back()) for h in ("mac1", "mac2", "mac3", "mac4"))))
    assert section["summary"][0] == "4 updated, 0 failed, 0 untouched, 0 already on 25D60"
    assert section["summary"][1] == "plan 4 s, downloads 26 s while serving, installs 36 s, after 12 s"
    assert section["tables"][0]["rows"][0] == ["mac1", "26.2 (25C56)", "25D60", "updated", "12.5", "-"]
    assert section["data"]["phases"] == {"plan": 4.0, "download": 26.0, "install": 36.5, "after": 11.5}
    assert update_problems(update(dict((h, back()) for h in ("mac1", "mac2", "mac3", "mac4")))) == []


def test_a_failed_canary_leaves_the_others_untouched_and_says_where_the_cluster_stands():
    failed = {"failed": True, "msg": "softwareupdate stopped without restarting: Failed to authenticate"}
    results = {"mac1": failed, "mac2": None, "mac3": None, "mac4": None}
    outcome = update_outcome(plan(), results)
    assert (outcome["failed"], outcome["untouched"], outcome["one_build"]) == (["mac1"], ["mac2", "mac3", "mac4"],
                                                                             True)
    [found] = update_problems(update(results))
    assert (found["code"], found["host"]) == ("macos_update_failed", "mac1")
    assert "Failed to authenticate" in found["message"] and "untouched: mac2, mac3, mac4" in found["message"]
    assert "so serving and exo run again" in found["message"]
    section = update_section(update(results, serving={"endpoint": {"url": "http://198.18.0.11:8080"}},
                                    serve_answer={"status": 200}))
    assert section["data"]["nodes"]["mac2"]["outcome"] == "untouched"
    assert section["data"]["serving"] == {"endpoint": "http://198.18.0.11:8080", "answered": True,
                                          "down_seconds": 50.0, "between_waves": False}


def test_serving_s_downtime_is_from_its_stop_for_the_installs_to_the_report():
    """Issue 48: serving stops only for the installs (the downloads ran while it served)."""
    results = dict((h, back()) for h in ("mac1", "mac2", "mac3", "mac4"))
    served = {"endpoint": {"url": "http://198.18.0.11:8080"}, "hosts": ["mac1"]}
    section = update_section(update(results, serving=served, serve_answer={"status": 200}))
    assert section["data"]["serving"]["down_seconds"] == 50.0 and section["data"]["phases"]["download"] == 26.0
    assert section["summary"][-1].endswith("answering again through http://198.18.0.11:8080 after 50 s down in all "
                                           "(stopped for the installs only)")
    silent = update_section(update(results, serving=served, serve_answer={"status": -1}))
    assert silent["data"]["serving"]["down_seconds"] is None
    never = update_section(update(results, serving=served, serve_answer={"status": 200}, times=NOT_STOPPED))
    assert never["data"]["serving"]["down_seconds"] is None


def test_a_failure_after_the_canary_updated_splits_the_builds_and_serving_stays_stopped():
    results = {"mac1": back(), "mac2": {"failed": True, "msg": "it did not come back"}, "mac3": back(),
               "mac4": back(deadline=True)}
    outcome = update_outcome(plan(), results)
    assert outcome["one_build"] is False and outcome["updated"] == ["mac1", "mac3", "mac4"]
    codes = [(p["code"], p["host"]) for p in update_problems(update(results))]
    assert codes == [("macos_update_failed", "mac2"), ("macos_update_restarted_by_deadline", "mac4")]
    assert "stay stopped" in update_problems(update(results))[0]["message"]


def test_check_mode_and_nothing_to_install_say_so():
    predicted = update_section(update({}, check_mode=True))
    assert predicted["summary"][0].startswith("check mode: 4 node(s) would install macOS Tahoe 26.3-25D60 in 2 wave")
    nothing = update_section(update({}, plan=dict(plan(()), target=None)))
    assert nothing["title"] == "macOS update: nothing to install" and update_problems(update({}, plan=plan(()))) == []


@pytest.mark.parametrize("results", [{}, {"mac1": back(), "mac2": {"failed": True, "msg": "x"}}])
def test_the_section_validates_against_the_one_schema(results):
    nodes, topology = healthy_inputs()
    model = build_report_model(nodes, topology, sections=[update_section(update(results))])
    assert_valid_report(json.loads(json.dumps(model)))


def test_serving_that_does_not_answer_after_the_update_is_serve_not_ready():
    served = {"endpoint": {"url": "http://198.18.0.11:8080"}, "hosts": ["mac1", "mac2", "mac3", "mac4"]}
    results = dict((h, back()) for h in ("mac1", "mac2", "mac3", "mac4"))
    [found] = update_problems(update(results, serving=served, serve_answer={"status": -1, "msg": "timed out"}))
    assert (found["code"], found["host"]) == ("serve_not_ready", "mac1") and "timed out" in found["message"]
    assert update_problems(update(results, serving=served, serve_answer={"status": 200})) == []
    # A download that failed stops the run before serving stops: nothing to wait for, no serve_not_ready.
    refused = {"mac1": {"failed": True, "msg": "its download stopped: Failed to authenticate; nothing was installed"}}
    [found] = update_problems(update(refused, serving=served, times=NOT_STOPPED))
    assert found["code"] == "macos_update_failed" and found["message"].endswith(
        "every node still runs one build, and serving and exo never stopped.")
    # Builds split after a failure: serving stays stopped on purpose, macos_update_failed says so.
    split = dict(results, mac2={"failed": True, "msg": "x"})
    assert [p["code"] for p in update_problems(update(split, serving=served))] == ["macos_update_failed"]


def test_a_stalled_install_a_node_that_did_not_come_back_and_failed_settings_each_say_so_by_code():
    stalled = {"failed": True, "code": "macos_update_stalled", "reachable": True,
               "msg": "no progress from the install for 1200 s (downloading 40 %)"}
    gone = {"failed": True, "reachable": False, "restarted_by_deadline": True, "rebooted": False,
            "msg": "it did not come back within 900 s of its restart"}
    results = {"mac1": back(), "mac2": stalled, "mac3": gone, "mac4": back()}
    outcome = update_outcome(plan(), results)
    assert (outcome["failed"], outcome["unreachable"], outcome["one_build"]) == (["mac2", "mac3"], ["mac3"], False)
    found = update_problems(update(results, settings={"mac1": "pfctl -f failed", "mac2": None}))
    assert [(p["code"], p["host"]) for p in found] == [
        ("macos_update_stalled", "mac2"), ("macos_update_failed", "mac3"), ("macos_update_settings_failed", "mac1")]
    assert "stay stopped and disabled" in found[0]["message"]


def test_serving_back_between_waves_counts_only_its_down_time_and_the_canary_s_verdict_is_in_the_section():
    """Issue 48: over MLX's ring (TCP) serving comes back after the canary's wave (at 140.0) and stops again for the
    next (at 150.0); the canary's regression stops the rollout with the others untouched, serving running across."""
    served = {"endpoint": {"url": "http://198.18.0.11:8080"}, "hosts": ["mac1"]}
    ring_plan = dict(plan(), canary={"host": "mac1", "between_waves": True, "compare": "canary",
                                     "max_regression_percent": 10.0, "why": "ring runs over TCP"})
    results = dict((h, back()) for h in ("mac1", "mac2", "mac3", "mac4"))
    times = dict(TIMES, stops=[128.0, 150.0], backs=[140.0])
    section = update_section(update(results, plan=ring_plan, serving=served, serve_answer={"status": 200}, times=times))
    assert section["data"]["serving"] == {"endpoint": "http://198.18.0.11:8080", "answered": True,
                                          "down_seconds": 40.0, "between_waves": True}
    assert section["summary"][-1].endswith("after 40 s down in all (stopped for the installs only, back between waves)")
    regressed = {"mac1": back(), "mac2": None, "mac3": None, "mac4": None}
    slower = {"code": "macos_update_regression", "severity": "error", "host": "mac1", "port": None, "peer": None,
              "message": "The served model answered at 10.0 tokens/s with only mac1 on the new build", "fix": "-",
              "details": {}}
    canary = {"host": "mac1", "when": "canary", "before": 40.0, "after": 10.0, "problems": [slower]}
    stopped = update(regressed, plan=ring_plan, serving=served, serve_answer={"status": 200},
                     times=dict(TIMES, stops=[128.0], backs=[140.0]), canary=canary)
    assert update_problems(stopped) == [slower]
    section = update_section(stopped)
    assert section["data"]["canary"] == {"host": "mac1", "when": "canary", "before": 40.0, "after": 10.0}
    assert "canary mac1 did NOT prove the cluster (40.0 tokens/s before, 10.0 after): macos_update_regression" in (
        section["summary"])
    assert ("updated: mac1; untouched: mac2, mac3, mac4; the nodes run different builds; serving and exo run across "
            "them over TCP") in " ".join(section["summary"])
    assert section["data"]["serving"]["down_seconds"] == 12.0
    # Serving that did not answer between waves stays down from its first stop to its next answer.
    unanswered = dict(TIMES, stops=[128.0, 150.0], backs=[170.0], done=180.0)
    assert update_section(update(results, plan=ring_plan, serving=served, serve_answer={"status": 200},
                                 times=unanswered))["data"]["serving"]["down_seconds"] == 42.0
    failed_back = update(regressed, plan=ring_plan, serving=served, serve_answer={"status": 200},
                         serve_back_failed={"mac3": "launchctl: 5", "mac2": None})
    assert [(p["code"], p["host"]) for p in update_problems(failed_back)] == [("serve_not_ready", "mac3")]
    # Over RDMA the figures are compared after the last wave; the canary keeps its node in the report.
    compared = {"host": None, "when": "after", "before": 40.0, "after": 38.0, "problems": []}
    both = update_section(update(results, plan=ring_plan, serving=served, serve_answer={"status": 200},
                                 canary=dict(canary, before=None, after=None, problems=[]), compared=compared))
    assert both["data"]["canary"] == {"host": "mac1", "when": "after", "before": 40.0, "after": 38.0}
    nodes, topology = healthy_inputs()
    assert_valid_report(json.loads(json.dumps(build_report_model(nodes, topology, sections=[section]))))
