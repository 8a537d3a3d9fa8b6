# -*- coding: utf-8 -*-
# PRIVATE to the collection: what macops.cluster.ssh_check runs and how it sums up.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Build the ssh command line mlx.launch depends on, and summarise the answers.

mlx.launch starts every rank with a non-interactive ``ssh <host> ...``: a password or host key
prompt is a failure. The check asks for exactly that, with ``BatchMode=yes`` (no prompt) and
``StrictHostKeyChecking=yes`` (no unknown or changed host key), and runs ``/usr/bin/true``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# Longest stderr kept per target; ssh's own errors are one line.
STDERR_LIMIT = 300


def ssh_argv(ssh, connect_timeout, address):
    """The command line of one check."""
    return [ssh, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
            "-o", "ConnectTimeout=%d" % connect_timeout, address, "/usr/bin/true"]


def targets_with_labels(targets):
    """The targets as ``{address, label}``, the label defaulting to the address."""
    return [{"address": target["address"], "label": target.get("label") or target["address"]}
            for target in targets]


def trim(text, limit=STDERR_LIMIT):
    """Stripped text of at most `limit` characters, an ellipsis marking a cut."""
    text = (text or "").strip()
    return text if len(text) <= limit else text[:limit - 3].rstrip() + "..."


def result(target, rc, stderr):
    """One entry of ``results``."""
    return {"address": target["address"], "label": target["label"], "ok": rc == 0, "rc": rc,
            "stderr": trim(stderr)}


def failure_message(results, fix=""):
    """``cannot SSH to A (label: error); B (label: error). <fix>``; None when every check passed."""
    failed = [entry for entry in results if not entry["ok"]]
    if not failed:
        return None
    reasons = ["%s (%s: %s)" % (entry["address"], entry["label"],
                                " ".join(entry["stderr"].split()) or "exit status %d" % entry["rc"])
               for entry in failed]
    message = "cannot SSH to %s." % "; ".join(reasons)
    fix = (fix or "").strip()
    return "%s %s" % (message, fix) if fix else message
