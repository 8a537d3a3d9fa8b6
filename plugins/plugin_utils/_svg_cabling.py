# -*- coding: utf-8 -*-
# PRIVATE to the collection: the cabling diagram of the cluster health report.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""Draw the Thunderbolt cabling as a self-contained SVG, without Graphviz.

Nodes sit on a circle (on a line for up to three Macs); each is a box with its name, model and
memory, outlined in the colour of its worst problem. Each cable is one path element labelled with
the port at each end ("en3 (port 2)") and the speed in the middle; cables with a warning or error
are red and dashed and name their problem codes; pairs without a cable (no full mesh) are dotted
grey. Coordinates are rounded to one decimal and everything is laid out in canonical order, so the
same plan always gives the same bytes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
from xml.sax.saxutils import escape, quoteattr

from ._report_model import checked_model
from ._topology_common import ERROR, WARNING, describe_speed

BOX_WIDTH = 176
BOX_HEIGHT = 60
MARGIN = 70
LEGEND_HEIGHT = 44
LINE_SPACING = 500
FONT_SIZE = 11
# Average advance of an 11 px sans-serif glyph; only used to keep labels from overlapping.
CHAR_WIDTH = 6.4
LABEL_HEIGHT = 15
PARALLEL_SPREAD = 50.0

STATUS_COLOURS = {"ok": "#1a7f37", WARNING: "#9a6700", ERROR: "#cf222e", "unknown": "#6e7781"}
PROBLEM_COLOUR = "#cf222e"
CABLE_COLOUR = "#3b4a5a"
MISSING_COLOUR = "#9aa4af"

STYLE = """
.cab-node rect{fill:#fff;stroke-width:2.5}
.cab-name{font-weight:700;font-size:14px;fill:#1f2328}
.cab-sub{font-size:11px;fill:#57606a}
.cab-link{fill:none;stroke:%(cable)s;stroke-width:2.5}
.cab-problem{stroke:%(problem)s;stroke-dasharray:9 5;stroke-width:3}
.cab-missing{fill:none;stroke:%(missing)s;stroke-width:1.5;stroke-dasharray:2 5}
.cab-label{font-size:%(font)dpx;fill:#1f2328}
.cab-plate{fill:#fff;fill-opacity:.94}
.cab-label-problem{fill:%(problem)s;font-weight:700}
.cab-title{font-size:13px;font-weight:700;fill:#1f2328}
.cab-legend{font-size:11px;fill:#57606a}
text{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Helvetica,Arial,sans-serif}
""" % {"cable": CABLE_COLOUR, "problem": PROBLEM_COLOUR, "missing": MISSING_COLOUR, "font": FONT_SIZE}


def _num(value):
    text = "%.1f" % value
    return "0.0" if text == "-0.0" else text


def _positions(count):
    """Centre of each node box, plus the canvas size."""
    if count <= 3:
        width = 2 * MARGIN + BOX_WIDTH + LINE_SPACING * max(count - 1, 0)
        # room above the line for the arc that joins the two outer Macs of three
        height = 2 * MARGIN + BOX_HEIGHT + (110 if count == 3 else 40)
        y = height - MARGIN - BOX_HEIGHT / 2.0
        return [(MARGIN + BOX_WIDTH / 2.0 + LINE_SPACING * i, y) for i in range(count)], width, height
    radius = max(230.0, 62.0 * count)
    # Boxes are wider than tall: stretch the circle sideways so horizontal cables get as much free
    # length for their labels as vertical ones.
    radius_x = radius + BOX_WIDTH * 0.6
    # With an even count, turn the polygon so that two sides are horizontal and the first Mac sits
    # top left (a square read like text for four).
    start = -90.0 - (180.0 / count if count % 2 == 0 else 0.0)
    centre_x = MARGIN + BOX_WIDTH / 2.0 + radius_x
    centre_y = MARGIN + BOX_HEIGHT / 2.0 + radius
    points = []
    for index in range(count):
        angle = math.radians(start + 360.0 * index / count)
        points.append((centre_x + radius_x * math.cos(angle), centre_y + radius * math.sin(angle)))
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    width = max(xs) + BOX_WIDTH / 2.0 + MARGIN
    height = max(ys) + BOX_HEIGHT / 2.0 + MARGIN
    shift_y = MARGIN + BOX_HEIGHT / 2.0 - min(ys)
    return [(x, y + shift_y) for x, y in points], width, height + shift_y


