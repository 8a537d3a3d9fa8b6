"""One rank of the served model: mlx-lm's own server, with the deployment's layer split.

mlx-lm's `--pipeline` always splits the layers evenly (`sharded_load` calls `pipeline(group)` without a
split), so a deployment planned with another split (deploy_model_split: memory) could not be served by
any mlx-lm command. From 0.32.0 `PipelineMixin.pipeline(group, split=None)` takes the counts: this
launcher makes the deployment's counts (MACOPS_SERVE_SPLIT, JSON, rank order) that default, then runs
`mlx_lm.server` with the arguments it was given. Without MACOPS_SERVE_SPLIT it is mlx_lm.server as is.

While no request is in flight, rank 0 polls its request queue every 0.1 s and then tells the other ranks
through a collective (all_sum) whether it has one; they wait inside that collective, and MLX's ring backend
waits by polling its socket without a pause (a non-blocking recv in a loop), so every idle rank but rank 0
keeps a CPU core busy for as long as the model is served. This launcher lets those ranks rest for most of
rank 0's poll instead, once a poll found nothing: an idle cluster costs a tenth of that, and the first
request after a pause waits at most IDLE_REST_SECONDS longer for its first token.

The supervisor (serve_supervisor.py) runs it with MLX_RANK and the backend's files (MLX_HOSTFILE, or
MLX_IBV_DEVICES and MLX_JACCL_COORDINATOR), as mlx.launch would.
"""
import json
import os
import sys
import time

# Rank 0's idle poll is 0.1 s (mlx_lm.server's generation loop): the others rest 90 % of it.
IDLE_REST_SECONDS = 0.09


def use_split(split):
    """Make `split` the default of every pipelined model's pipeline()."""
    from mlx_lm.models import pipeline

    planned = pipeline.PipelineMixin.pipeline

    def pipeline_with_split(self, group, split=None):
        return planned(self, group, split=list(split if split is not None else use_split.counts))

    use_split.counts = list(split)
    pipeline.PipelineMixin.pipeline = pipeline_with_split


def rest_when_idle(server):
    """Let this rank sleep before each idle poll that follows an empty one (ranks other than 0). False, and
    mlx_lm.server as is, when its generator has no ``_next_request(timeout)`` to wrap."""
    generator = getattr(server, "ResponseGenerator", None)
    poll = getattr(generator, "_next_request", None)
    if poll is None:
        return False

    def next_request(self, timeout=None):
        # timeout is None while a batch generates: then no rest, every step counts.
        if timeout is not None and getattr(self, "_macops_idle", False):
            time.sleep(min(IDLE_REST_SECONDS, timeout))
        request = poll(self, timeout)
        self._macops_idle = request is None
        return request

    generator._next_request = next_request
    return True


def main():
    split = json.loads(os.environ.get("MACOPS_SERVE_SPLIT") or "null")
    if split:
        use_split(split)
    from mlx_lm import server

    if int(os.environ.get("MLX_RANK") or 0) > 0 and not rest_when_idle(server):
        sys.stderr.write("serve_rank: this mlx-lm has no ResponseGenerator._next_request; idle ranks poll as is\n")

    sys.argv = ["mlx_lm.server"] + sys.argv[1:]
    server.main()


if __name__ == "__main__":
    main()
