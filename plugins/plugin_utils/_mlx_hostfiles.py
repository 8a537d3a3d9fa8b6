# -*- coding: utf-8 -*-
# PRIVATE to the collection: MLX hostfiles from the topology plan.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Hostfiles in the format `mlx.launch --hostfile` reads (mlx `_distributed_utils/common.py`).

{"backend": ..., "envs": [], "hosts": [{"ssh": ..., "ips": [...], "rdma": [...]}]}

- ring: hosts in ring order; `ips` is the rank's own Thunderbolt address on the cable from the
  previous rank, because MLX's ring rank i accepts on nodes[i] from rank i-1 (ring.cpp).
- jaccl: full mesh only; `ips` is the management address (rank 0's is the coordinator);
  `rdma[j]` is this host's device on its cable to host j, null on the diagonal.
- jaccl-ring: hosts in ring order; only the left and right neighbours' devices are set.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ._topology_common import ERROR, INFO, WARNING, TopologyError, describe_end, make_problem, natural_key, port_name

BACKENDS = ("ring", "jaccl", "jaccl-ring")
RING_UNAVAILABLE = "mlx_ring_unavailable"
JACCL_UNAVAILABLE = "mlx_jaccl_unavailable"
NO_CONTROL_IP = "mlx_no_control_ip"


def _own_end(link, host):
    return link["a"] if link["a"]["host"] == host else link["b"]


def _link_between(chosen, host_a, host_b):
    return chosen[tuple(sorted((host_a, host_b), key=natural_key))]


def _hostfile(backend, hosts):
    return {"backend": backend, "envs": [], "hosts": hosts}


def _rdma_device(chosen, host, other):
    end = _own_end(_link_between(chosen, host, other), host)
    if not end["interface"]:
        raise _MissingInterface(end)
    return "rdma_" + end["interface"]


class _MissingInterface(Exception):
    def __init__(self, end):
        super(_MissingInterface, self).__init__(end)
        self.end = end


def _control_ips(records, host):
    control_ip = records[host]["control_ip"]
    return [str(control_ip)] if control_ip else []


def ring_hostfile(records, chosen, addresses, ring_order):
    entries = []
    for index, host in enumerate(ring_order):
        previous_host = ring_order[index - 1]
        end = _own_end(_link_between(chosen, previous_host, host), host)
        entries.append({"ssh": records[host]["ssh"],
                        "ips": [addresses["hosts"][host][port_name(end)]["ip"]],
                        "rdma": []})
    return _hostfile("ring", entries)


def jaccl_hostfile(records, chosen, order, ring):
    entries = []
    for index, host in enumerate(order):
        if ring:
            wanted = set([order[index - 1], order[(index + 1) % len(order)]])
        else:
            wanted = set(order)
        rdma = [(_rdma_device(chosen, host, other) if other != host and other in wanted else None)
                for other in order]
        entries.append({"ssh": records[host]["ssh"], "ips": _control_ips(records, host), "rdma": rdma})
    return _hostfile("jaccl-ring" if ring else "jaccl", entries)


def build_hostfiles(hosts, records, chosen, addresses, ring_order, shape):
    """Return ({backend: hostfile or None}, problems saying why a backend is None)."""
    problems = []
    hostfiles = dict((backend, None) for backend in BACKENDS)
    too_few = len(hosts) < 2
    if ring_order:
        hostfiles["ring"] = ring_hostfile(records, chosen, addresses, ring_order)
    else:
        problems.append(make_problem(
            RING_UNAVAILABLE, INFO if too_few else ERROR,
            "No ring or jaccl-ring hostfile: %s." % (
                "a ring needs at least two Macs" if too_few else
                "the cables form a '%s' topology with no cycle through all %d Macs" % (shape, len(hosts))),
            "Cable every Mac to the next one and the last back to the first (%s)."
            % " - ".join(hosts + hosts[:1]) if not too_few else "Add Macs to the inventory group."))

    jaccl_orders = []
    if shape == "full_mesh":
        jaccl_orders.append(("jaccl", list(hosts), False))
    elif not too_few:
        problems.append(make_problem(
            JACCL_UNAVAILABLE, WARNING if ring_order else ERROR,
            "No jaccl hostfile: jaccl needs a cable between every pair of Macs and the cables form a "
            "'%s' topology%s." % (shape, "; jaccl-ring and ring are available" if ring_order else ""),
            "Add the cables listed by tb_mesh_missing_pair."))
    if ring_order:
        jaccl_orders.append(("jaccl-ring", ring_order, True))

    for backend, order, ring in jaccl_orders:
        if not _control_ips(records, order[0]):
            problems.append(make_problem(
                NO_CONTROL_IP, ERROR,
                "No %s hostfile: rank 0 (%s) has no management address, and JACCL uses it as the "
                "coordinator." % (backend, order[0]),
                "Give %s a control_ip (its ansible_host IPv4 address)." % order[0], host=order[0]))
            continue
        try:
            hostfiles[backend] = jaccl_hostfile(records, chosen, order, ring)
        except _MissingInterface as missing:
            problems.append(make_problem(
                JACCL_UNAVAILABLE, ERROR,
                "No %s hostfile: %s has no BSD interface, so its rdma_<interface> device is unknown."
                % (backend, describe_end(missing.end)),
                "Check `networksetup -listallhardwareports` on %s lists 'Thunderbolt %d', then gather facts "
                "again." % (missing.end["host"], missing.end["receptacle"]),
                host=missing.end["host"]))
    return hostfiles, problems


def hostfile_json(topology, backend):
    """The hostfile text exactly as `mlx.distributed_config` writes it (json.dump, indent 4)."""
    if backend not in BACKENDS:
        raise TopologyError("backend must be one of %s, got %r" % (", ".join(BACKENDS), backend))
    if not isinstance(topology, dict) or not isinstance(topology.get("hostfiles"), dict):
        raise TopologyError("expected the result of macops.cluster.thunderbolt_topology")
    hostfile = topology["hostfiles"].get(backend)
    if hostfile is None:
        reasons = [p["message"] for p in topology.get("problems", [])
                   if (p.get("code") == RING_UNAVAILABLE and backend != "jaccl")
                   or str(p.get("message", "")).startswith("No %s hostfile" % backend)]
        raise TopologyError("the topology has no %s hostfile%s" % (
            backend, (": " + " ".join(reasons)) if reasons else ""))
    return json.dumps(hostfile, indent=4)