class _Curve(object):
    """A quadratic Bezier between two node centres, bent sideways by `bend` pixels."""

    def __init__(self, start, end, bend):
        self.start = start
        self.end = end
        mid = ((start[0] + end[0]) / 2.0, (start[1] + end[1]) / 2.0)
        dx, dy = end[0] - start[0], end[1] - start[1]
        length = math.hypot(dx, dy) or 1.0
        # Twice the bend: a quadratic curve's apex lies halfway to its control point.
        self.control = (mid[0] - dy / length * bend * 2.0, mid[1] + dx / length * bend * 2.0)

    def point(self, t):
        u = 1.0 - t
        return (u * u * self.start[0] + 2 * u * t * self.control[0] + t * t * self.end[0],
                u * u * self.start[1] + 2 * u * t * self.control[1] + t * t * self.end[1])

    def path(self):
        if self.control == ((self.start[0] + self.end[0]) / 2.0, (self.start[1] + self.end[1]) / 2.0):
            return "M%s %sL%s %s" % tuple(_num(v) for v in self.start + self.end)
        return "M%s %sQ%s %s %s %s" % tuple(_num(v) for v in self.start + self.control + self.end)


def _inside(point, centre, pad=0.0):
    return abs(point[0] - centre[0]) <= BOX_WIDTH / 2.0 + pad and abs(point[1] - centre[1]) <= BOX_HEIGHT / 2.0 + pad


def _exit_t(curve, centre, from_start):
    """Parameter where the curve leaves the node box at one end (sampled: boxes are small)."""
    steps = range(0, 101) if from_start else range(100, -1, -1)
    for step in steps:
        t = step / 100.0
        if not _inside(curve.point(t), centre, 2.0):
            return t
    return 0.5


def _point_at_distance(curve, t_from, distance, forward):
    """Walk along the curve from t_from until `distance` pixels have been covered."""
    step = 0.005 if forward else -0.005
    t = t_from
    walked = 0.0
    previous = curve.point(t)
    while 0.0 <= t + step <= 1.0 and walked < distance:
        t += step
        current = curve.point(t)
        walked += math.hypot(current[0] - previous[0], current[1] - previous[1])
        previous = current
    return previous


class _Placer(object):
    """Greedy label placement: the first candidate position that overlaps nothing placed before."""

    def __init__(self, node_centres):
        self.boxes = [(x - BOX_WIDTH / 2.0, y - BOX_HEIGHT / 2.0, x + BOX_WIDTH / 2.0, y + BOX_HEIGHT / 2.0)
                      for x, y in node_centres]

    @staticmethod
    def _box(point, lines):
        half_width, half_height = label_extent(lines)
        return (point[0] - half_width, point[1] - half_height, point[0] + half_width, point[1] + half_height)

    def _free(self, box):
        for other in self.boxes:
            if box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]:
                return False
        return True

    def place(self, candidates, lines):
        for point in candidates:
            box = self._box(point, lines)
            if self._free(box):
                self.boxes.append(box)
                return point
        self.boxes.append(self._box(candidates[0], lines))
        return candidates[0]


def label_extent(lines):
    """Half width and half height of a label centred on its anchor point."""
    return max(len(line) for line in lines) * CHAR_WIDTH / 2.0 + 3, LABEL_HEIGHT * len(lines) / 2.0 + 1


