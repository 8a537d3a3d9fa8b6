"""macops.cluster MLX smoke test: import mlx.core, then one all_sum across every rank.

Each rank contributes rank + 1, so the sum (N * (N + 1) / 2) proves every rank took part.
Prints one JSON line per rank; exits 1 when the sum is wrong. Run by the mlx role, either under
`mlx.launch --backend ring` or with MLX_RANK and MLX_HOSTFILE set directly."""
import json
import os
import sys
import time


def main():
    started = time.time()
    import mlx.core as mx

    distributed = bool(os.environ.get("MLX_HOSTFILE"))
    group = mx.distributed.init(strict=distributed, backend="ring")
    rank, size = group.rank(), group.size()
    summed = mx.distributed.all_sum(mx.full((1024,), float(rank + 1)), group=group)
    mx.eval(summed)
    expected = size * (size + 1) / 2.0
    ok = bool(mx.all(summed == expected).item())
    print(json.dumps({"rank": rank, "size": size, "sum": float(summed[0].item()), "expected": expected,
                      "ok": ok, "mlx": mx.__version__, "seconds": round(time.time() - started, 3)}))
    sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
