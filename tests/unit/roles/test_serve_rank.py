"""serve_rank.py, the launcher of one served rank: the ranks other than 0 rest before an idle poll that follows an
empty one (MLX's ring backend waits for rank 0 by polling its socket without a pause), and never while a batch
generates; an mlx-lm without the method it wraps runs as is."""
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
    assert serve_rank.rest_when_idle(server)
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


def test_a_rest_is_never_longer_than_rank_0_s_poll(monkeypatch):
    slept = []
    monkeypatch.setattr(serve_rank.time, "sleep", slept.append)
    server = fake_server([None, None])
    serve_rank.rest_when_idle(server)
    generator = server.ResponseGenerator()
    generator._next_request(0.01)
    generator._next_request(0.01)
    assert slept == [0.01]


def test_an_mlx_lm_without_the_poll_runs_as_is():
    assert serve_rank.rest_when_idle(types.SimpleNamespace()) is False
    assert serve_rank.rest_when_idle(types.SimpleNamespace(ResponseGenerator=object)) is False
