"""macops.cluster.benchmark_plan (benchmark.yml's plan from the node facts, run once on the controller): a model
missing on a node is an error naming the node and the variable before any suite runs, and HPL is planned only when
asked, a gap in the facts stopping the run."""
from ansible_collections.macops.cluster.plugins.filter.benchmark_plan import benchmark_plan

from generate_fixture import HOSTS, MODEL, files_of
from hpl_fixture import MACS


def test_a_model_missing_on_a_node_is_an_error_naming_the_node_and_the_variable():
    plan = benchmark_plan({}, HOSTS, models=[MODEL + "/"], model_files=files_of(["mac1", "mac2", "mac4"]),
                          generate_backend="ring")
    assert plan["generate"] == []
    (found,) = plan["problems"]
    assert found["code"] == "bench_model_missing" and found["host"] == "mac3" and found["severity"] == "error"
    assert "benchmark_generate_models" in found["message"] and MODEL in found["message"]


def test_the_benchmark_plan_plans_hpl_only_when_asked_and_a_gap_in_the_facts_stops_the_run():
    from ansible_collections.macops.cluster.plugins.filter.benchmark_plan import benchmark_plan

    assert benchmark_plan({}, ["mac1", "mac2"], macs=MACS)["hpl"] is None
    plan = benchmark_plan({}, ["mac1", "mac2"], hpl=True, hpl_nb=256, macs=MACS)
    assert plan["hpl"]["ranks"] == 48 and plan["hpl"]["hpl_dat"].count("\n") == 31 and plan["problems"] == []
    assert plan["macs"] == MACS
    broken = benchmark_plan({}, ["mac1", "mac3"], hpl=True, macs=MACS)
    assert broken["hpl"] is None and [p["code"] for p in broken["problems"]] == ["bench_hpl_failed"]
    assert "lack the memory of mac3" in broken["problems"][0]["message"]
