# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: update-macos.yml's section of the cluster report.
"""What a person reads of a macOS update: the target build, each node's old and new build and how long it took,
the times per phase, where the cluster stands after a failure and what to do; report.json's section data holds the
same for machines."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

from ._report_sections import section, table
from ._update_plan import update_outcome

NODE_COLUMNS = ("node", "before", "after", "outcome", "waited (s)", "note")


def _seconds(times, start, end):
    try:
        return round(float(times[end]) - float(times[start]), 1)
    except (KeyError, TypeError, ValueError):
        return None


def _node(host, node, result, outcome):
    """One node's row of data."""
    result = result if isinstance(result, dict) else {}
    state = next(name for name in ("updated", "failed", "untouched", "current") if host in outcome[name])
    return {"from_version": node.get("from_version"), "from_build": node.get("from_build"),
            "to_build": result.get("build") if result.get("rebooted") else (
                node.get("from_build") if state != "updated" else None),
            "outcome": state, "waited": result.get("waited"),
            "restarted_by_deadline": bool(result.get("restarted_by_deadline")),
            "error": result.get("msg") if state == "failed" else None,
            # softwareupdate, or installer: Apple's full installer where softwareupdate does not offer the target.
            "method": node.get("method") if node.get("install") else None}


def _stopped(update):
    """Whether serving and exo were stopped for an install: a stop time is recorded (a download that failed stops
    the run before)."""
    return bool((update.get("times") or {}).get("stops"))


def down_seconds(times):
    """Serving's downtime: from a stop for a wave's installs to its next answer (between waves, or at the end), added
    up; a stop while serving is already down changes nothing. None when it never stopped or a time is missing."""
    try:
        events = sorted([(float(t), "stop") for t in times.get("stops") or []] +
                        [(float(t), "back") for t in times.get("backs") or []])
        if not events:
            return None
        down, since = 0.0, None
        for moment, kind in events:
            if kind == "stop" and since is None:
                since = moment
            elif kind == "back" and since is not None:
                down, since = down + moment - since, None
        if since is not None:
            down += float(times["done"]) - since
        return round(down, 1)
    except (KeyError, TypeError, ValueError):
        return None


def _between_waves(update):
    """Whether serving runs across two builds (the plan's canary.between_waves: MLX's ring over TCP)."""
    return bool(((update.get("plan") or {}).get("canary") or {}).get("between_waves"))


def update_problems(update):
    """Per failed node its code (macos_update_stalled where the wait stopped an install that did not move, else
    macos_update_failed); macos_update_restarted_by_deadline per node the deadline restarted."""
    plan, results = update.get("plan") or {}, update.get("results") or {}
    outcome = update_outcome(plan, results)
    found = []
    for host in outcome["failed"]:
        result = results.get(host) or {}
        code = "macos_update_stalled" if result.get("code") == "macos_update_stalled" else "macos_update_failed"
        found.append(problem(code, "%s: %s. %s" % (host, result.get("msg") or "no message",
                                                   standing(outcome, _stopped(update), _between_waves(update))),
                             host=host))
    for host, error in sorted((update.get("settings") or {}).items()):
        if error:
            found.append(problem("macos_update_settings_failed", "%s: setting again what the update can reset failed "
                                 "(%s)." % (host, error), host=host))
    serving, answer = update.get("serving"), update.get("serve_answer") or {}
    if isinstance(serving, dict) and (outcome["one_build"] or _between_waves(update)) and not update.get(
            "check_mode") and _stopped(update) and answer.get("status") != 200:
        found.append(problem("serve_not_ready", "The served model gave no completion through %s after the update "
                             "(%s)." % (serving["endpoint"]["url"], answer.get("msg") or "status %s" % answer.get(
                                 "status")), host=(serving.get("hosts") or [None])[0]))
    for host, error in sorted((update.get("serve_back_failed") or {}).items()):
        if error:
            found.append(problem("serve_not_ready", "%s: serving could not start again between waves (%s); the "
                                 "rollout stopped there." % (host, error), host=host))
    for verdict in (update.get("canary"), update.get("compared")):
        found += (verdict or {}).get("problems") or []
    for host in outcome["updated"]:
        if (results.get(host) or {}).get("restarted_by_deadline"):
            found.append(problem("macos_update_restarted_by_deadline", "%s did not restart by itself after its "
                                 "install; update-macos.yml restarted it, and it booted %s." % (
                                     host, results[host].get("build")), host=host))
    return found


def standing(outcome, stopped=True, between_waves=False):
    """Where the cluster stands, in a sentence (`stopped`: serving was stopped for the installs; `between_waves`:
    serving runs across two builds)."""
    parts = ["updated: %s" % ", ".join(outcome["updated"]) if outcome["updated"] else "no node updated"]
    if outcome["untouched"]:
        parts.append("untouched: %s" % ", ".join(outcome["untouched"]))
    if not stopped:
        parts.append("every node still runs one build, and serving and exo never stopped")
    elif outcome["one_build"]:
        parts.append("every node still runs one build, so serving and exo run again")
    elif between_waves:
        parts.append("the nodes run different builds; serving and exo run across them over TCP until "
                     "update-macos.yml, run again, brings every node to one build")
    else:
        parts.append("the nodes run different builds, so serving and exo stay stopped and disabled (no restart starts "
                     "them) until update-macos.yml, run again, brings every node to one build")
    return "; ".join(parts) + "."


