# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.report_html: the cluster health report as one self-contained HTML page."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: report_html
short_description: Render the cluster health report as a self-contained HTML page
version_added: 0.1.0
author: macops.cluster team
description:
  - Verdict and counts first, then every problem (severity-coloured, with host, port and fix),
    nodes, software and services, the cabling drawing (P(macops.cluster.cabling_svg#filter),
    inline), the cables and the MLX hostfiles.
  - Inline CSS and SVG, no JavaScript and no external assets; readable in print. Every input
    string is HTML-escaped.
positional: graphviz_href
options:
  _input:
    description: The result of P(macops.cluster.cluster_report_model#filter).
    type: dict
    required: true
  graphviz_href:
    description: Link to a Graphviz rendering of the cabling, shown under the drawing when set.
    type: str
"""

EXAMPLES = r"""
- name: Write the report page
  ansible.builtin.copy:
    content: "{{ __report_model | macops.cluster.report_html }}"
    dest: "{{ report_dir }}/index.html"
    mode: "0644"
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
_value:
  description: An HTML5 document.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_html


@raises_filter_error
def report_html(model, graphviz_href=None):
    return render_html(model, graphviz_href=graphviz_href)


class FilterModule(object):
    def filters(self):
        return {"report_html": report_html}
