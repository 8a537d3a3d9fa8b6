# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what update-macos.yml's canary must prove before the next wave, and whether serving
# comes back between waves. Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""The canary that proves the cluster (issue 48). macOS updates cannot be rolled back and they do regress clusters
(exo falling from 70 to 12 tokens/s, exo #2166; oMLX from 40 to 10, omlx #3670), so the first node to update must
show more than a build number before any other node installs:

- **Its checks**: what site.yml's own checks read on the canary once it is back (RDMA enabled, every cable to its
  peers up and pinged, the Thunderbolt settings of the applied plan, the GPU wired limit), judged as doctor.yml
  judges them (the same problem codes).
- **Its figure**: where a model is served, the same timed completion (same prompt, same token count, the best of a
  few) through the endpoint before serving stops and again once serving is back with the canary on the new build.
  A drop beyond ``max_regression_percent`` is ``macos_update_regression``.

Serving comes back between waves only where the cluster can serve across two builds: MLX's ring backend over TCP
does; RDMA (jaccl, jaccl-ring, and exo's MlxJaccl instances) needs one macOS build on every node (exo's README:
RDMA ports may not find each other across macOS versions), so there serving stays stopped from the first install
to the last wave, and the figure after the last wave is compared instead: reported, with nothing left to stop."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

RDMA_BACKENDS = ("jaccl", "jaccl-ring")


def serving_between_waves(serving, waves):
    """{between_waves, reason, why}: whether serving comes back after each wave but the last, the reason in a clause
    and ``why`` (the reason and what serving does). ``serving``: rank 0's serving configuration (serve_leader), or
    None when nothing is served."""
    stays = "serving stays stopped from the first install to the last wave"
    if not isinstance(serving, dict):
        reason, does = "nothing is served", None
    elif len(waves or []) < 2:
        reason, does = "one wave", "serving comes back after it"
    elif serving.get("backend") in RDMA_BACKENDS:
        reason, does = "%s is RDMA, which needs one macOS build on every node" % serving["backend"], stays
    elif (serving.get("runtime") or "mlx-lm") != "mlx-lm":
        reason, does = "%s needs one macOS build on every node" % serving["runtime"], stays
    else:
        return {"between_waves": True, "reason": "mlx-lm over %s runs over TCP across two builds" % (
            serving.get("backend") or "the ring"), "why": "mlx-lm over %s runs over TCP across two builds: serving "
            "comes back after each wave but the last (exo stays stopped)" % (serving.get("backend") or "the ring")}
    return {"between_waves": False, "reason": reason, "why": "%s: %s" % (reason, does) if does else reason}


def canary_plan(waves, strategy, serving, max_regression_percent, one_build=True):
    """{host, between_waves, why, compare}: the canary (the first wave's node when others follow it), whether serving
    comes back between waves, and when the served figure is compared: ``canary`` (before the next wave, which a
    regression stops), ``after`` (after the last wave), or None (nothing served, off, or no baseline: the nodes
    already run different builds, so a figure measured now is not the old build's)."""
    between = serving_between_waves(serving, waves)
    host = waves[0][0] if strategy != "parallel" and len(waves or []) > 1 and len(waves[0]) == 1 else None
    compare = None
    if isinstance(serving, dict) and float(max_regression_percent or 0) > 0 and waves and one_build:
        compare = "canary" if host and between["between_waves"] else "after"
    return dict(between, host=host, compare=compare, max_regression_percent=float(max_regression_percent or 0))


def best_rate(answers):
    """The best tokens per second of a few timed completions (ansible.builtin.uri results), or None when none
    answered: the best, not the mean, so a moment of load elsewhere does not read as a regression."""
    # Imported here: _serve_section imports the report's own helpers.
    from ._serve_section import measured_rate
    rates = [measured_rate(answer) for answer in answers or []]
    rates = [rate["tokens_per_second"] for rate in rates if rate and rate["tokens_per_second"]]
    return max(rates) if rates else None


def regression(before, after, max_percent, host, when):
    """macos_update_regression when the served figure after fell more than ``max_percent`` below the one before (a
    list with that problem, else []). ``when``: "canary" (the canary alone on the new build) or "after" (every node)."""
    if not before or after is None or max_percent <= 0:
        return []
    drop = 100.0 * (before - after) / before
    if drop <= max_percent:
        return []
    where = "with only %s on the new build" % host if when == "canary" else "with every node on the new build"
    return [problem("macos_update_regression", "The served model answered at %.1f tokens/s %s, against %.1f before "
                    "the update: %.0f %% slower (macos_update_max_regression_percent: %g)." % (
                        after, where, before, drop, max_percent), host=host)]


def _read_failure(read):
    """Why the canary's read proves nothing (it failed, did not answer, or holds none of its reads), or None."""
    if not isinstance(read, dict):
        return "no read of it (the run lost it)"
    if read.get("unreachable") or read.get("failed"):
        return read.get("msg") or "no answer"
    if not any(key in read for key in ("links", "network", "rdma", "wired_limit")):
        return "its read holds none of its checks"
    return None


def canary_verdict(plan, before, after, read=None, plan_file=None, when="canary"):
    """What the canary proved (``when`` "canary"), or the comparison after the last wave ("after"): {host, when,
    before, after, problems}. ``before``/``after``: the timed completions (uri results) before serving stopped and
    once it was back (None: not measured); ``read``: node_facts' read of the canary once it was back. Its problems
    stop the rollout: the canary's own findings (doctor's errors that the run cannot set right itself),
    serve_not_ready when serving did not answer, macos_update_regression when the figure fell too far."""
    # Imported here: _doctor_checks imports the report's helpers, which a plan without a canary never needs.
    from ._doctor_checks import after_update_findings
    canary = plan.get("canary") or {}
    host = canary.get("host") if when == "canary" else None
    problems = []
    if when == "canary":
        failure = _read_failure(read)
        if failure:
            problems.append(problem("macos_update_failed", "%s came back on the new build, but its checks could not "
                                    "run: %s." % (host, failure), host=host))
        else:
            problems += [found for found in after_update_findings(host, read, plan_file)
                         if found.get("severity") == "error"]
    before_rate, after_rate = best_rate(before), best_rate(after)
    if after is not None and after_rate is None and before_rate is not None:
        problems.append(problem("serve_not_ready", "The served model answered before the update (%.1f tokens/s) but "
                                "not %s." % (before_rate, "with %s on the new build" % host if when == "canary" else
                                             "after the last wave"), host=host))
    problems += regression(before_rate, after_rate, canary.get("max_regression_percent") or 0, host, when)
    return {"host": host, "when": when, "before": before_rate, "after": after_rate, "problems": problems}
