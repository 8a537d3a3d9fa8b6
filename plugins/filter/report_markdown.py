# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.report_markdown: the cluster health report for terminals and PR comments."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: report_markdown
short_description: Render the cluster health report as Markdown
version_added: 0.1.0
author: macops.cluster team
description:
  - The twin of P(macops.cluster.report_html#filter) for terminals, CI logs and pull-request
    comments; same order, problems first, each with its fix.
  - GitHub-flavoured Markdown tables; input strings are backslash-escaped so they cannot form
    links, HTML or table cells.
options:
  _input:
    description: The result of P(macops.cluster.cluster_report_model#filter).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Print the report in the CI log
  ansible.builtin.debug:
    msg: "{{ __report_model | macops.cluster.report_markdown }}"
"""

RETURN = r"""
_value:
  description: Markdown text ending in a newline.
  type: str
"""

from ansible_collections.macops.cluster.plugins.plugin_utils._filter_support import raises_filter_error
from ansible_collections.macops.cluster.plugins.plugin_utils._report_render import render_markdown


@raises_filter_error
def report_markdown(model):
    return render_markdown(model)


class FilterModule(object):
    def filters(self):
        return {"report_markdown": report_markdown}