def _bends(model_links, index_of, line_layout):
    """Sideways bend per cable: parallel cables fan out; on a line, a cable that skips a Mac arcs over it."""
    by_pair = {}
    for link in model_links:
        pair = tuple(sorted((index_of[link["a"]["host"]], index_of[link["b"]["host"]])))
        by_pair.setdefault(pair, []).append(link["id"])
    bends = {}
    for pair, ids in by_pair.items():
        base = 0.0
        if line_layout and pair[1] - pair[0] > 1:
            base = -60.0 * (pair[1] - pair[0] - 1) - 20.0
        for position, link_id in enumerate(ids):
            # 0, +50, -50, +100 ... around the base bend: a second cable between one pair fans out
            offset = PARALLEL_SPREAD * ((position + 1) // 2) * (1 if position % 2 else -1)
            bends[link_id] = base + offset
    return bends


def _label(point, lines, extra_class=""):
    """A label centred on `point`; one tspan per line."""
    classes = "cab-label" + (" " + extra_class if extra_class else "")
    half_width, half_height = label_extent(lines)
    # An opaque plate under the text: cables run straight through their own labels otherwise.
    plate = '<rect class="cab-plate" x="%s" y="%s" width="%s" height="%s" rx="4"/>' % (
        _num(point[0] - half_width), _num(point[1] - half_height), _num(2 * half_width), _num(2 * half_height))
    first_baseline = point[1] - LABEL_HEIGHT * (len(lines) - 1) / 2.0 + 4
    spans = "".join('<tspan x="%s" y="%s">%s</tspan>' % (
        _num(point[0]), _num(first_baseline + LABEL_HEIGHT * i), escape(line)) for i, line in enumerate(lines))
    return '%s<text class="%s" text-anchor="middle">%s</text>' % (plate, classes, spans)


def _end_label_candidates(curve, t_exit, forward, lines):
    """Points just past the node box along the cable, far enough that the label clears the box."""
    here = curve.point(t_exit)
    ahead = curve.point(min(max(t_exit + (0.02 if forward else -0.02), 0.0), 1.0))
    dx, dy = ahead[0] - here[0], ahead[1] - here[1]
    length = math.hypot(dx, dy) or 1.0
    half_width, half_height = label_extent(lines)
    # how far the label reaches back towards the box along the cable's direction
    clearance = abs(dx / length) * half_width + abs(dy / length) * half_height + 6
    return [_point_at_distance(curve, t_exit, clearance + step, forward) for step in (0, 16, 32, 50, 70, 95)]


def _node_lines(node):
    hardware = node.get("hardware") or {}
    chip = str(hardware["chip"]).replace("Apple ", "") if hardware.get("chip") else None
    model = " ".join(v for v in (hardware.get("model_name"), chip) if v) or "model not checked"
    memory = "%d GB memory" % hardware["memory_gb"] if hardware.get("memory_gb") is not None else "memory not checked"
    return model, memory


def _is_problem(link):
    return link.get("severity") in (ERROR, WARNING)


def draw_cabling(model):
    """SVG text for the `topology` and `nodes` of a report model (see _report_model)."""
    nodes = model.get("nodes") or []
    topology = model.get("topology") or {}
    links = [l for l in topology.get("links") or [] if l["a"]["host"] != l["b"]["host"]]
    names = [n["name"] for n in nodes]
    index_of = dict((name, i) for i, name in enumerate(names))
    links = [l for l in links if l["a"]["host"] in index_of and l["b"]["host"] in index_of]
    centres, width, height = _positions(len(nodes))
    line_layout = len(nodes) <= 3
    bends = _bends(links, index_of, line_layout)
    placer = _Placer(centres)
    caption = "Thunderbolt cabling: %s" % (topology.get("class") or "not planned")

    total_height = height + LEGEND_HEIGHT
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="cabling" viewBox="0 0 %s %s" width="%s" height="%s" '
           'role="img" aria-label=%s>' % (_num(width), _num(total_height), _num(width), _num(total_height),
                                          quoteattr(caption)),
           "<title>%s</title>" % escape(caption),
           "<style>%s</style>" % STYLE.strip()]

    out.append('<g class="cab-missing-pairs">')
    for a, b in topology.get("missing_pairs") or []:
        if a in index_of and b in index_of:
            bend = -60.0 * (abs(index_of[a] - index_of[b]) - 1) - 20.0 \
                if line_layout and abs(index_of[a] - index_of[b]) > 1 else 0.0
            curve = _Curve(centres[index_of[a]], centres[index_of[b]], bend)
            out.append('<path class="cab-missing" data-pair=%s d="%s"><title>%s</title></path>' % (
                quoteattr("%s--%s" % (a, b)), curve.path(),
                escape("No cable between %s and %s (needed for a full mesh)" % (a, b))))
    out.append("</g>")

    labels = []
    out.append('<g class="cab-links">')
    for link in links:
        a, b = link["a"], link["b"]
        curve = _Curve(centres[index_of[a["host"]]], centres[index_of[b["host"]]], bends[link["id"]])
        problem = _is_problem(link)
        speed = describe_speed(link.get("speed_gbps"))
        title = "%s %s <-> %s %s, %s" % (a["host"], a["port"], b["host"], b["port"], speed)
        if link.get("problem_codes"):
            title += " (%s)" % ", ".join(link["problem_codes"])
        out.append('<path class="cab-link%s" data-link-id=%s d="%s"><title>%s</title></path>' % (
            " cab-problem" if problem else "", quoteattr(link["id"] or ""), curve.path(), escape(title)))

        t_a = _exit_t(curve, curve.start, True)
        t_b = _exit_t(curve, curve.end, False)
        for end, t_exit, forward in ((a, t_a, True), (b, t_b, False)):
            lines = [end["port"]]
            labels.append(_label(placer.place(_end_label_candidates(curve, t_exit, forward, lines), lines), lines))
        middle = [speed]
        if problem:
            middle += link.get("problem_codes") or []
        candidates = [curve.point(t) for t in (0.5, 0.42, 0.58, 0.35, 0.65, 0.3, 0.7)]
        labels.append(_label(placer.place(candidates, middle), middle, "cab-label-problem" if problem else ""))
    out.append("</g>")

    out.append('<g class="cab-nodes">')
    for node, centre in zip(nodes, centres):
        colour = STATUS_COLOURS.get(node.get("status"), STATUS_COLOURS["unknown"])
        model_line, memory_line = _node_lines(node)
        left, top = centre[0] - BOX_WIDTH / 2.0, centre[1] - BOX_HEIGHT / 2.0
        out.append('<g class="cab-node" data-host=%s><title>%s</title>' % (
            quoteattr(node["name"]), escape("%s: %s" % (node["name"], node.get("status") or "unknown"))))
        out.append('<rect x="%s" y="%s" width="%d" height="%d" rx="9" style="stroke:%s"/>' % (
            _num(left), _num(top), BOX_WIDTH, BOX_HEIGHT, colour))
        out.append('<text class="cab-name" x="%s" y="%s" text-anchor="middle">%s</text>' % (
            _num(centre[0]), _num(top + 20), escape(node["name"])))
        out.append('<text class="cab-sub" x="%s" y="%s" text-anchor="middle">%s</text>' % (
            _num(centre[0]), _num(top + 36), escape(model_line)))
        out.append('<text class="cab-sub" x="%s" y="%s" text-anchor="middle">%s</text>' % (
            _num(centre[0]), _num(top + 51), escape(memory_line)))
        out.append("</g>")
    out.append("</g>")
    out.append('<g class="cab-labels">%s</g>' % "".join(labels))
    out.append(_legend(height))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _legend(top):
    y = top + 18
    items = [("cab-link", "cable"), ("cab-link cab-problem", "cable with a problem"),
             ("cab-missing", "no cable (full mesh needs one)")]
    out = ['<g class="cab-legend-box">']
    x = float(MARGIN)
    for css_class, text in items:
        out.append('<path class="%s" d="M%s %sL%s %s"/>' % (css_class, _num(x), _num(y), _num(x + 34), _num(y)))
        out.append('<text class="cab-legend" x="%s" y="%s">%s</text>' % (_num(x + 42), _num(y + 4), escape(text)))
        x += 42 + len(text) * CHAR_WIDTH + 34
    out.append("</g>")
    return "".join(out)


def cabling_svg(model):
    """The report's cabling.svg: the drawing of a report model, or ReportError when it is none."""
    return draw_cabling(checked_model(model))
