# -*- coding: utf-8 -*-
# PRIVATE to the collection: the one exception of every plan the collection reads or makes.
# Do not use this from other collections; names and behaviour may change without notice.
# Stdlib only, Python 3.9 (the interpreter Apple ships as /usr/bin/python3).
"""``PlanError``: a plan cannot be read or made. Modules on the Macs and plugins on the controller
raise and catch this one class (plugin_utils may import module_utils, not the other way round)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class PlanError(ValueError):
    """A plan cannot be read or made: the applied Thunderbolt address plan is not the JSON the
    thunderbolt_network role writes, the Mac's network cannot be brought to it, a benchmark cannot
    measure it, or no placement of a model is safe.

    The message says why. ``problems`` holds catalogue problems (``problem()``) naming the cause and
    the fix where the planner has them (a model placement), else it is empty.
    """

    def __init__(self, message, problems=None):
        self.problems = list(problems or [])
        super(PlanError, self).__init__(message)

    @classmethod
    def of_problems(cls, problems):
        """The error of catalogue problems, its message theirs joined by '; '."""
        return cls("; ".join(found["message"] for found in problems), problems)
