"""mlx_lm.benchmark, unchanged, then every rank held until all are done.

mlx-lm's benchmark (0.32) lets each rank exit as soon as its own trials end. In a pipelined run
the ranks finish a step apart, and generation has already queued the next step's send and
receive: a rank that exits closes its sockets under its peer, which fails with "[ring]
connection to a peer was lost" and loses the output it had not flushed (rank 0 prints the
results). Seen on 2 to 4 ranks of the lab in most runs of 3 trials or more; with this final
all_sum over every rank it did not happen in any run. Output is line-buffered so a rank that
fails still shows what it printed."""
import sys

import mlx.core as mx
from mlx_lm import benchmark


def main():
    sys.stdout.reconfigure(line_buffering=True)
    sys.argv[0] = "mlx_lm.benchmark"
    try:
        benchmark.main()
    finally:
        group = mx.distributed.init()
        if group.size() > 1:
            mx.eval(mx.distributed.all_sum(mx.array(1.0), stream=mx.cpu))


if __name__ == "__main__":
    main()
