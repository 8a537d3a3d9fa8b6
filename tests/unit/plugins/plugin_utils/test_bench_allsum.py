"""The allsum suite's results (plugins/plugin_utils/_bench_allsum.py): the slowest rank's time, bus bandwidth as
nccl-tests defines it, every rank's sum checked, a size that did not run or a rank that did not report named."""
import json

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._bench_allsum import allsum_results, rank_lines


def line(rank, size_bytes, seconds, ok=True, ranks=4):
    expected = ranks * (ranks + 1) / 2.0
    return json.dumps({"rank": rank, "size": ranks, "backend": "ring", "bytes": size_bytes, "elements": size_bytes // 4,
                       "dtype": "float32", "seconds": seconds, "iters": 5, "chain": 10, "warmup": 3,
                       "sum": expected if ok else expected - 1, "expected": expected, "ok": ok, "mlx": "0.32.4"})


def run(size_bytes, lines, rc=0, stderr=""):
    return {"size": size_bytes, "rc": rc, "stdout": "\n".join(lines) + "\n", "stderr": stderr}


def test_the_slowest_rank_counts_and_bus_bandwidth_is_two_n_minus_one_over_n():
    lines = [line(rank, 1 << 20, seconds) for rank, seconds in enumerate([0.001, 0.002, 0.0015, 0.001])]
    results, problems = allsum_results({"ring": [run(1 << 20, lines)]}, "mac1")
    assert problems == []
    (entry,) = results
    assert entry["latency_us"] == pytest.approx(2000.0)
    assert entry["algo_gbytes_per_s"] == pytest.approx((1 << 20) / 0.002 / 1e9, rel=1e-3)
    assert entry["bus_gbytes_per_s"] == pytest.approx(entry["algo_gbytes_per_s"] * 1.5, rel=1e-3)
    assert entry["ok"] and entry["ranks_reported"] == [0, 1, 2, 3] and entry["sums"] == [10.0]


def test_a_wrong_sum_or_a_silent_rank_is_an_error_at_that_size():
    wrong = [line(rank, 4096, 0.0001, ok=rank != 2) for rank in range(4)]
    silent = [line(rank, 16384, 0.0001) for rank in range(3)]
    results, problems = allsum_results({"ring": [run(4096, wrong, rc=1), run(16384, silent)]}, "mac1")
    assert [r["ok"] for r in results] == [False, False]
    assert [p["code"] for p in problems] == ["bench_allsum_wrong_sum", "bench_allsum_wrong_sum"]
    assert "ranks [0, 1, 2] reported" in problems[1]["message"] and problems[0]["host"] == "mac1"


def test_a_size_that_did_not_run_names_the_launchers_words():
    results, problems = allsum_results({"jaccl": [run(4096, [], rc=1, stderr="Couldn't allocate protection domain")]},
                                       "mac1")
    assert results == [] and [p["code"] for p in problems] == ["bench_allsum_failed"]
    assert "jaccl at 4096 bytes" in problems[0]["message"] and "protection domain" in problems[0]["message"]
    assert problems[0]["details"] == {"backend": "jaccl", "bytes": 4096}


def test_only_json_lines_are_read():
    text = "[mac2] warning: something\n" + line(0, 4096, 0.1) + "\nnot json {\n{broken\n"
    assert [entry["rank"] for entry in rank_lines(text)] == [0]
