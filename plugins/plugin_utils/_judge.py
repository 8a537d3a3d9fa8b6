# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a controller-side check (the check_result and sudo_rules actions) turns its problems into
warnings and a failure: one wording, one rule for what fails."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problems import ERROR, WARNING


def failing(problems, fail_on):
    """The problems that fail the host under ``fail_on``."""
    if fail_on == "never":
        return []
    severities = (ERROR,) if fail_on == "error" else (ERROR, WARNING)
    return [problem for problem in problems if problem["severity"] in severities]


def line(problem):
    """[code] host port peer: message Fix: fix; the host only where the message does not start with it."""
    host = problem.get("host")
    if host and problem["message"].startswith(host):
        host = None
    where = " ".join(part for part in (host, problem.get("port") and "port " + problem["port"],
                                       problem.get("peer") and "peer " + problem["peer"]) if part)
    return "[%s]%s %s Fix: %s" % (problem["code"], " " + where + ":" if where else "", problem["message"],
                                  problem["fix"])


def judge(result, problems, fail_on, what="", msg="", warn=(), fail=False):
    """Put into result the warnings (``warn``, then the warning problems that do not fail it) and,
    when a problem's severity is in fail_on or ``fail`` is set, the failure: ``what``, then ``msg``
    or else the failing problems one by one. Shared by check_result and sudo_rules."""
    stopping = failing(problems, fail_on)
    shown = [problem for problem in problems if problem["severity"] == WARNING and problem not in stopping]
    warnings = list(warn) + [line(problem) for problem in shown]
    if warnings:
        result["warnings"] = warnings
    if stopping or fail:
        result["failed"] = True
        result["msg"] = "%s%s" % (what + ": " if what else "", msg or " ".join(line(problem) for problem in stopping))
    return result
