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

import re

_STATE_LINE = re.compile(r"^\s*state = (.+?)\s*$", re.MULTILINE)

# Why a node can be missing from /state, in the order people should check.
MISSING_NODES_HINT = (
    "If nodes are missing: every node needs the same exo_version and exo_namespace; the firewall must "
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


def node_count(state):
    """How many distinct nodes a parsed /state answer lists (0 for anything unexpected)."""
    if not isinstance(state, dict):
        return 0
    topology = state.get("topology")
    if isinstance(topology, dict) and topology.get("nodes"):
        return len(_node_ids(topology["nodes"]))
    identities = state.get("nodeIdentities")
    return len(identities) if isinstance(identities, dict) else 0


def sees_enough(api_ok, nodes_seen, nodes_expected, require_all_nodes):
    """Whether an answer ends the wait: the API answers and, when asked, lists every node."""
    return bool(api_ok) and (not require_all_nodes or nodes_seen >= nodes_expected)


def problem(health, require_all_nodes):
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
