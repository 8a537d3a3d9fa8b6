# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: doctor.yml's checks of serve-model.yml's model (_doctor_checks.node_findings).
"""Where serve-model.yml serves (the node holds the serve role's serve.json): its job must be loaded and its
supervisor not given up (status.json), and on rank 0 the endpoint must answer a real one-token completion
(mlx-lm's /health answers while a rank hangs); a completion that times out while the leader's status says requests are
in flight and moving is a busy server, not a hung one. ``settings['serve']``: ``config``, ``status`` (the files' paths
on the node), ``label`` (the LaunchDaemon's) and ``answer`` (the endpoint's answer to doctor.yml's completion,
as ansible.builtin.uri returned it; None when nothing is served), ``timeout``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._serve_reach import unreachable_problem


def _read(node, path):
    document = ((node.get("files") or {}).get(path) or {}).get("json")
    return document if isinstance(document, dict) else None


def _job(host, node, serve, config, status):
    label = serve.get("label") or "org.macops.serve"
    # Runtime exo: rank 0's node keeps exo's instance placed; exo runs the ranks.
    part = "exo's instance of %s is not kept placed" % config.get("model") if config.get("runtime") == "exo" else \
        "rank %s of %s does not run" % (config.get("rank"), config.get("model"))
    if not (node.get("launchd") or {}).get(label):
        return False, "its job %s is not loaded: %s" % (label, part), problem(
            "serve_rank_stopped", "serve-model.yml's job %s is not loaded on %s, so %s and the model cannot answer."
            % (label, host, part),
            "Start it again: sudo launchctl bootstrap system /Library/LaunchDaemons/%s.plist on %s, or run "
            "serve-model.yml (serve_state=restarted starts every rank together)." % (label, host), host=host,
            details={"label": label, "rank": config.get("rank")})
    if status.get("state") == "failed":
        return False, status.get("detail") or "its supervisor gave up", problem(
            "serve_not_ready", "The supervisor on %s stopped every rank of %s: %s" % (
                host, config.get("model"), status.get("detail")), host=host,
            details={"last_failure": status.get("last_failure")})
    detail = "rank %s of %s: %s, generation %s" % (config.get("rank"), config.get("model"), status.get("state"),
                                                   status.get("generation"))
    return True, detail, None


def _busy(supervisor):
    """The leader's status says its model is working through requests (some in flight, something moving): a
    completion that waited in mlx-lm's queue past doctor.yml's timeout is no hang."""
    return supervisor.get("state") == "ready" and (supervisor.get("in_flight") or 0) > 0 and \
        supervisor.get("quiet_since") is None


def _endpoint(host, serve, config, supervisor):
    answer = serve.get("answer") or {}
    url = config["endpoint"]["url"]
    status = answer.get("status")
    if status == 200:
        return True, "%s answered a one-token completion through %s" % (config.get("model"), url), None
    unreachable = unreachable_problem(answer, url, host, str(config["endpoint"]["port"]))
    if unreachable:  # never connected: the firewall or a node down, not a hung server
        return False, "could not connect to %s: %s" % (url, unreachable["details"]["error"]), unreachable
    state = (answer.get("json") or {}).get("state") if isinstance(answer.get("json"), dict) else None
    if status == -1 and "timed out" in str(answer.get("msg") or "") and _busy(supervisor):
        return True, "%s is busy: %d request(s) in flight and moving, so doctor.yml's completion waited in its queue " \
            "past %s s" % (config.get("model"), supervisor["in_flight"], serve.get("timeout")), None
    if status == -1 and "timed out" in str(answer.get("msg") or ""):
        return False, "no completion within %s s through %s" % (serve.get("timeout"), url), problem(
            "serve_hung", "%s took the request at %s but gave no one-token completion within %s s: a rank is hung "
            "(every process alive, a collective waiting forever)." % (config.get("model"), url, serve.get("timeout")),
            host=host, port=str(config["endpoint"]["port"]), details={"url": url})
    if status == 503 and state == "stalled":  # the supervisor saw nothing move for half of serve_stall_timeout
        message = ((answer.get("json") or {}).get("error") or {}).get("message") or "nothing moves"
        return False, "%s refuses requests: %s" % (url, message), problem(
            "serve_hung", "%s refuses requests at %s because nothing has moved in it (no generation step, no byte of "
            "any answer): %s A rank is hung; the supervisor restarts every rank at serve_stall_timeout." % (
                config.get("model"), url, message), host=host, port=str(config["endpoint"]["port"]),
            details={"url": url, "state": state})
    why = "its supervisor says %s" % state if state else (answer.get("msg") or "no answer")
    return False, "no completion through %s: %s" % (url, why), problem(
        "serve_not_ready", "%s gave no completion through %s: %s." % (config.get("model"), url, why), host=host,
        port=str(config["endpoint"]["port"]), details={"url": url, "state": state})


def serving(host, node, settings, verdict):
    """[(check, problem or None)]: ``serving`` where this node serves; ``serve_endpoint`` on rank 0."""
    serve = settings.get("serve") or {}
    config = _read(node, serve.get("config"))
    if config is None:
        return []
    status = _read(node, serve.get("status")) or {}
    results = [verdict("serving", *_job(host, node, serve, config, status))]
    if config.get("rank") == 0 and config.get("endpoint") and serve.get("answer") is not None:
        results.append(verdict("serve_endpoint", *_endpoint(host, serve, config, status)))
    return results
