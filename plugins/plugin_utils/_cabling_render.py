# -*- coding: utf-8 -*-
# PRIVATE to the collection: drawings and labels of the Thunderbolt cabling.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Graphviz DOT, Mermaid and a Markdown port-label table from a topology plan."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ._topology_common import INFO, TopologyError, describe_port, describe_speed, link_id_of, link_label, natural_key

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


def _mermaid_id(name, taken):
    base = re.sub(r"[^A-Za-z0-9_]", "_", str(name)) or "host"
    candidate = base
    suffix = 2
    while candidate in taken:
        candidate = "%s_%d" % (base, suffix)
        suffix += 1
    taken.add(candidate)
    return candidate


def _mermaid_text(text):
    # Mermaid entity codes: a raw quote ends the label, and < > could be read as HTML.
    return str(text).replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def cabling_mermaid(topology):
    """Mermaid flowchart; problem cables are dotted and red (linkStyle by edge index)."""
    topology = _checked(topology)
    codes = problem_codes_by_link(topology)
    ids = {}
    taken = set()
    lines = ["graph LR"]
    for host in topology["hosts"]:
        ids[host["name"]] = _mermaid_id(host["name"], taken)
        lines.append('  %s["%s"]' % (ids[host["name"]], "<br/>".join(_mermaid_text(t) for t in _host_caption(host))))
    styled = []
    for index, link in enumerate(topology["links"]):
        label = link_label(link)
        arrow = "---"
        if link["id"] in codes:
            label += " " + ", ".join(codes[link["id"]])
            arrow = "-.-"
            styled.append(index)
        lines.append('  %s %s|"%s"| %s' % (ids[link["a"]["host"]], arrow, _mermaid_text(label), ids[link["b"]["host"]]))
    for index in styled:
        lines.append("  linkStyle %d stroke:%s,stroke-width:2px,stroke-dasharray:5 5" % (index, PROBLEM_COLOUR))
    return "\n".join(lines) + "\n"


def _markdown_cell(text):
    return str(text).replace("|", "\\|")


def port_labels(topology):
    """Markdown table with one row per cable end, sorted by Mac and port, for sticky labels."""
    topology = _checked(topology)
    codes = problem_codes_by_link(topology)
    rows = []
    for link in topology["links"]:
        for end, other in ((link["a"], link["b"]), (link["b"], link["a"])):
            rows.append(((natural_key(end["host"]), end["receptacle"]), [
                end["host"], describe_port(end.get("interface"), end["receptacle"]),
                other["host"], describe_port(other.get("interface"), other["receptacle"]),
                describe_speed(link["speed_gbps"]), ", ".join(codes.get(link["id"], [])),
            ]))
    rows.sort(key=lambda row: row[0])
    lines = ["| Mac | Port | Goes to Mac | Port there | Speed | Problems |",
             "|---|---|---|---|---|---|"]
    for _key, cells in rows:
        lines.append("| %s |" % " | ".join(_markdown_cell(cell) for cell in cells))
    return "\n".join(lines) + "\n"
