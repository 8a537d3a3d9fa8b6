"""One rank of the served model: mlx-lm's own server, with the deployment's layer split.

mlx-lm's `--pipeline` always splits the layers evenly (`sharded_load` calls `pipeline(group)` without a
split), so a deployment planned with another split (deploy_model_split: memory) could not be served by
any mlx-lm command. From 0.32.0 `PipelineMixin.pipeline(group, split=None)` takes the counts: this
launcher makes the deployment's counts (MACOPS_SERVE_SPLIT, JSON, rank order) that default, then runs
`mlx_lm.server` with the arguments it was given. Without MACOPS_SERVE_SPLIT it is mlx_lm.server as is.

While no request is in flight, rank 0 polls its request queue every 0.1 s and then tells the other ranks
through a collective (all_sum) whether it has one; they wait inside that collective, and MLX's ring backend
waits by polling its socket without a pause (a non-blocking recv in a loop), so every idle rank but rank 0
keeps a CPU core busy for as long as the model is served, and even resting through most of each poll, ten
collectives a second cost every rank about a sixth of a core. Once a poll found nothing, this launcher makes
rank 0's next poll IDLE_POLL_SECONDS long (it returns as soon as a request comes) and lets the other ranks rest
for IDLE_REST_SECONDS of it: an idle cluster takes two collectives a second, and the first request after a
pause waits at most IDLE_REST_SECONDS longer for its first token. A batch that generates polls without a
timeout: no rest, every step counts.

Rank 0 marks its progress for the supervisor, which tells a busy server from a hung one by it: the file named by
MACOPS_SERVE_PROGRESS gets its modification time set at every evaluation (each prefill chunk and decoded token goes
through ``mx.eval`` or ``mx.async_eval``) and every poll of the request queue (distributed, each waits on every
rank), at most every MARK_EVERY_SECONDS. A follower that is stopped or a collective that deadlocks stops the marks;
a long queue or one slow request does not.

Each rank proves its layers before it serves: after mlx-lm's load, the layers its model holds
(``start_idx``..``end_idx``, by the model family's own pipeline() rule) must be the ones the deployment recorded
for this rank (MACOPS_SERVE_LAYERS, [first, end)), and every file of the checkpoint's index that holds one of them,
or a tensor every rank keeps, must be in the rank's copy: mlx-lm loads with strict=False, so a layer whose file is
missing would serve its random initial weights without an error. Otherwise the rank prints a LayerCheckError
naming the layers and exits 3 (the supervisor reports it; the model is not served with wrong weights).

The supervisor (serve_supervisor.py) runs it with MLX_RANK and the backend's files (MLX_HOSTFILE, or
MLX_IBV_DEVICES and MLX_JACCL_COORDINATOR), as mlx.launch would.
"""
import json
import os
import re
import sys
import time

# Rank 0's poll once a poll found nothing (mlx_lm.server's own is 0.1 s); the others rest 90 % of it.
IDLE_POLL_SECONDS = 0.5
IDLE_REST_SECONDS = 0.45
MARK_EVERY_SECONDS = 0.25


class ProgressMark(object):
    """Sets the mark file's modification time, at most every MARK_EVERY_SECONDS (one utime call)."""

    def __init__(self, path):
        self.path, self.last = path, 0.0
        with open(path, "a"):
            pass

    def __call__(self):
        now = time.monotonic()
        if now - self.last >= MARK_EVERY_SECONDS:
            self.last = now
            try:
                os.utime(self.path, None)
            except OSError:
                pass


def mark_progress(path, server):
    """Mark every evaluation and every request poll of this process in `path` (rank 0)."""
    import mlx.core as mx

    mark = ProgressMark(path)

    def marked(function):
        def call(*args, **kwargs):
            mark()
            return function(*args, **kwargs)
        return call

    mx.eval, mx.async_eval = marked(mx.eval), marked(mx.async_eval)
    generator = getattr(server, "ResponseGenerator", None)
    poll = getattr(generator, "_next_request", None)
    if poll is not None:
        def next_request(self, timeout=None):
            request = poll(self, timeout)
            mark()  # the poll returned: distributed, every rank took part
            return request
        generator._next_request = next_request


def use_split(split):
    """Make `split` the default of every pipelined model's pipeline()."""
    from mlx_lm.models import pipeline

    planned = pipeline.PipelineMixin.pipeline

    def pipeline_with_split(self, group, split=None):
        return planned(self, group, split=list(split if split is not None else use_split.counts))

    use_split.counts = list(split)
    pipeline.PipelineMixin.pipeline = pipeline_with_split


