"""DOT, Mermaid and port-label renderings of a plan."""
import shutil
import subprocess

import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._cabling_render import (cabling_dot, cabling_mermaid,
                                                                                    port_labels)
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


def test_mermaid_ids_labels_and_link_styles():
    text = cabling_mermaid(make_topology())
    lines = text.splitlines()
    assert lines[0] == "graph LR"
    assert '  studio_1["studio-1<br/>Mac Studio (Mac15,14)"]' in lines
    assert '  mini_1 -.-|"en2 (port 1) #lt;-#gt; en4 (port 3), 40 Gb/s tb_link_tb4_speed"| studio_1' in lines
    edges = [l for l in lines if "---|" in l or "-.-|" in l]
    styled = [int(l.split()[1]) for l in lines if l.strip().startswith("linkStyle")]
    assert styled == [i for i, l in enumerate(edges) if "-.-|" in l] and styled


def test_mermaid_ids_stay_unique():
    hosts = {"mac-1": "mini", "mac_1": "mini"}
    text = cabling_mermaid(build_topology(build_nodes(hosts, ["mac-1:1 mac_1:1"])))
    assert '  mac_1["mac-1' in text and '  mac_1_2["mac_1' in text and "mac_1 ---|" in text


def test_port_labels_one_row_per_cable_end_sorted():
    table = port_labels(make_topology()).splitlines()
    assert table[0] == "| Mac | Port | Goes to Mac | Port there | Speed | Problems |"
    assert table[2:] == [
        "| mini.1 | en2 (port 1) | studio-1 | en4 (port 3) | 40 Gb/s | tb_link_tb4_speed |",
        "| mini.1 | en3 (port 2) | studio-2 | en2 (port 1) | 80 Gb/s | tb_port_next_to_ethernet |",
        "| studio-1 | en3 (port 2) | studio-2 | en3 (port 2) | 80 Gb/s |  |",
        "| studio-1 | en4 (port 3) | mini.1 | en2 (port 1) | 40 Gb/s | tb_link_tb4_speed |",
        "| studio-2 | en2 (port 1) | mini.1 | en3 (port 2) | 80 Gb/s | tb_port_next_to_ethernet |",
        "| studio-2 | en3 (port 2) | studio-1 | en3 (port 2) | 80 Gb/s |  |",
    ]


@pytest.mark.parametrize("render", [cabling_dot, cabling_mermaid, port_labels])
def test_renderers_reject_other_input(render):
    with pytest.raises(TopologyError, match="expected the result"):
        render({"links": "nope"})
