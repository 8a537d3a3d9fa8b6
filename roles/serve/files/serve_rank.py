"""One rank of the served model: mlx-lm's own server, with the deployment's layer split.

mlx-lm's `--pipeline` always splits the layers evenly (`sharded_load` calls `pipeline(group)` without a
split), so a deployment planned with another split (deploy_model_split: memory) could not be served by
any mlx-lm command. From 0.32.0 `PipelineMixin.pipeline(group, split=None)` takes the counts: this
launcher makes the deployment's counts (MACOPS_SERVE_SPLIT, JSON, rank order) that default, then runs
`mlx_lm.server` with the arguments it was given. Without MACOPS_SERVE_SPLIT it is mlx_lm.server as is.

The supervisor (serve_supervisor.py) runs it with MLX_RANK and the backend's files (MLX_HOSTFILE, or
MLX_IBV_DEVICES and MLX_JACCL_COORDINATOR), as mlx.launch would.
"""
import json
import os
import sys


def use_split(split):
    """Make `split` the default of every pipelined model's pipeline()."""
    from mlx_lm.models import pipeline

    planned = pipeline.PipelineMixin.pipeline

    def pipeline_with_split(self, group, split=None):
        return planned(self, group, split=list(split if split is not None else use_split.counts))

    use_split.counts = list(split)
    pipeline.PipelineMixin.pipeline = pipeline_with_split


def main():
    split = json.loads(os.environ.get("MACOPS_SERVE_SPLIT") or "null")
    if split:
        use_split(split)
    from mlx_lm import server

    sys.argv = ["mlx_lm.server"] + sys.argv[1:]
    server.main()


if __name__ == "__main__":
    main()
