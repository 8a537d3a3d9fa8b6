"""The serving job's Prometheus metrics, served by the leader's endpoint at ``GET /metrics`` (serve_front.py).

Written with prometheus_client (installed into the serving environment by the serve role), on a registry of their own,
so only these series are exported (a Mac has no /proc for the client's process collector). Every series is named
``macops_serve_*`` and carries no prompt, answer or key:

- ``macops_serve_requests_total{model,status,code}``: completion requests answered, by HTTP status and, for an error,
  its code (``model_not_ready``, ``stream_incomplete``, ...; empty for a success);
- ``macops_serve_requests_in_flight`` and ``macops_serve_requests_waiting``: requests passed to the model's server now,
  and those of them that have no token yet (queued behind others, or in their prefill);
- ``macops_serve_time_to_first_token_seconds``, ``macops_serve_request_seconds`` and
  ``macops_serve_generation_tokens_per_second`` (completion tokens over the time after the first one): histograms;
- ``macops_serve_tokens_total{kind}``: prompt and completion tokens, as the model's server counted them;
- ``macops_serve_ready`` (1 while the served model answers), ``macops_serve_generation`` (the ranks' current start),
  ``macops_serve_generation_failures_total{reason}`` (each generation that ended in a failure, by its kind: ``hung``,
  ``unanswered``, ``exited``, ...: each is followed by a restart unless the restart limit stops serving);
- ``macops_serve_probe_seconds``: the latency of the leader's one-token probes that answered;
- ``macops_serve_info{model,backend}``: 1, naming what is served.

Serving never depends on them: where prometheus_client is missing from the environment (a cluster whose site.yml ran
before the python_env role installed it), every call does nothing and ``GET /metrics`` answers 503 saying so
(``MISSING``). Python 3.9.
"""
try:
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
except ImportError:  # serving goes on without its metrics
    CONTENT_TYPE_LATEST = None

CONTENT_TYPE = CONTENT_TYPE_LATEST
MISSING = ("The serving environment has no prometheus_client, so this endpoint exports no metrics: run site.yml "
           "--tags python_env (it installs it), then serve-model.yml with serve_state=restarted.")
# Seconds to the first token: a short prompt on an idle cluster takes a fraction of a second, a long prefill or a queue
# behind other requests tens of seconds.
FIRST_TOKEN_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0, 120.0)
REQUEST_BUCKETS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
# Tokens a second of one request: a 1 T-parameter model on four Macs makes about 20, a small one hundreds.
TOKENS_PER_SECOND_BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0, 640.0)
PROBE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metrics(object):
    """The series of one supervisor; ``traffic`` (serve_front.Traffic) gives the requests in flight and waiting."""

    def __init__(self, model, backend, traffic):
        self.model, self.registry = model, None
        if CONTENT_TYPE is None:
            return
        registry = self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("macops_serve_requests", "Completion requests answered, by status and error code.",
                                ["model", "status", "code"], registry=registry)
        Gauge("macops_serve_requests_in_flight", "Requests the model's server is answering now.",
              registry=registry).set_function(lambda: traffic.in_flight)
        Gauge("macops_serve_requests_waiting", "Requests in flight that have no token yet (queued, or in prefill).",
              registry=registry).set_function(lambda: traffic.waiting)
        self.first_token = Histogram("macops_serve_time_to_first_token_seconds",
                                     "Seconds from a streamed request to its first token.",
                                     buckets=FIRST_TOKEN_BUCKETS, registry=registry)
        self.seconds = Histogram("macops_serve_request_seconds", "Seconds a completion request took, answer included.",
                                 buckets=REQUEST_BUCKETS, registry=registry)
        self.tokens_per_second = Histogram("macops_serve_generation_tokens_per_second",
                                           "Completion tokens a second of one request, after its first token.",
                                           buckets=TOKENS_PER_SECOND_BUCKETS, registry=registry)
        self.tokens = Counter("macops_serve_tokens", "Prompt and completion tokens of the requests answered.",
                              ["kind"], registry=registry)
        self.ready = Gauge("macops_serve_ready", "1 while the served model answers completions, else 0.",
                           registry=registry)
        self.generation = Gauge("macops_serve_generation", "The current generation: one start of every rank together.",
                                registry=registry)
        self.failures = Counter("macops_serve_generation_failures",
                                "Generations that ended in a failure, by its kind (each followed by a restart).",
                                ["reason"], registry=registry)
        self.probe = Histogram("macops_serve_probe_seconds", "Seconds of the leader's one-token probes that answered.",
                               buckets=PROBE_BUCKETS, registry=registry)
        Gauge("macops_serve_info", "What is served: its name and the backend.", ["model", "backend"],
              registry=registry).labels(model, backend).set(1)
        for kind in ("prompt", "completion"):  # both series exist from the start, so a rate over them is defined
            self.tokens.labels(kind)

    def request(self, entry):
        """One completion request, from its request log entry (serve_front.EndpointHandler.do_POST)."""
        if self.registry is None:
            return
        status = entry.get("status")
        self.requests.labels(self.model, str(status or 0), entry.get("error") or "").inc()
        if status != 200:
            return
        seconds, first = entry.get("seconds") or 0.0, entry.get("first_token_seconds")
        self.seconds.observe(seconds)
        if first is not None:
            self.first_token.observe(first)
        completion = entry.get("completion_tokens") or 0
        for kind, count in (("prompt", entry.get("prompt_tokens") or 0), ("completion", completion)):
            self.tokens.labels(kind).inc(count)
        generating = seconds - (first or 0.0)
        if completion > 1 and generating > 0 and not entry.get("error"):
            self.tokens_per_second.observe((completion - (1 if first is not None else 0)) / generating)

    def state(self, state, generation):
        if self.registry is None:
            return
        self.ready.set(1 if state == "ready" else 0)
        self.generation.set(generation)

    def generation_failed(self, kind):
        if self.registry is None:
            return
        self.failures.labels(kind).inc()

    def probe_answered(self, seconds):
        if self.registry is None:
            return
        self.probe.observe(seconds)

    def render(self):
        """The text format's bytes, or None without prometheus_client."""
        return None if self.registry is None else generate_latest(self.registry)
