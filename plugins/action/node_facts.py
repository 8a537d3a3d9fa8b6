# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.node_facts: with min_python, the node's Python is asked over the bare
connection first (as macops.cluster.node_python asks it), so a Mac whose /usr/bin/python3 is only the Command
Line Tools stub fails with node_python_unusable and its fix instead of an unreadable module failure; then the
module runs (documentation: plugins/modules/node_facts.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.action.node_python import ask_python


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        module_args = dict(self._task.args)
        min_python = module_args.pop("min_python", None)
        if min_python:
            asked = ask_python(self, task_vars, None, str(min_python))
            if asked.get("failed"):
                result.update(asked, changed=False)
                return result
        result.update(self._execute_module(module_name="macops.cluster.node_facts", module_args=module_args,
                                           task_vars=task_vars))
        return result
