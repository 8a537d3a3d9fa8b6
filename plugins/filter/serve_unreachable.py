# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: serve_unreachable
short_description: Why a completion sent through the served endpoint never connected, or nothing
version_added: 0.2.0
author: macops.cluster team
description:
  - From an M(ansible.builtin.uri) result of a request to the served endpoint, urllib's reason when the controller
    could not connect at all (refused, no route, a connect that timed out, as the serving firewall's drop gives),
    else an empty string. A request that connected and got no answer in time is the server's (busy or hung), not
    this.
options:
  _input:
    description: The uri task's registered result.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Name the problem of an endpoint that did not answer
  ansible.builtin.set_fact:
    code: "{{ 'serve_unreachable' if serve_completion | macops.cluster.serve_unreachable else 'serve_not_ready' }}"
"""

RETURN = r"""
_value:
  description: The reason (such as V([Errno 111] Connection refused) or V(timed out)), or an empty string.
  type: str
"""


def serve_unreachable(answer):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._serve_reach import could_not_connect
    return could_not_connect(answer) or ""


class FilterModule(object):
    def filters(self):
        return {"serve_unreachable": serve_unreachable}
