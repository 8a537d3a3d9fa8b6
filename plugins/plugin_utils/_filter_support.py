# -*- coding: utf-8 -*-
# PRIVATE to the collection: glue between the pure planner functions and Jinja2 filters.
# Names and behaviour may change without notice.
"""Turn the planner's TopologyError into the AnsibleFilterError a playbook author expects."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible.errors import AnsibleFilterError

from ._topology_common import TopologyError


def raises_filter_error(function):
    """Decorator: a TopologyError from `function` reaches the user as AnsibleFilterError."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TopologyError as exc:
            raise AnsibleFilterError("%s: %s" % (function.__name__, exc))
    return wrapper
