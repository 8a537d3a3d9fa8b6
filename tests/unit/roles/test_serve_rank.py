"""serve_rank.py, the launcher of one served rank: rank 0 marks its progress, every rank proves its layers after the
load, and the ranks other than 0 rest before an idle poll that follows an
empty one (MLX's ring backend waits for rank 0 by polling its socket without a pause), and never while a batch
generates; an mlx-lm without the method it wraps runs as is."""
import json
import os
import sys
import types

FILES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "serve", "files")
sys.path.insert(0, FILES)
import serve_rank  # noqa: E402


def fake_server(answers):
    """An mlx_lm.server whose generator's polls answer `answers` in turn, recording each poll's timeout."""
    class ResponseGenerator(object):
        polls = []

        def _next_request(self, timeout=None):
            self.polls.append(timeout)
            return answers.pop(0)
    return types.SimpleNamespace(ResponseGenerator=ResponseGenerator)


def test_a_rank_rests_only_before_an_idle_poll_that_follows_an_empty_one(monkeypatch):
    slept = []
    monkeypatch.setattr(serve_rank.time, "sleep", slept.append)
    server = fake_server([None, None, ("queue", "request", "args"), None, None])
    assert serve_rank.slow_when_idle(server, 2)
    generator = server.ResponseGenerator()
    results = [generator._next_request(0.1), generator._next_request(0.1)]
    assert slept == [serve_rank.IDLE_REST_SECONDS]  # the first poll found nothing: the second one rested first
    results.append(generator._next_request(0.1))  # still idle before it: rests, and finds the request
    assert len(slept) == 2 and results[2] == ("queue", "request", "args")
    results.append(generator._next_request(0.1))  # after a request: no rest, the next may follow at once
    assert len(slept) == 2
    results.append(generator._next_request(None))  # a batch generates: every step counts, no rest
    assert len(slept) == 2
    assert server.ResponseGenerator.polls == [0.1, 0.1, 0.1, 0.1, None]


def test_rank_0_waits_longer_on_an_idle_queue_and_the_others_rest_through_most_of_that_wait(monkeypatch):
    """An idle cluster takes two collectives a second, not ten: rank 0's queue wait (which a request ends at once)
    is IDLE_POLL_SECONDS once a poll found nothing, and the others sleep IDLE_REST_SECONDS of it."""
    slept = []
    monkeypatch.setattr(serve_rank.time, "sleep", slept.append)
    server = fake_server([None, None, ("queue", "request", "args"), None, None])
    assert serve_rank.slow_when_idle(server, 0)
    generator = server.ResponseGenerator()
    for timeout in (0.1, 0.1, 0.1, 0.1, None):
        generator._next_request(timeout)
    assert slept == [] and server.ResponseGenerator.polls == [0.1, serve_rank.IDLE_POLL_SECONDS,
                                                              serve_rank.IDLE_POLL_SECONDS, 0.1, None]
    assert serve_rank.IDLE_REST_SECONDS < serve_rank.IDLE_POLL_SECONDS <= 1.0


def test_an_mlx_lm_without_the_poll_runs_as_is():
    assert serve_rank.slow_when_idle(types.SimpleNamespace(), 1) is False
    assert serve_rank.slow_when_idle(types.SimpleNamespace(ResponseGenerator=object), 0) is False


def test_rank_0_marks_every_evaluation_and_poll_at_most_every_quarter_second(tmp_path, monkeypatch):
    """Issue 47: the supervisor tells a busy rank 0 from a hung one by the mark's time."""
    import mlx.core as mx
    monkeypatch.setattr(mx, "eval", mx.eval)  # restored after the test: mark_progress wraps them in place
    monkeypatch.setattr(mx, "async_eval", mx.async_eval)
    mark = tmp_path / "progress"
    server = fake_server([None, None])
    serve_rank.mark_progress(str(mark), server)
    os.utime(str(mark), (0, 0))
    mx.eval(mx.ones(2))
    first = mark.stat().st_mtime
    assert first > 0  # an evaluation marked it
    os.utime(str(mark), (0, 0))
    server.ResponseGenerator()._next_request(0.1)
    assert mark.stat().st_mtime == 0  # within a quarter second of the last mark: no second write
    import time
    time.sleep(serve_rank.MARK_EVERY_SECONDS + 0.05)
    server.ResponseGenerator()._next_request(0.1)
    assert mark.stat().st_mtime > 0  # a poll that returned marks it


def loaded_model(tmp_path, ranks, rank, files_missing=()):
    """(model directory, mlx-lm model) of the lab's test model loaded and pipelined as `rank` of `ranks`."""
    from mlx_lm import utils
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    from lab.macsim import testmodel
    testmodel.write(str(tmp_path))
    model, _config = utils.load_model(tmp_path, lazy=True, strict=False)
    group = types.SimpleNamespace(rank=lambda: rank, size=lambda: ranks)
    model.model.pipeline(group)
    for name in files_missing:
        os.remove(os.path.join(str(tmp_path), name))
    return str(tmp_path), model


def test_a_rank_serves_only_the_layers_the_deployment_recorded_from_its_own_files(tmp_path):
    """Issue 47: mlx-lm loads with strict=False, so a layer whose file is missing would serve random weights; a model
    family whose own split rule differs from the plan's holds other layers than recorded. Both are refused, by name."""
    model_dir, model = loaded_model(tmp_path, ranks=2, rank=1)
    held = [model.model.start_idx, model.model.end_idx]
    assert held == [0, 4]  # rank 1 of 2 holds the first half (rank 0 the last layers)
    assert serve_rank.layer_problems(model_dir, held, [0, 4], False) == []
    [other_rule] = serve_rank.layer_problems(model_dir, held, [0, 5], False)
    assert "holds layers 0-3, the deployment recorded 0-4" in other_rule
    index = json.load(open(os.path.join(model_dir, "model.safetensors.index.json")))["weight_map"]
    layer2_file = index["model.layers.2.mlp.up_proj.weight"]
    os.remove(os.path.join(model_dir, layer2_file))
    [missing] = serve_rank.layer_problems(model_dir, held, [0, 4], False)
    assert layer2_file in missing and "layers 2" in missing
    # Rank 0 holds layers 4-7: the file of layer 2 is not its, so it may serve; tensor parallel needs every file.
    assert serve_rank.layer_problems(model_dir, [4, 8], [4, 8], False) == []
    assert serve_rank.layer_problems(model_dir, [0, 8], None, True) != []


def test_the_check_runs_right_after_mlx_lm_s_load_and_a_refusal_exits_with_the_layers_named(tmp_path, monkeypatch,
                                                                                             capsys):
    model_dir, model = loaded_model(tmp_path, ranks=2, rank=1)
    server = types.SimpleNamespace(sharded_load=lambda *args, **kwargs: (model, "tokenizer", {}))
    assert serve_rank.prove_layers(server, model_dir, [0, 4], False)
    assert server.sharded_load(model_dir)[1] == "tokenizer"
    exits = []
    monkeypatch.setattr(serve_rank.os, "_exit", exits.append)
    assert serve_rank.prove_layers(server, model_dir, [1, 4], False)
    server.sharded_load(model_dir)
    assert exits == [3] and "LayerCheckError: rank" in capsys.readouterr().err
    assert serve_rank.prove_layers(types.SimpleNamespace(), model_dir, [0, 4], False) is False
