"""The benchmark's problem codes (plugins/module_utils/_benchmark_problems.py): bench_ codes of the benchmark area,
each in the one registry as its own entry."""
from ansible_collections.macops.cluster.plugins.module_utils._benchmark_problems import BENCHMARK_CODES

from registry_check import check_part


def test_the_benchmark_codes_are_bench_codes_of_the_one_registry():
    check_part("benchmark", ("bench_",), ("benchmark",))
    assert BENCHMARK_CODES["bench_link_below_baseline"]["severity"] in ("error", "warning")
