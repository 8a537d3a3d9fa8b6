# -*- coding: utf-8 -*-
# PRIVATE to the collection: the Thunderbolt cabling as a Graphviz graph.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Graphviz DOT from a topology plan: the report's cabling-graphviz.svg, where Graphviz is installed
(the cluster_report action runs `dot -Tsvg` on it; the report's own drawing is _svg_cabling.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ._topology_common import INFO, TopologyError, link_id_of, link_label

PROBLEM_COLOUR = "#d62728"


def _checked(topology):
    if not isinstance(topology, dict) or not isinstance(topology.get("links"), list) \
            or not isinstance(topology.get("hosts"), list):
        raise TopologyError("expected the result of macops.cluster.thunderbolt_topology")
    return topology


def problem_codes_by_link(topology):
    """{link id: [codes]} for the problems worth drawing (info-level ones are not)."""
    codes = {}
    for problem in topology.get("problems", []):
        link_id = link_id_of(problem)
        if link_id and problem.get("severity") != INFO:
            codes.setdefault(link_id, [])
            if problem["code"] not in codes[link_id]:
                codes[link_id].append(problem["code"])
    return codes


def _host_caption(host):
    model = " ".join(str(v) for v in (host.get("model_name"), "(%s)" % host["model_id"] if host.get("model_id") else None) if v)
    return [host["name"]] + ([model] if model else [])


def _dot_string(text):
    """A quoted DOT string; a newline becomes DOT's own centred line break."""
    return '"%s"' % str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def cabling_dot(topology):
    """Undirected DOT graph; problem cables are red and dashed and name their problem codes."""
    topology = _checked(topology)
    codes = problem_codes_by_link(topology)
    lines = [
        "graph cabling {",
        "  graph [rankdir=LR, fontname=\"Helvetica\", label=%s, labelloc=t];" % _dot_string(
            "Thunderbolt cabling: %s" % topology.get("class", "unknown")),
        "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
        "  edge [fontname=\"Helvetica\", fontsize=10];",
    ]
    for host in topology["hosts"]:
        lines.append("  %s [label=%s];" % (_dot_string(host["name"]), _dot_string("\n".join(_host_caption(host)))))
    for link in topology["links"]:
        label = link_label(link)
        attributes = []
        if link["id"] in codes:
            label += "\n" + ", ".join(codes[link["id"]])
            attributes = ["color=%s" % _dot_string(PROBLEM_COLOUR), "fontcolor=%s" % _dot_string(PROBLEM_COLOUR),
                          "style=dashed", "penwidth=2"]
        attributes.insert(0, "label=%s" % _dot_string(label))
        lines.append("  %s -- %s [%s];" % (
            _dot_string(link["a"]["host"]), _dot_string(link["b"]["host"]), ", ".join(attributes)))
    lines.append("}")
    return "\n".join(lines) + "\n"
