# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""doctor.yml's view of the cables: which of the topology planner's findings are about the cables as
they are, and what a cable to a node that was not swept says about that node.

The planner only knows the swept nodes. A node that is booting, or hung before SSH answers, still
has power and its Thunderbolt up: its peers' ports report a connected Mac whose port matches no
swept node, which the planner calls a peer outside the inventory (tb_peer_unknown). The applied
plan names the node at the other end of that port, so the finding moves to that node: its cable
is lit, it is not answering (node_not_answering), and its peers are not blamed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_plan import plan_ends

# The topology planner's findings about the cables themselves (what site.yml's topology role
# reports before it plans): a cable's speed, a peer that is no cluster node, a dock in the path, a
# cable that differs from the declared cabling. Its address and hostfile findings are about a new
# plan, and a pair with no cable is a ring's nature (a cable the applied plan has and that is gone is
# the links check's): neither is about this cluster as it runs.
CABLING_CODES = ("tb_peer_unknown", "tb_loopback_cable", "tb_link_asymmetric", "tb_link_speed_unknown",
                 "tb_link_tb4_speed", "tb_port_next_to_ethernet", "tb_duplicate_cable", "tb_cabling_differs",
                 "tb_peer_via_dock")


def planned_peers(sweeps, plan_file):
    """{(host, interface): peer host} of the applied plan as the swept nodes read it (node_facts'
    ``files``, parsed by the reader of the plan the links group uses); the union, so a node that holds
    an older copy adds only what the others lack, and a copy that is no plan adds nothing (the
    links check reports it)."""
    peers = {}
    for sweep in (sweeps or {}).values():
        files = sweep.get("files") if isinstance(sweep, dict) else None
        read = files.get(plan_file) if isinstance(files, dict) else None
        try:
            hosts = plan_ends(read.get("json") if isinstance(read, dict) else None)
        except PlanError:
            continue
        for host, ends in hosts.items():
            for device, end in ends.items():
                if end.get("peer_host"):
                    peers.setdefault((host, device), end["peer_host"])
    return peers


def _toward_unswept(found, swept, planned):
    """The node that was not swept at the far end of this peer-less cable finding, or None."""
    if found.get("peer") is not None:
        return None
    far = (planned or {}).get((found.get("host"), found.get("port")))
    return far if far is not None and far not in swept else None


def cable_findings(problems, swept, planned=None):
    """The topology role's problems (macops_topology's) that are about the cables as they are, each on
    a node of ``swept``. A cable to a node that was not swept is that node's own finding: one that
    names it, and one that names no peer on a port the applied plan (``planned``, planned_peers())
    cables to it."""
    return [found for found in problems or [] if found.get("code") in CABLING_CODES
            and found.get("host") in swept and found.get("peer") in list(swept) + [None]
            and _toward_unswept(found, swept, planned) is None]


def lit_cables(host, problems, swept, planned):
    """The swept peers' ports (sorted ``(peer, port)`` pairs) that the applied plan cables to ``host``,
    a node that was not swept, and that report a connected Mac there: ``host`` has power."""
    return sorted(set((found["host"], found.get("port")) for found in problems or []
                      if found.get("code") in CABLING_CODES and found.get("host") in swept
                      and _toward_unswept(found, swept, planned) == host))


def doctor_topology(topology, swept, planned=None):
    """macops_topology as the doctor's report shows it: its cables, with only the cable findings."""
    return dict(topology, problems=cable_findings(topology.get("problems"), swept, planned))


def cabling_problems(macs, settings, planned=None):
    """The cabling check's findings over the swept nodes (``settings``' topology_problems); None (no
    check) with fewer than two swept nodes or no plan."""
    if len(macs) < 2 or settings.get("topology_problems") is None:
        return None
    return cable_findings(settings["topology_problems"], macs, planned)
