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

No hostfile uses a cable that an error is about (`link_errors`): a TB4 cable, the Mac Studio
port next to Ethernet, or any other error the planner ties to the cable. jaccl then needs every
pair's cable free of errors; the ring and jaccl-ring use a cycle of error-free cables, which the
planner looks for among those (`ring_order`). Whether RDMA is ready at the ends is the rdma
role's part (`_mlx_backend.choose_backend`).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ._topology_common import (
    ERROR,
    INFO,
    WARNING,
    TopologyError,
    describe_end,
    describe_link,
    make_problem,
    natural_key,
    port_name,
)

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


# Errors that say only "this cable cannot carry RDMA": TCP runs over such a cable all the same,
# so they keep it out of the jaccl and jaccl-ring hostfiles but not out of the ring one. Every
# other error about a cable keeps it out of every hostfile.
RDMA_ONLY_ERRORS = ("tb_link_tb4_speed", "tb_port_next_to_ethernet")


def _problem_link_id(found):
    # The one problem shape keeps a cable's id in details; older callers passed it at the top.
    return (found.get("details") or {}).get("link_id") or found.get("link_id")


def link_errors(chosen, problems):
    """{link id: [codes of the errors about it]} for the cables the backends would use."""
    ids = set(link["id"] for link in chosen.values())
    errors = {}
    for found in problems:
        link_id = _problem_link_id(found)
        if found.get("severity") == ERROR and link_id in ids and found["code"] not in errors.get(link_id, []):
            errors.setdefault(link_id, []).append(found["code"])
    return errors


def usable_links(chosen, errors, tcp=False):
    """The chosen cables a hostfile may use: no error about them (tcp: none but RDMA_ONLY_ERRORS)."""
    return dict((pair, link) for pair, link in chosen.items()
                if not [code for code in errors.get(link["id"], []) if not (tcp and code in RDMA_ONLY_ERRORS)])


def _faulty(chosen, errors, tcp=False):
    blocked = set(usable_links(chosen, errors)) - set(usable_links(chosen, errors, tcp=True)) if tcp \
        else set(chosen) - set(usable_links(chosen, errors))
    return sorted((chosen[pair] for pair in blocked), key=lambda link: link["id"])


def _describe_faulty(links, errors):
    return "; ".join("%s (%s)" % (describe_link(link), ", ".join(errors[link["id"]])) for link in links)


def _ring_unavailable(hosts, shape, chosen, errors):
    too_few = len(hosts) < 2
    if too_few:
        reason = "a ring needs at least two Macs"
        fix = "Add Macs to the inventory group."
    elif shape in ("full_mesh", "ring"):
        reason = ("every cycle through all %d Macs uses a cable with an error: %s"
                  % (len(hosts), _describe_faulty(_faulty(chosen, errors, tcp=True), errors)))
        fix = "Fix the cables named (each error's own fix says how), then run again."
    else:
        reason = "the cables form a '%s' topology with no cycle through all %d Macs" % (shape, len(hosts))
        fix = ("Cable every Mac to the next one and the last back to the first (%s)."
               % " - ".join(hosts + hosts[:1]))
    return make_problem(RING_UNAVAILABLE, INFO if too_few else ERROR,
                        "No ring or jaccl-ring hostfile: %s." % reason, fix)


def _cycle(order):
    return " - ".join(order + order[:1])