def _canary_data(canary, compared):
    """The report's canary: its node and, where the figures were compared after the last wave instead, those."""
    if not isinstance(canary, dict) and not isinstance(compared, dict):
        return None
    figures = compared if isinstance(compared, dict) else canary
    return {"host": (canary or {}).get("host"), "when": figures.get("when"), "before": figures.get("before"),
            "after": figures.get("after")}


def _canary_line(canary):
    """The canary's verdict in a line, or None when nothing was judged."""
    if not isinstance(canary, dict):
        return None
    figures = "" if canary.get("before") is None else " (%.1f tokens/s before, %s after)" % (
        canary["before"], "%.1f" % canary["after"] if canary.get("after") is not None else "no answer")
    who = "canary %s" % canary["host"] if canary.get("host") else "served model after the last wave"
    if canary.get("problems"):
        return "%s did NOT prove the cluster%s: %s" % (who, figures, ", ".join(sorted(set(
            p["code"] for p in canary["problems"]))))
    return "%s proved the cluster%s" % (who, figures)


def update_section(update):
    """update-macos.yml's section: ``update`` holds ``check_mode``, ``plan`` (macos_update_plan's), ``results`` (per
    node, macos_update_wait's result or the recorded failure), ``times`` (epoch seconds: started, downloading,
    installing, installed, stops and backs (when serving stopped for a wave's installs, and answered again between
    waves), done), ``settings`` (per node, the error of setting again what an update resets, or None), ``serving``
    (the served endpoint, or None) with ``serve_answer``, ``canary`` and ``compared`` (macos_update_canary's verdicts
    on the canary and after the last wave, or None) and ``serve_back_failed`` (per node, why serving could not start
    again between waves, or None)."""
    plan, results, times = update.get("plan") or {}, update.get("results") or {}, update.get("times") or {}
    outcome = update_outcome(plan, results)
    target = plan.get("target")
    nodes = dict((host, _node(host, node, results.get(host), outcome))
                 for host, node in sorted((plan.get("nodes") or {}).items()))
    serving = update.get("serving")
    answer = update.get("serve_answer") or {}
    data = {"check_mode": bool(update.get("check_mode")), "target": target, "strategy": plan.get("strategy"),
            "waves": plan.get("waves") or [], "nodes": nodes,
            "phases": {"plan": _seconds(times, "started", "downloading"),
                       "download": _seconds(times, "downloading", "installing"),
                       "install": _seconds(times, "installing", "installed"),
                       "after": _seconds(times, "installed", "done")},
            "serving": {"endpoint": serving["endpoint"]["url"], "answered": answer.get("status") == 200,
                        "down_seconds": down_seconds(times) if answer.get("status") == 200 else None,
                        "between_waves": _between_waves(update)}
            if isinstance(serving, dict) else None,
            "canary": _canary_data(update.get("canary"), update.get("compared"))}
    if target is None:
        return section("update", "macOS update: nothing to install", ["no node offers a macOS update to install"],
                       data=data)
    title = "macOS update: %s" % target["label"]
    if data["check_mode"]:
        summary = ["check mode: %d node(s) would install %s in %d wave(s) (%s); nothing changed" % (
            sum(1 for n in plan["nodes"].values() if n["install"]), target["label"], len(data["waves"]),
            plan.get("strategy"))]
    else:
        summary = ["%d updated, %d failed, %d untouched, %d already on %s" % (
            len(outcome["updated"]), len(outcome["failed"]), len(outcome["untouched"]), len(outcome["current"]),
            target["build"])]
        if outcome["failed"] or outcome["untouched"]:
            summary.append(standing(outcome, _stopped(update), _between_waves(update)))
        for verdict in (update.get("canary"), update.get("compared")):
            if _canary_line(verdict):
                summary.append(_canary_line(verdict))
    if data["phases"]["install"] is not None and not data["check_mode"]:
        summary.append("plan %.0f s, downloads %.0f s while serving, installs %.0f s, after %.0f s" % (
            data["phases"]["plan"] or 0, data["phases"]["download"] or 0, data["phases"]["install"],
            data["phases"]["after"] or 0))
    if data["serving"]:
        down = data["serving"]["down_seconds"]
        summary.append("served model %s through %s%s" % (
            "answering again" if data["serving"]["answered"] else "NOT answering", data["serving"]["endpoint"],
            " after %.0f s down in all (stopped for the installs only%s)" % (
                down, ", back between waves" if data["serving"]["between_waves"] else "") if down is not None else ""))
    rows = [(host, "%s (%s)" % (plans["from_version"], plans["from_build"]), node["to_build"] or "-",
             node["outcome"], node["waited"] if node["waited"] is not None else "-",
             "restarted by the deadline" if node["restarted_by_deadline"] else (node["error"] or (
                 "Apple's full installer" if node["method"] == "installer" else "-")))
            for (host, node), plans in zip(sorted(nodes.items()), [plan["nodes"][h] for h in sorted(nodes)])]
    notes = ["Waves (%s): %s." % (plan.get("strategy"), " then ".join(", ".join(w) for w in data["waves"]) or "none")]
    return section("update", title, summary, [table(NODE_COLUMNS, rows, "Nodes")], data=data, notes=notes)
