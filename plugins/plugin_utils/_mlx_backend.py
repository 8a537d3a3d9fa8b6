# -*- coding: utf-8 -*-
# PRIVATE to the collection: the MLX backend choice behind the macops.cluster.mlx_backend filter.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Choose the MLX backend from the topology plan and every node's RDMA readiness.

The planner's hostfiles already leave out every cable an error is about (`_mlx_hostfiles`);
this adds what only the nodes know, whether RDMA is ready at both ends of each cable:

1. ``jaccl`` when the plan has a jaccl hostfile (a full mesh, every pair's cable free of errors)
   and RDMA is ready on every device that hostfile names;
2. else ``jaccl-ring`` on the same terms for the jaccl-ring hostfile (a ring of such cables);
3. else ``ring`` (TCP) when the plan has a ring hostfile;
4. else none.

"RDMA is ready on a device" means: the node's ``rdma_status`` ran, RDMA is enabled, the node has
no error that is not about one port (macOS too old, rdma_ctl missing), and the device's port is
present, ``PORT_ACTIVE``, has an IPv4 GID, and no error is about it (a TB4 link, the port next to
Ethernet). The result says which backend and, for each one passed over, why.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ._mlx_hostfiles import planner_reasons
from ._topology_common import ERROR, TopologyError

RDMA_BACKENDS = ("jaccl", "jaccl-ring")


def _names_in_rank_order(topology, backend):
    """The inventory names of a hostfile's ranks: its `ssh` may be another name (admin@host)."""
    if backend == "jaccl":
        return [str(host.get("name")) for host in topology.get("hosts") or []]
    return list(topology.get("ring_order") or [])


def _device_problems(rdma, device):
    """Why RDMA is not ready on `device` of a node whose rdma_status result is `rdma` ([] = ready)."""
    if not isinstance(rdma, dict):
        return ["not checked"]
    # The node's own errors (rdma_disabled, macos_too_old, ...) say it for every port.
    reasons = [p.get("code") for p in rdma.get("problems") or [] if p.get("severity") == ERROR and not p.get("port")]
    if not reasons and rdma.get("enabled") is not True:
        reasons.append("RDMA not enabled")
    if reasons:
        return reasons
    port = [p for p in rdma.get("ports") or [] if p.get("device") == device]
    if not port:
        return ["no such device"]
    port = port[0]
    port_errors = [p.get("code") for p in rdma.get("problems") or []
                   if p.get("severity") == ERROR and p.get("port") == port.get("interface")]
    if port_errors:
        return port_errors
    if not port.get("present"):
        return ["device missing"]
    if not port.get("active"):
        return ["port %s" % (port.get("state") or "not active")]
    return [] if port.get("ipv4_gid") else ["no IPv4 GID"]


def _not_ready(topology, backend, hostfile, rdma_by_host):
    """['mac2 rdma_en3 (rdma_port_down)', ...] for every device of the hostfile RDMA is not ready on."""
    names = _names_in_rank_order(topology, backend)
    entries = hostfile.get("hosts") or []
    if len(names) != len(entries):
        raise TopologyError("the %s hostfile has %d ranks but the plan names %d hosts"
                            % (backend, len(entries), len(names)))
    found = []
    for name, entry in zip(names, entries):
        for device in entry.get("rdma") or []:
            if device is None:
                continue
            reasons = _device_problems(rdma_by_host.get(name), device)
            if reasons:
                found.append("%s %s (%s)" % (name, device, ", ".join(reasons)))
    return found


def _cycle(order):
    return " - ".join(list(order) + list(order[:1]))


def choose_backend(topology, rdma_by_host):
    """``{backend, reason, hostfiles, passed_over}`` (see the mlx_backend filter's RETURN)."""
    if not isinstance(topology, dict) or not isinstance(topology.get("hostfiles"), dict):
        raise TopologyError("expected the result of macops.cluster.thunderbolt_topology")
    if not isinstance(rdma_by_host, dict):
        raise TopologyError("rdma must be a dict {inventory_hostname: rdma_status result}, got %s"
                            % type(rdma_by_host).__name__)
    hostfiles = topology["hostfiles"]
    passed_over = []
    chosen = None
    for backend in RDMA_BACKENDS:
        hostfile = hostfiles.get(backend)
        if hostfile is None:
            passed_over.append({"backend": backend, "why": " ".join(planner_reasons(topology, backend))
                                or "the cabling allows no %s hostfile" % backend})
            continue
        not_ready = _not_ready(topology, backend, hostfile, rdma_by_host)
        if not_ready:
            passed_over.append({"backend": backend, "why": "RDMA is not ready on %s" % "; ".join(not_ready)})
            continue
        chosen = backend
        break
    if chosen is None and hostfiles.get("ring") is not None:
        chosen = "ring"
    if chosen is None:
        passed_over.append({"backend": "ring", "why": " ".join(planner_reasons(topology, "ring"))
                            or "the cabling allows no ring hostfile"})

    hosts = _names_in_rank_order(topology, "jaccl")
    if chosen == "jaccl":
        what = ("jaccl: every pair of the %d Macs has a cable free of errors, and RDMA is ready on every "
                "port the mesh uses." % len(hosts))
    elif chosen == "jaccl-ring":
        what = ("jaccl-ring over %s: its cables are free of errors and RDMA is ready on every port it uses."
                % _cycle(topology["ring_order"]))
    elif chosen == "ring":
        what = "ring (TCP) over %s." % _cycle(topology["ring_order"])
    else:
        what = "no MLX backend."
    why_not = " ".join("No %s: %s" % (item["backend"], item["why"].rstrip(".") + ".") for item in passed_over)
    # What the nodes get: the ring hostfile whenever there is one (the mlx role's smoke test runs
    # over it), and the chosen backend's.
    files = ["ring"] if hostfiles.get("ring") is not None else []
    if chosen and chosen != "ring":
        files.append(chosen)
    return {"backend": chosen, "reason": (what + " " + why_not).strip(), "hostfiles": files,
            "passed_over": passed_over}
