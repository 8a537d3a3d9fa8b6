# -*- coding: utf-8 -*-
# PRIVATE to the collection: glue between the pure planner functions and Jinja2 filters.
# Names and behaviour may change without notice.
"""Turn the planner's TopologyError into the AnsibleFilterError a playbook author expects.

Why the filters import their engine when called, not when their file loads: to find any one ``macops.cluster.*``
filter, ansible-core's Jinja2Loader (2.21, plugins/loader.py) imports every file under plugins/filter/, in every
forked worker that templates one. A plugin_utils import at the top of each file made every such worker import every
engine (the doctor's, the benchmark's, the planners'): 7.5 % of ansible-playbook's CPU in an idempotent site.yml run
(py-spy). tests/unit/plugins/plugin_utils/test_filter_support.py keeps it so."""

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