def build_hostfiles(hosts, records, chosen, addresses, shape, errors, rdma_ring, tcp_ring):
    """Return ({backend: hostfile or None}, problems saying why a backend is None).

    `errors` is `link_errors(chosen, problems)`. `rdma_ring`: a cycle of cables no error is about
    (RDMA-capable ones first), or None; `tcp_ring`: the cycle for the ring backend (`rdma_ring`
    when there is one), whose cables may have RDMA_ONLY_ERRORS, or None.
    """
    problems = []
    hostfiles = dict((backend, None) for backend in BACKENDS)
    too_few = len(hosts) < 2
    if tcp_ring:
        hostfiles["ring"] = ring_hostfile(records, chosen, addresses, tcp_ring)
    else:
        problems.append(_ring_unavailable(hosts, shape, chosen, errors))

    jaccl_orders = []
    faulty = _faulty(chosen, errors)
    if shape == "full_mesh" and not faulty:
        jaccl_orders.append(("jaccl", list(hosts), False))
    elif shape == "full_mesh":
        problems.append(make_problem(
            JACCL_UNAVAILABLE, WARNING if rdma_ring else ERROR,
            "No jaccl hostfile: jaccl needs every pair's cable free of errors, and %s: %s%s." % (
                "one has an error" if len(faulty) == 1 else "%d have errors" % len(faulty),
                _describe_faulty(faulty, errors),
                "; jaccl-ring and ring use %s, whose cables have none" % _cycle(rdma_ring) if rdma_ring else ""),
            "Fix %s (the error's own fix says how), then run again." % (
                "that cable" if len(faulty) == 1 else "those cables")))
    elif not too_few:
        problems.append(make_problem(
            JACCL_UNAVAILABLE, WARNING if tcp_ring else ERROR,
            "No jaccl hostfile: jaccl needs a cable between every pair of Macs and the cables form a "
            "'%s' topology%s." % (shape, "; jaccl-ring and ring are available" if rdma_ring
                                  else "; ring is available" if tcp_ring else ""),
            "Add the cables listed by tb_mesh_missing_pair."))
    if rdma_ring:
        jaccl_orders.append(("jaccl-ring", rdma_ring, True))
    elif tcp_ring:
        problems.append(make_problem(
            JACCL_UNAVAILABLE, WARNING,
            "No jaccl-ring hostfile: every cycle through all %d Macs uses a cable that cannot carry RDMA: "
            "%s; ring uses %s over TCP." % (len(hosts), _describe_faulty(faulty, errors), _cycle(tcp_ring)),
            "Fix the cables named (each error's own fix says how), then run again."))

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


def planner_reasons(topology, backend):
    """The planner's messages saying why the plan has no `backend` hostfile."""
    return [p["message"] for p in topology.get("problems", [])
            if (p.get("code") == RING_UNAVAILABLE and backend != "jaccl")
            or str(p.get("message", "")).startswith("No %s hostfile" % backend)]


def hostfile_json(topology, backend):
    """The hostfile text exactly as `mlx.distributed_config` writes it (json.dump, indent 4)."""
    if backend not in BACKENDS:
        raise TopologyError("backend must be one of %s, got %r" % (", ".join(BACKENDS), backend))
    if not isinstance(topology, dict) or not isinstance(topology.get("hostfiles"), dict):
        raise TopologyError("expected the result of macops.cluster.thunderbolt_topology")
    hostfile = topology["hostfiles"].get(backend)
    if hostfile is None:
        reasons = planner_reasons(topology, backend)
        raise TopologyError("the topology has no %s hostfile%s" % (
            backend, (": " + " ".join(reasons)) if reasons else ""))
    return json.dumps(hostfile, indent=4)


def hostfile_name(backend):
    """The file name of `backend`'s hostfile in the state directory (the roles' macops_mlx_hostfiles agree)."""
    return "hostfile-%s.json" % backend


def hostfile_files(topology, backends, directory, attributes=None):
    """What a node's `directory` holds of hostfiles, as macops.cluster.node_files entries:
    `hostfile-<backend>.json` with its text and a final newline for each of `backends`, with
    `attributes` (owner, group, mode), then the other backends' files removed, so no file on the
    node names a backend not chosen now."""
    unknown = [backend for backend in backends if backend not in BACKENDS]
    if unknown:
        raise TopologyError("backend must be one of %s, got %r" % (", ".join(BACKENDS), unknown[0]))

    def path(backend):
        return "%s/%s" % (directory.rstrip("/"), hostfile_name(backend))

    written = []
    for backend in backends:
        entry = dict(attributes or {})
        entry.update(path=path(backend), content=hostfile_json(topology, backend) + "\n")
        written.append(entry)
    return written + [{"path": path(backend), "state": "absent"} for backend in BACKENDS if backend not in backends]
