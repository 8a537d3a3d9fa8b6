"""HTML and Markdown of the report (plugins/plugin_utils/_report_render.py): parseable, self-contained, problems
first with fixes, escaped; the devices behind a dock, and the link to the latest benchmark page."""
import re
from html.parser import HTMLParser

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import ReportError, build_report_model
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import (md, render_html, render_markdown,
                                                                                    summary_facts)

from report_fixture import SSD, report_inputs, with_ssd_on_mac1_port6

HOSTILE = "<script>alert('pwned')</script>"
VOID = {"meta", "br", "img", "input", "link", "hr", "path", "rect"}


class Structure(HTMLParser):
    """Collects tags, text and unbalanced tags, to check the page is well formed."""

    def __init__(self):
        HTMLParser.__init__(self)
        self.stack, self.errors, self.tags, self.text, self.attrs = [], [], [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s> with open %s" % (tag, self.stack[-3:]))
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse(html):
    parser = Structure()
    parser.feed(html)
    parser.close()
    return parser


def hostile_model():
    nodes, topology = report_inputs()
    nodes[HOSTILE] = {"reachable": False}
    extra = [problem("tb_peer_unknown", "a | pipe and *stars* in `code`",
                     "Run `sudo networksetup -listallhardwareports` on mac1.", host="mac1", port="en3")]
    return build_report_model(nodes, topology, extra, run={"playbook": "site.yml", "started": "2026-11-30T10:00:00Z"})


def test_html_is_well_formed_and_self_contained():
    page = parse(render_html(hostile_model(), graphviz_href="cabling-graphviz.svg"))
    assert page.errors == [] and page.stack == []
    assert "script" not in page.tags and "link" not in page.tags and "img" not in page.tags
    urls = [v for k, v in page.attrs if k in ("href", "src") and v]
    assert all(not u.startswith(("http:", "https:", "//")) for u in urls)
    assert "cabling-graphviz.svg" in urls and "hostfiles/ring.json" in urls
    assert page.tags.count("svg") == 1


def test_hostile_strings_are_escaped():
    html = render_html(hostile_model())
    assert HOSTILE not in html
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in html
    text = "".join(parse(html).text)
    assert HOSTILE in text


def test_problems_come_first_with_every_fix():
    model = hostile_model()
    html = render_html(model)
    text = "".join(parse(html).text)
    for problem in model["problems"]:
        assert problem["code"] in text
    assert "<code>sudo networksetup -listallhardwareports</code>" in html
    assert html.index('id="problems"') < html.index('id="nodes"') < html.index('id="cabling"')
    order = [html.index('<code>%s</code>' % p["code"]) for p in model["problems"]]
    assert order == sorted(order)
    for problem in model["problems"]:
        fix_text = problem["fix"].replace("`", "")
        assert fix_text in text.replace("`", ""), fix_text
    assert 'class="verdict verdict-failed"' in html


def healthy_inputs():
    nodes, topology = report_inputs(rdma_off=None)
    for node in nodes.values():
        node["rdma"]["problems"] = []
    return nodes, dict(topology, problems=[])


def test_nodes_without_data_read_not_checked():
    nodes, topology = healthy_inputs()
    nodes["mac4"] = {}
    html = render_html(build_report_model(nodes, topology))
    row = html[html.index("<b>mac4</b>"):]
    row = row[:row.index("</tr>")]
    # reachable, memory, RDMA, GPU: the planner still knows model and macOS from its own facts
    assert row.count('<span class="nc">not checked</span>') == 4
    assert "Mac Studio (Mac15,14)" in row and "Not checked" in row


def test_the_header_says_not_checked_for_cables_and_rdma_a_run_did_not_read():
    # A benchmark run plans no cables and reads no RDMA: its header must not claim 0 cables, 0/4 RDMA ready.
    nodes, topology = healthy_inputs()
    read = summary_facts(build_report_model(nodes, topology))
    assert dict((label, value) for value, label in read) == {
        "nodes": 4, "reachable": "4/4", "RDMA ready": "2/4", "cables": 6, "topology": "full mesh"}
    for node in nodes.values():
        del node["rdma"]
    unread = build_report_model(nodes, {})
    assert dict((label, value) for value, label in summary_facts(unread)) == {
        "nodes": 4, "reachable": "4/4", "RDMA ready": "not checked", "cables": "not checked",
        "topology": "not checked"}
    assert "not checked RDMA ready" in render_markdown(unread) and "<b>not checked</b>cables" in render_html(unread)


def test_healthy_page_says_so():
    model = build_report_model(*healthy_inputs())
    assert model["verdict"] == "healthy"
    html = render_html(model)
    assert "No problems found." in html and 'class="verdict verdict-healthy"' in html
    assert "No problems found." in render_markdown(model)


def test_markdown_lists_problems_first_and_escapes():
    model = hostile_model()
    text = render_markdown(model)
    assert text.startswith("# Mac cluster health: FAILED\n")
    assert text.index("## Problems") < text.index("## Nodes") < text.index("## Cables")
    # Inside a code span Markdown shows text verbatim, so only text outside code spans needs escapes.
    assert HOSTILE not in re.sub(r"`[^`]*`", "", text) and md(HOSTILE) in text
    assert "Fix: Run `sudo networksetup -listallhardwareports` on mac1." in text
    assert "a \\| pipe and \\*stars\\* in `code`" in text
    for problem in model["problems"]:
        assert "`%s`" % problem["code"] in text
    table_rows = [l for l in text.splitlines() if l.startswith("| mac") or l.startswith("| \\<script")]
    header = [l for l in text.splitlines() if l.startswith("| Node |")][0]
    assert all(r.count(" | ") == header.count(" | ") for r in table_rows[:5])


def test_renderers_reject_other_input():
    for render in (render_html, render_markdown):
        with pytest.raises(ReportError):
            render({"verdict": "healthy"})


def test_the_health_report_links_the_latest_benchmark_page():
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html, render_markdown
    model = build_report_model({"mac1": {}}, {}, [], "Mac cluster health",
                               {"playbook": "site.yml", "benchmark_report": "../benchmark/index.html"})
    assert 'Latest benchmark: <a href="../benchmark/index.html">' in render_html(model)
    assert "Latest benchmark: [../benchmark/index.html](../benchmark/index.html)" in render_markdown(model)
    plain = build_report_model({"mac1": {}}, {}, [], "Mac cluster health", {"playbook": "site.yml"})
    assert "Latest benchmark" not in render_html(plain)


def test_a_device_behind_a_dock_names_the_dock_and_no_section_without_devices():
    nodes, topology = with_ssd_on_mac1_port6()
    port6 = next(p for p in nodes["mac1"]["mac"]["thunderbolt_ports"] if p["receptacle"] == 6)
    port6["devices"] = [{"name": "TS5 Plus", "vendor": "CalDigit, Inc."},
                        dict(SSD, depth=2, upstream="TS5 Plus", mode=None, speed=None), "junk"]
    model = build_report_model(nodes, topology)
    assert "<td>Envoy Ultra (Other World Computing)</td><td>behind TS5 Plus</td>" in render_html(model)
    assert "<td>TS5 Plus (CalDigit, Inc.)</td><td><span class=\"muted\">\u2013</span></td>" in render_html(model)
    assert "| TS5 Plus (CalDigit, Inc.) | - |" in render_markdown(model)
    plain_nodes, plain_topology = report_inputs(rdma_off=None)
    plain = build_report_model(plain_nodes, plain_topology)
    assert "Thunderbolt devices" not in render_html(plain) and "Thunderbolt devices" not in render_markdown(plain)


def test_a_node_carrying_a_security_response_shows_its_release_and_build():
    """Issue 48: the report names the release as macOS does, 26.3.1 (a), with the response's own build."""
    from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import macos_text

    node = {"hardware": {"macos_version": "26.3.1", "macos_version_extra": "(a)", "macos_build": "25D771280a"}}
    assert macos_text(node) == "26.3.1 (a) (25D771280a)"
    assert macos_text({"hardware": {"macos_version": "26.2", "macos_build": "25C56"}}) == "26.2 (25C56)"
