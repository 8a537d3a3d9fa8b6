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
from urllib.error import URLError
from urllib.request import ProxyHandler, build_opener

from ansible_collections.macops.cluster.plugins.module_utils._exo_health import (
    installed_version, launchd_state, node_count, sees_enough)

# Between two questions to the API (the loopback: asking often is cheap, and after a reboot every
# second counts), and how long one may take.
DELAY_SECONDS = 0.5
REQUEST_TIMEOUT_SECONDS = 5
VERSION_CODE = "import importlib.metadata as m; print(m.version('exo'))"


def ask_state(url, timeout=REQUEST_TIMEOUT_SECONDS):
    """(answered 200, nodes listed) for one GET; never through a proxy (it is the loopback)."""
    try:
        response = build_opener(ProxyHandler({})).open(url, timeout=timeout)
        status, body = response.getcode(), response.read()
    except (URLError, http.client.HTTPException, socket.timeout, OSError, ValueError):
        return False, 0
    try:
        answer = json.loads(body.decode("utf-8"))
    except ValueError:
        answer = None
    return status == 200, node_count(answer)


def read_version(module, python, declared):
    """exo's version from its own environment's interpreter, else the declared one."""
    if not python:
        return declared
    try:
        rc, stdout, dummy = module.run_command([python, "-c", VERSION_CODE], handle_exceptions=False)
    except OSError:
        return declared
    return installed_version(rc, stdout, declared)


def wait_for_nodes(api_port, expected_nodes, timeout, require_all_nodes):
    """Ask /state until it answers with enough nodes or the time is up; the last (api_ok, seen)."""
    url = "http://127.0.0.1:%d/state" % api_port
    deadline = time.time() + max(0, timeout)
    while True:
        api_ok, seen = ask_state(url)
        if sees_enough(api_ok, seen, expected_nodes, require_all_nodes) or time.time() + DELAY_SECONDS > deadline:
            return api_ok, seen
        time.sleep(DELAY_SECONDS)


def read_health(module, launchctl, label, api_port, expected_nodes, timeout, require_all_nodes,
                health_check=True, python=None, version=""):
    """{version, running, api_ok, nodes_seen, nodes_expected}: the job from `launchctl print
    system/LABEL` (113: launchd knows no such job; whatever else fails also means not running) and,
    while it is loaded and health_check asks for it, /state until it lists expected_nodes."""
    rc, stdout, dummy = module.run_command([launchctl, "print", "system/" + label])
    loaded = rc == 0
    api_ok, seen = wait_for_nodes(api_port, expected_nodes, timeout, require_all_nodes) \
        if health_check and loaded else (False, 0)
    return {"version": read_version(module, python, version),
            "running": loaded and launchd_state(stdout) == "running",
            "api_ok": api_ok, "nodes_seen": seen, "nodes_expected": expected_nodes}