def slow_when_idle(server, rank):
    """Once a poll found nothing, make the next idle poll IDLE_POLL_SECONDS long on rank 0 and let the other ranks
    sleep IDLE_REST_SECONDS before it. False, and mlx_lm.server as is, when its generator has no
    ``_next_request(timeout)`` to wrap."""
    generator = getattr(server, "ResponseGenerator", None)
    poll = getattr(generator, "_next_request", None)
    if poll is None:
        return False

    def next_request(self, timeout=None):
        # timeout is None while a batch generates: then no rest, every step counts.
        if timeout is not None and getattr(self, "_macops_idle", False):
            if rank == 0:
                timeout = max(timeout, IDLE_POLL_SECONDS)
            else:
                time.sleep(IDLE_REST_SECONDS)
        request = poll(self, timeout)
        self._macops_idle = request is None
        return request

    generator._next_request = next_request
    return True


def layer_problems(model_dir, held, recorded, every_layer):
    """What is wrong with the layers a rank holds: `held` [start, end) as its model says after the load, `recorded`
    [start, end) the deployment's (None: not checked), `every_layer` true for tensor parallel (each rank holds a
    slice of every layer). [] when it may serve."""
    problems = []
    if recorded is not None and list(held) != list(recorded):
        problems.append("it holds layers %d-%d, the deployment recorded %d-%d for it (the model family splits its "
                        "layers by another rule than the plan's)" % (held[0], held[1] - 1, recorded[0], recorded[1] - 1))
    try:
        with open(os.path.join(model_dir, "model.safetensors.index.json")) as handle:
            weight_map = json.load(handle)["weight_map"]
    except (OSError, ValueError, KeyError):
        weight_map = None  # one file: mlx-lm reads it whole, and a missing one fails the load
    if weight_map:
        needed = {}
        for name, filename in weight_map.items():
            match = re.search(r"(?:^|\.)layers\.(\d+)\.", name)
            layer = int(match.group(1)) if match else None
            if layer is None or every_layer or held[0] <= layer < held[1]:
                needed.setdefault(filename, set()).add(layer)
        for filename, layers in sorted(needed.items()):
            if not os.path.isfile(os.path.join(model_dir, filename)):
                problems.append("its copy has no %s (%s)" % (filename, "layers %s" % ", ".join(
                    str(layer) for layer in sorted(x for x in layers if x is not None)) if any(
                    x is not None for x in layers) else "tensors every rank keeps"))
    return problems


def prove_layers(server, model_dir, recorded, every_layer):
    """Check every rank's layers right after mlx-lm's distributed load (see layer_problems); exit 3 otherwise."""
    load = getattr(server, "sharded_load", None)
    if load is None:
        return False

    def checked_load(*args, **kwargs):
        loaded = load(*args, **kwargs)
        inner = getattr(loaded[0], "model", None)
        layers = getattr(inner, "layers", None) or []
        start = getattr(inner, "start_idx", 0) or 0
        end = getattr(inner, "end_idx", None)
        held = [start, end if end is not None else len(layers)]
        problems = layer_problems(model_dir, held, recorded, every_layer)
        if problems:
            sys.stderr.write("LayerCheckError: rank %s will not serve: %s\n" % (
                os.environ.get("MLX_RANK") or 0, "; ".join(problems)))
            sys.stderr.flush()
            os._exit(3)
        return loaded

    server.sharded_load = checked_load
    return True


def main():
    split = json.loads(os.environ.get("MACOPS_SERVE_SPLIT") or "null")
    if split:
        use_split(split)
    from mlx_lm import server

    if not slow_when_idle(server, int(os.environ.get("MLX_RANK") or 0)):
        sys.stderr.write("serve_rank: this mlx-lm has no ResponseGenerator._next_request; idle ranks poll as is\n")
    if os.environ.get("MACOPS_SERVE_PROGRESS"):
        mark_progress(os.environ["MACOPS_SERVE_PROGRESS"], server)
    layers = json.loads(os.environ.get("MACOPS_SERVE_LAYERS") or "null")
    proven = layers is None or prove_layers(server, argument(sys.argv, "--model"), layers.get("layers"),
                                            layers.get("mode") == "tensor")
    if not proven:
        sys.stderr.write("serve_rank: this mlx-lm's server has no sharded_load; the layers are not proven\n")

    sys.argv = ["mlx_lm.server"] + sys.argv[1:]
    server.main()


def argument(argv, option):
    """The value after `option` in `argv` (None: absent)."""
    return argv[argv.index(option) + 1] if option in argv[:-1] else None


if __name__ == "__main__":
    main()
