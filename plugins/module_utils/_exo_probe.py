# -*- coding: utf-8 -*-
# PRIVATE to the collection: reading exo on a node (its LaunchDaemon, its API, its version), for
# exo_health and node_facts' exo group. Do not use this from other collections. Stdlib only, Python 3.9.
"""Ask launchd about exo's job and exo's API on the loopback about the nodes it sees. Runs
commands and HTTP requests only; it never fails the module, so a caller may run it in a thread
beside its other reads. The parsing and the verdict are _exo_health's."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import http.client
import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.error import URLError
from urllib.request import ProxyHandler, build_opener

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._exo_health import (
    installed_version, launchd_state, node_count, node_ids, sees_enough)

# Between two questions to the API (the loopback: asking often is cheap, and after a reboot every
# second counts), and how long one may take.
DELAY_SECONDS = 0.5
REQUEST_TIMEOUT_SECONDS = 5
# A peer's exo over a cable: it answers at once when reachable; a blocked port never does.
PEER_TIMEOUT_SECONDS = 2
VERSION_CODE = "import importlib.metadata as m; print(m.version('exo'))"


def _get_json(url, timeout):
    """(HTTP status or None, parsed JSON or None) of one GET; never through a proxy (it is the loopback)."""
    try:
        response = build_opener(ProxyHandler({})).open(url, timeout=timeout)
        status, body = response.getcode(), response.read()
    except (URLError, http.client.HTTPException, socket.timeout, OSError, ValueError):
        return None, None
    try:
        return status, json.loads(body.decode("utf-8"))
    except ValueError:
        return status, None


def ask_state(url, timeout=REQUEST_TIMEOUT_SECONDS):
    """(answered 200, nodes listed) for one GET of /state."""
    status, answer = _get_json(url, timeout)
    return status == 200, node_count(answer)


def ask_identity(api_port, timeout=REQUEST_TIMEOUT_SECONDS):
    """{node_id, node_ids}: the id this exo answers GET /node_id with and the ids its /state lists
    (a node that left, or came back with a new id, may linger there: exo #2194)."""
    base = "http://127.0.0.1:%d" % api_port
    status, own = _get_json(base + "/node_id", timeout)
    dummy, state = _get_json(base + "/state", timeout)
    return {"node_id": own if status == 200 and isinstance(own, str) else None, "node_ids": node_ids(state)}


def read_version(python, declared):
    """exo's version from its own environment's interpreter, else the declared one."""
    if not python:
        return declared
    rc, stdout, dummy = commands.result_of([python, "-c", VERSION_CODE])
    return installed_version(rc, stdout, declared)


def ask_peers(links, api_port, timeout=PEER_TIMEOUT_SECONDS):
    """[{interface, peer, address, node_id}]: the id each cable's peer answers GET /node_id with at its
    Thunderbolt address (None when nothing answers in time), as exo asks its peers over every address it
    knows; all at once, so a blocked port costs one timeout, not one per cable."""
    def ask(link):
        status, answer = _get_json("http://%s:%d/node_id" % (link["peer_ip"], api_port), timeout)
        return {"interface": link["interface"], "peer": link.get("peer_host"), "address": link["peer_ip"],
                "node_id": answer if status == 200 and isinstance(answer, str) else None}

    if not links:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(links))) as pool:
        return list(pool.map(ask, links))


def wait_for_nodes(api_port, expected_nodes, timeout, require_all_nodes):
    """Ask /state until it answers with enough nodes or the time is up; the last (api_ok, seen)."""
    url = "http://127.0.0.1:%d/state" % api_port
    deadline = time.time() + max(0, timeout)
    while True:
        api_ok, seen = ask_state(url)
        if sees_enough(api_ok, seen, expected_nodes, require_all_nodes) or time.time() + DELAY_SECONDS > deadline:
            return api_ok, seen
        time.sleep(DELAY_SECONDS)


def read_health(launchctl, label, api_port, expected_nodes, timeout, require_all_nodes,
                health_check=True, python=None, version="", identify=False, printed=None):
    """{version, running, api_ok, nodes_seen, nodes_expected}: the job from `launchctl print
    system/LABEL` (113: launchd knows no such job; whatever else fails also means not running) and,
    while it is loaded and health_check asks for it, /state until it lists expected_nodes. With
    ``identify``, also {node_id, node_ids} (ask_identity's; None and [] when the API is silent). ``printed``: the
    (rc, stdout, stderr) of that `launchctl print` where the caller ran it already."""
    rc, stdout, dummy = printed or commands.result_of([launchctl, "print", "system/" + label])
    loaded = rc == 0
    api_ok, seen = wait_for_nodes(api_port, expected_nodes, timeout, require_all_nodes) \
        if health_check and loaded else (False, 0)
    health = {"version": read_version(python, version),
              "running": loaded and launchd_state(stdout) == "running",
              "api_ok": api_ok, "nodes_seen": seen, "nodes_expected": expected_nodes}
    if identify:
        health.update(ask_identity(api_port) if api_ok else {"node_id": None, "node_ids": []})
    return health
