# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `rdma_ctl status`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``rdma_ctl status``: one word, ``enabled`` or ``disabled`` (Apple TN3205; third-party
scripts compare it for equality).

exo (``RdmaCtlStatus``, ``src/exo/utils/info_gatherer/info_gatherer.py``) treats a non-zero exit
status as "unknown"; `status_from_result` does the same so that a
module never has to guess.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "rdma_ctl status"

ENABLED = "enabled"
DISABLED = "disabled"
UNKNOWN = "unknown"


def parse_status(text):
    """``enabled`` or ``disabled``; anything else is malformed."""
    words = require_text(COMMAND, text).strip().lower().split()
    if words == [ENABLED]:
        return ENABLED
    if words == [DISABLED]:
        return DISABLED
    raise ParseError(COMMAND, "expected `enabled` or `disabled`, got %r" % text.strip())


def status_from_result(rc, stdout):
    """Status of a finished ``rdma_ctl status`` run: failed runs are ``unknown``."""
    if rc != 0:
        return UNKNOWN
    return parse_status(stdout)


def enabled_flag(status):
    """True, False, or None for unknown: the tri-state modules return as ``enabled``."""
    return {ENABLED: True, DISABLED: False}.get(status)
