# -*- coding: utf-8 -*-
# PRIVATE to the collection. Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""What the rdma role tells a person when RDMA is not ready everywhere: one line per thing to do.

The Recovery steps (rdma_ctl enable) need someone at each Mac, so they come once, naming every
host with RDMA disabled; then each other error, per host and port; last, the hosts not ready."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

RDMA_DISABLED = "rdma_disabled"


def rdma_checklist(status_by_host):
    """The lines for {host: rdma_status result}, hosts in the order given (the play's)."""
    not_ready = [host for host, status in status_by_host.items() if not (status or {}).get("ready")]
    problems = dict((host, (status_by_host[host] or {}).get("problems") or []) for host in not_ready)
    recovery = [host for host in not_ready if any(p.get("code") == RDMA_DISABLED for p in problems[host])]
    lines = []
    if recovery:
        steps = [p.get("fix") for p in problems[recovery[0]] if p.get("code") == RDMA_DISABLED][0]
        lines.append("Enable RDMA on %s: %s" % (", ".join(recovery), steps))
    for host in not_ready:
        for found in problems[host]:
            if found.get("severity") != "error" or found.get("code") == RDMA_DISABLED:
                continue
            lines.append("%s%s: [%s] %s FIX: %s" % (host, " " + found["port"] if found.get("port") else "",
                                                    found.get("code"), found.get("message"), found.get("fix")))
    lines.append("Not ready for RDMA: %s" % (", ".join(not_ready) or "none"))
    return lines
