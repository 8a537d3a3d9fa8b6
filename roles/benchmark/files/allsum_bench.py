"""macops.cluster all_sum sweep: latency and bus bandwidth of MLX's all_sum per message size.

Run under `mlx.launch --hostfile HOSTFILE --backend BACKEND -- allsum_bench.py --sizes ...` with the
virtual environment's Python. Timing follows MLX's own distributed benchmarks
(`benchmarks/python/distributed_bench.py` and `synchronize_bench.py` in ml-explore/mlx): the ranks
are aligned with one all_sum first (MLX has no barrier), the
input is evaluated before the clock starts, `--warmup` calls are discarded, then each timed call
chains `--chain` all_sums in one graph (one eval amortises the launch overhead) and is repeated
`--iters` times. Collectives of the ring and jaccl backends run on the CPU stream.

Each rank contributes rank + 1, so the first all_sum gives S = N (N + 1) / 2 on every element; each
chained call sums the previous result divided by N, so the value stays S: the last result is
checked, at every size. Every rank prints one JSON line per size (its own clock); exit 1 when a sum
was wrong.
"""
import argparse
import json
import sys
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", required=True, help="comma-separated message sizes in bytes")
    parser.add_argument("--backend", default="ring")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--chain", type=int, default=10)
    args = parser.parse_args()

    import mlx.core as mx

    group = mx.distributed.init(strict=True, backend=args.backend)
    rank, size = group.rank(), group.size()
    if size < 2:
        print(json.dumps({"rank": rank, "size": size, "error": "a group of one: nothing crosses a cable"}))
        return 1
    cpu = mx.cpu
    # Align the ranks: a barrier made of one small all_sum, as mlx-lm and exo do.
    mx.eval(mx.distributed.all_sum(mx.array(1.0), group=group, stream=cpu))
    expected = size * (size + 1) / 2.0
    wrong = False
    for size_bytes in [int(s) for s in args.sizes.split(",") if s]:
        elements = max(1, size_bytes // 4)
        start_value = mx.full((elements,), float(rank + 1), dtype=mx.float32)
        mx.eval(start_value)

        def chained(value):
            value = mx.distributed.all_sum(value, group=group, stream=cpu)
            for link in range(args.chain - 1):
                value = mx.distributed.all_sum(value / size, group=group, stream=cpu)
            return value

        for warm in range(args.warmup):
            mx.eval(chained(start_value))
        mx.eval(mx.distributed.all_sum(mx.array(1.0), group=group, stream=cpu))
        started = time.perf_counter()
        result = None
        for timed in range(args.iters):
            result = chained(start_value)
            mx.eval(result)
        seconds = (time.perf_counter() - started) / (args.iters * args.chain)
        ok = bool(mx.all(mx.abs(result - expected) <= 1e-3 * expected).item())
        wrong = wrong or not ok
        print(json.dumps({"rank": rank, "size": size, "backend": args.backend, "bytes": elements * 4,
                          "elements": elements, "dtype": "float32", "seconds": seconds, "iters": args.iters,
                          "chain": args.chain, "warmup": args.warmup, "sum": float(result[0].item()),
                          "expected": expected, "ok": ok, "mlx": mx.__version__}))
        sys.stdout.flush()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
