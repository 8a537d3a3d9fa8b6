"""macops.cluster.macos_update_canary: the canary's checks are doctor's own on its read; the served figure, the
best of a few timed completions, may not fall more than macos_update_max_regression_percent; no answer on the new
build is serve_not_ready; a read that is not node_facts' is a filter error."""
import copy

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.macos_update_canary import macos_update_canary
from ansible_collections.macops.cluster.plugins.module_utils._problems import REGISTRY
from ansible_collections.macops.cluster.plugins.plugin_utils._update_canary import canary_plan

from doctor_sweep import NO_REPLY, healthy_sweep
from update_cluster import RING, WAVES, timed

PLAN_FILE = "/Library/Application Support/macops/thunderbolt-plan.json"


def planned(serving=RING, percent=10, strategy="canary_parallel"):
    return {"canary": canary_plan(WAVES, strategy, serving, percent)}


def test_a_healthy_canary_within_the_margin_proves_the_cluster():
    verdict = macos_update_canary(planned(), [timed(16.0), timed(32.0)], [timed(29.0)], healthy_sweep(), PLAN_FILE)
    assert verdict == {"host": "mac1", "when": "canary", "before": 32.0, "after": 29.0, "problems": []}


def test_a_canary_that_serves_slower_than_the_margin_is_a_regression_naming_the_figures():
    [found] = macos_update_canary(planned(), [timed(40.0)], [timed(10.0), timed(9.0)], healthy_sweep(),
                                  PLAN_FILE)["problems"]
    assert (found["code"], found["host"], found["severity"]) == ("macos_update_regression", "mac1", "error")
    assert "10.0 tokens/s with only mac1 on the new build, against 40.0 before the update: 75 % slower" in (
        found["message"])
    assert "macos_update_regression" in REGISTRY and found["fix"]
    # 0 compares nothing; a larger margin accepts the drop.
    assert macos_update_canary(planned(percent=0), [timed(40.0)], [timed(10.0)], healthy_sweep(),
                               PLAN_FILE)["problems"] == []
    assert macos_update_canary(planned(percent=80), [timed(40.0)], [timed(10.0)], healthy_sweep(),
                               PLAN_FILE)["problems"] == []


def test_the_canary_s_own_checks_are_doctor_s_and_its_errors_stop_the_rollout():
    sweep = healthy_sweep()
    sweep["links"]["problems"] = [NO_REPLY]
    # RDMA off after the restart where the rdma role's hostfile promised it; a wired limit that differs is a
    # warning (update-macos.yml sets it again after the last wave), not a reason to stop.
    sweep["rdma"] = {"enabled": False, "ready": False, "problems": [dict(NO_REPLY, code="rdma_disabled", port=None,
                                                                         peer=None, message="RDMA is disabled")]}
    sweep["files"] = {"/Library/Application Support/macops/hostfile-jaccl.json": {"exists": True}}
    sweep["wired_limit"]["live_mb"] = 0
    found = macos_update_canary(planned(serving=None), None, None, sweep, PLAN_FILE)["problems"]
    assert [(p["code"], p["host"], p["port"]) for p in found] == [("rdma_disabled", "mac1", None),
                                                                   ("tb_link_no_reply", "mac1", "en4")]
    # An update can reset the Thunderbolt settings, which the run sets again after the last wave: where they differ
    # from the plan, those differences and the cables they silence do not stop the rollout; RDMA still does.
    reset = copy.deepcopy(sweep)
    reset["network"] = {"plan_found": True, "differences": ["en4: 198.19.0.5 -> none"], "problems": [
        dict(NO_REPLY, code="tb_address_differs", message="en4 lost its address")]}
    assert [p["code"] for p in macos_update_canary(planned(serving=None), None, None, reset, PLAN_FILE)[
        "problems"]] == ["rdma_disabled"]
    # A cluster site.yml never addressed has no plan to check the canary's cables against: a warning, no stop.
    unplanned = copy.deepcopy(healthy_sweep())
    unplanned["links"].update(plan_found=False, planned_links=0, links=[])
    assert macos_update_canary(planned(serving=None), None, None, unplanned, PLAN_FILE)["problems"] == []
    # A canary whose checks could not run (its read failed, it stopped answering, the run lost it) does not pass.
    for read, said in (({"failed": True, "msg": "sudo: a password is required"}, "sudo: a password is required"),
                       ({"unreachable": True, "msg": "ssh: connect to host"}, "ssh: connect to host"),
                       ({"changed": False}, "holds none of its checks"), (None, "the run lost it")):
        [failed] = macos_update_canary(planned(serving=None), None, None, read)["problems"]
        assert failed["code"] == "macos_update_failed" and said in failed["message"], read


def test_no_answer_with_the_canary_on_the_new_build_is_serve_not_ready():
    [found] = macos_update_canary(planned(), [timed(40.0)], [{"status": 503, "json": {}}], healthy_sweep(),
                                  PLAN_FILE)["problems"]
    assert found["code"] == "serve_not_ready" and "with mac1 on the new build" in found["message"]


def test_after_the_last_wave_the_same_comparison_is_reported_for_every_node():
    verdict = macos_update_canary(planned(serving=dict(RING, backend="jaccl")), [timed(40.0)], [timed(12.0)],
                                  when="after")
    assert (verdict["when"], verdict["host"]) == ("after", None)
    assert "with every node on the new build" in verdict["problems"][0]["message"]


def test_a_read_that_is_not_node_facts_is_a_filter_error():
    with pytest.raises(AnsibleFilterError):
        macos_update_canary({"canary": "not a dict"}, None, None, healthy_sweep(), PLAN_FILE)
