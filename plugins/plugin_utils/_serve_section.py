# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: serve-model.yml's section of the cluster report.
"""What a person reads of a serving run, as a section of the one report (_report_sections): the endpoint, the
model, its runtime and backend, which node runs which layers, how long the ranks took to answer a first
completion and the first tokens/s measured through the endpoint. report.json's section data holds the same
for machines, and the leader's status (generation, restarts, the last failure)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

from ._report_sections import section, table
from ._serve_reach import unreachable_problem

RANK_COLUMNS = ("rank", "node", "layers", "count", "model path")


def measured_rate(measured):
    """(tokens, seconds, tokens/s) of the timed completion (ansible.builtin.uri's result), or None. The seconds are
    the endpoint's own (its X-Macops-Seconds header, to the millisecond); uri's ``elapsed`` counts whole seconds
    only, so a completion under one second would have none."""
    if not isinstance(measured, dict) or measured.get("status") != 200:
        return None
    tokens = int(((measured.get("json") or {}).get("usage") or {}).get("completion_tokens") or 0)
    seconds = float(measured.get("x_macops_seconds") or measured.get("elapsed") or 0)
    return {"tokens": tokens, "seconds": seconds, "tokens_per_second": round(tokens / seconds, 2) if seconds else None}


def _answer_error(answer):
    """What a failed answer of the endpoint said: its OpenAI-shaped error's message, else uri's."""
    error = (answer.get("json") or {}).get("error") if isinstance(answer.get("json"), dict) else None
    return (error or {}).get("message") if isinstance(error, dict) else answer.get("msg") or "no answer"


def serve_problems(serve):
    """serve_unreachable when the controller could not connect to the endpoint at all (the firewall, a node down);
    serve_not_ready when the run asked for the model and no completion came (the leader's last failure), or when
    the first completion came and the timed one after it failed (the model did not stay up)."""
    ready, measured = serve.get("ready") or {}, serve.get("measured") or {}
    if serve.get("state") == "stopped" or serve.get("check_mode"):
        return []
    plan, status = serve.get("plan") or {}, serve.get("status") or {}
    name, url = (plan.get("model") or {}).get("name") or "The model", (plan.get("endpoint") or {}).get("url")
    failure = (status.get("last_failure") or {}).get("message")
    supervisor = "supervisor: %s%s" % (status.get("state") or (ready.get("json") or {}).get("state") or "unknown",
                                       "; last failure: %s" % failure if failure else "")
    unreachable = unreachable_problem(ready, url, plan.get("leader"))
    if unreachable:
        return [unreachable]
    if ready.get("status") != 200:
        return [problem("serve_not_ready", "%s gave no completion through %s (%s)." % (name, url, supervisor),
                        host=plan.get("leader"))]
    if measured.get("status") not in (None, 200):
        why = "status %s: %s; %s" % (measured.get("status"), _answer_error(measured), supervisor)
        return [problem("serve_not_ready", "%s answered a first completion through %s, then failed the next (%s)." % (
            name, url, why), host=plan.get("leader"))]
    return []


def serve_section(serve):
    """serve-model.yml's section: ``serve`` holds ``state`` (what was asked), ``plan`` (serve_plan's), ``ready``
    and ``measured`` (the endpoint's answers, ansible.builtin.uri's results) and ``status`` (the leader's)."""
    plan, status = serve.get("plan") or {}, serve.get("status") or {}
    model = plan.get("model") or {}
    endpoint = plan.get("endpoint") or {}
    rate = measured_rate(serve.get("measured"))
    data = {"state": serve.get("state"), "model": model.get("name"), "runtime": model.get("runtime"),
            "mode": model.get("mode"), "backend": plan.get("backend"), "split": plan.get("split"),
            "endpoint": endpoint.get("url"), "ranks": plan.get("ranks") or [],
            "ready": (serve.get("ready") or {}).get("status") == 200, "time_to_ready": status.get("time_to_ready"),
            "measured": rate, "status": status or None}
    if serve.get("state") == "stopped":
        return section("serve", "Serving: stopped", ["every rank stopped, nothing starts at boot"], data=data)
    summary = ["%s at %s: %s, %s over %s on %d rank(s)" % (
        model.get("name"), endpoint.get("url"), "READY" if data["ready"] else "NOT READY", model.get("runtime"),
        plan.get("backend"), len(data["ranks"]))]
    if data["time_to_ready"] is not None:
        summary.append("ready %.1f s after the ranks started (generation %s, %s restart(s))" % (
            data["time_to_ready"], status.get("generation"), status.get("restarts")))
    if rate:
        summary.append("first measured: %d tokens in %.2f s, %.1f tokens/s through the endpoint" % (
            rate["tokens"], rate["seconds"], rate["tokens_per_second"] or 0))
    rows = [(r["rank"], r["host"], "%d-%d" % (r["layers"][0], r["layers"][1] - 1), r["layers"][1] - r["layers"][0],
             r["path"]) for r in data["ranks"]]
    notes = ["Split: %s layers per rank (not mlx-lm's even split: passed to pipeline() by the collection's "
             "launcher)." % plan["split"] if plan.get("split") else "Split: mlx-lm's even split (rank 0 holds the "
             "last layers)."]
    return section("serve", "Serving: %s" % model.get("name"), summary, [table(RANK_COLUMNS, rows, "Ranks")],
                   data=data, notes=notes)
