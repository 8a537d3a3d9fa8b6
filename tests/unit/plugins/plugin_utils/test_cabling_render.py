"""The DOT rendering of a plan (the report's cabling-graphviz.svg)."""
import shutil
import subprocess

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._cabling_render import cabling_dot
from ansible_collections.macops.cluster.plugins.plugin_utils._topology import build_topology
from ansible_collections.macops.cluster.plugins.plugin_utils._topology_common import TopologyError

from cabling_builder import build_nodes


def make_topology():
    hosts = {"studio-1": "studio", "studio-2": "studio", "mini.1": "mini"}
    cables = ["studio-1:2 studio-2:2", "studio-1:3 mini.1:1 @40", "studio-2:1 mini.1:2"]
    return build_topology(build_nodes(hosts, cables))


def test_dot_labels_and_problem_edges():
    dot = cabling_dot(make_topology())
    assert '"studio-1" -- "studio-2" [label="en3 (port 2) <-> en3 (port 2), 80 Gb/s"];' in dot
    assert ('"mini.1" -- "studio-1" [label="en2 (port 1) <-> en4 (port 3), 40 Gb/s\\ntb_link_tb4_speed", '
            'color="#d62728", fontcolor="#d62728", style=dashed, penwidth=2];') in dot
    assert 'tb_port_next_to_ethernet' in dot
    assert '"mini.1" [label="mini.1\\nMac mini (Mac16,11)"];' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz is not installed")
def test_graphviz_accepts_the_dot(tmp_path):
    topology = make_topology()
    topology["hosts"][0]["name"] = 'odd "name" \\ here'
    for link in topology["links"]:
        if link["a"]["host"] == "mini.1":
            link["a"]["host"] = 'odd "name" \\ here'
    result = subprocess.run(["dot", "-Tsvg"], input=cabling_dot(topology), capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout and "tb_link_tb4_speed" in result.stdout
    assert "odd &quot;name&quot; \\ here" in result.stdout
    # the same check rejects DOT with an unescaped quote, the mistake _dot_string prevents
    broken = subprocess.run(["dot", "-Tsvg"], input='graph { "a "b" -- c }', capture_output=True, text=True,
                            timeout=60)
    assert broken.returncode != 0


def test_dot_rejects_other_input():
    with pytest.raises(TopologyError, match="expected the result"):
        cabling_dot({"links": "nope"})
