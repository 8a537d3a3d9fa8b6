# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: whether the controller reached the served endpoint at all. Names and behaviour may
# change without notice.
"""A completion the controller sent through the endpoint (ansible.builtin.uri's result) that never connected is not
a hung server: the serving firewall (serve_allowed_networks), a node that is down or a wrong address stopped it before
any server saw it. urllib raises a connection's failure (refused, no route, a connect that timed out: what pf's
``block drop`` gives) inside a URLError, which uri reports as ``Request failed: <url... error REASON>`` with status -1;
a request that connected and then got no answer in time is ``Connection failure: timed out``, also -1. Only the
first is ``serve_unreachable``; the second stays the server's (busy or hung)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

# uri's words for urllib's URLError (its reason inside the angle brackets).
_CONNECT_FAILED = re.compile(r"^Request failed: <url\w+ error\s*(?P<why>.*?)>?\s*$", re.S)


def could_not_connect(answer):
    """urllib's reason when `answer` never connected (``[Errno 111] Connection refused``, ``timed out``), else None."""
    if not isinstance(answer, dict) or answer.get("status") != -1:
        return None
    found = _CONNECT_FAILED.match(str(answer.get("msg") or ""))
    return (found.group("why").strip() or "no connection") if found else None


def unreachable_problem(answer, url, host, port=None):
    """serve_unreachable for an answer that never connected, or None."""
    why = could_not_connect(answer)
    if why is None:
        return None
    return problem("serve_unreachable", "The controller could not connect to %s (%s): no server saw the request. "
                   "The serving firewall admits serve_allowed_networks and the address of the controller that last "
                   "ran serve-model.yml; a controller elsewhere (AWX, CI) is blocked, or the node is down." % (
                       url, why), host=host, port=port, details={"url": url, "error": why})
