# -*- coding: utf-8 -*-
# PRIVATE to the collection: how exo's LaunchDaemon and its GET /state answer are read.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse `launchctl print system/LABEL` and exo's `GET /state`, and judge exo's health.

`launchctl print` of a loaded job starts with the job's own block, whose ``state = running``
(or ``state = not running``) line comes before the nested blocks; the first ``state =`` line is
the job's. A job launchd does not know exits 113 ("Could not find service"): not loaded.

exo (1.0.x) answers ``GET /state`` with camelCase keys. The nodes it knows are the entries of
``topology.nodes`` (a list of ids or of ``{nodeId: ...}``, or a mapping keyed by node id); when
that is missing or empty, the keys of ``nodeIdentities`` are counted instead. Anything else (no
answer, an error page) counts 0, so a health check can compare counts.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import plistlib
import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

_STATE_LINE = re.compile(r"^\s*state = (.+?)\s*$", re.MULTILINE)

# Why a node can be missing from /state, in the order people should check.
MISSING_NODES_HINT = (
    "If nodes are missing: every node needs the same exo version (macops_exo_version) and exo_namespace; the firewall must "
    "let ports 52413-52415 through on the Thunderbolt and management networks; after a reboot macOS "
    "may need the Local Network permission toggled in System Settings > Privacy & Security (exo #952).")


def launchd_state(text):
    """The job's state from `launchctl print` (``running``, ``not running``...); '' when none."""
    found = _STATE_LINE.search(text or "")
    return found.group(1) if found else ""


def _node_ids(nodes):
    if isinstance(nodes, dict):
        return set(nodes)
    ids = set()
    for node in nodes if isinstance(nodes, list) else []:
        if isinstance(node, dict):
            node = node.get("nodeId", node.get("id"))
        if isinstance(node, str):
            ids.add(node)
    return ids


def node_ids(state):
    """The distinct node ids a parsed /state answer lists, sorted ([] for anything unexpected)."""
    if not isinstance(state, dict):
        return []
    topology = state.get("topology")
    if isinstance(topology, dict) and topology.get("nodes"):
        return sorted(_node_ids(topology["nodes"]))
    identities = state.get("nodeIdentities")
    return sorted(identities) if isinstance(identities, dict) else []


def node_count(state):
    """How many distinct nodes a parsed /state answer lists (0 for anything unexpected)."""
    return len(node_ids(state))


def sees_enough(api_ok, nodes_seen, nodes_expected, require_all_nodes):
    """Whether an answer ends the wait: the API answers and, when asked, lists every node."""
    return bool(api_ok) and (not require_all_nodes or nodes_seen >= nodes_expected)


def is_unhealthy(health, require_all_nodes):
    """True when exo is unhealthy: not running, API silent, or (when required) nodes missing."""
    return not (health["running"] and sees_enough(health["api_ok"], health["nodes_seen"],
                                                  health["nodes_expected"], require_all_nodes))


def failure_message(host, api_port, log_file, health):
    """What the role prints when exo is unhealthy: the readings, where to look, what to check."""
    return ("exo on %s: service running %s, API on port %d answering %s, nodes in /state %d of %d. "
            "Read %s. %s" % (host, health["running"], api_port, health["api_ok"], health["nodes_seen"],
                             health["nodes_expected"], log_file, MISSING_NODES_HINT))


def installed_version(rc, stdout, declared):
    """The version `importlib.metadata` printed, else the declared one."""
    text = (stdout or "").strip() if rc == 0 else ""
    return text or declared


# exo's own default API port, when the LaunchDaemon passes no --api-port.
EXO_DEFAULT_API_PORT = 52415


def launchdaemon_settings(plist_data, path="exo LaunchDaemon plist"):
    """{label, api_port, log_file, program} of the exo role's LaunchDaemon, from the plist's bytes:
    the role is the one writer of exo's settings on the node, so a later check (the reboot, the
    doctor) asks the exo it actually runs. Raises ParseError naming ``path`` for anything else."""
    try:
        job = plistlib.loads(plist_data)
    except Exception as exc:  # plistlib raises several types (InvalidFileException, ExpatError, ValueError)
        raise ParseError("plistlib " + path, "not a property list: %s" % exc)
    if not isinstance(job, dict) or not isinstance(job.get("Label"), str) or not job["Label"]:
        raise ParseError("plistlib " + path, "no Label")
    arguments = [str(argument) for argument in job.get("ProgramArguments") or []]
    api_port = EXO_DEFAULT_API_PORT
    if "--api-port" in arguments[:-1]:
        value = arguments[arguments.index("--api-port") + 1]
        if not value.isdigit():
            raise ParseError("plistlib " + path, "--api-port %r is not a port number" % value)
        api_port = int(value)
    return {"label": job["Label"], "api_port": api_port, "program": arguments,
            "log_file": job.get("StandardErrorPath") or job.get("StandardOutPath") or ""}


def node_verdict(options, settings, health):
    """node_facts' exo result: the readings of ``health`` (read_health's) with the LaunchDaemon's
    ``settings``, ``healthy`` as exo_health judges it, and the message it would fail with. No
    ``settings``: exo is not installed (there is no LaunchDaemon at ``options['plist']``)."""
    if settings is None:
        return {"installed": False, "label": None, "api_port": None, "log_file": None, "running": False,
                "api_ok": False, "nodes_seen": 0, "nodes_expected": options["expected_nodes"], "version": None,
                "node_id": None, "node_ids": [],
                "healthy": False, "message": "exo on %s is not installed: there is no LaunchDaemon %s." % (
                    options["host"], options["plist"])}
    exo = dict(health, installed=True, label=settings["label"], api_port=settings["api_port"],
               log_file=settings["log_file"])
    exo["healthy"] = not is_unhealthy(exo, options["require_all_nodes"])
    exo["message"] = "" if exo["healthy"] else failure_message(
        options["host"], settings["api_port"], settings["log_file"] or "exo's log", exo)
    return exo
