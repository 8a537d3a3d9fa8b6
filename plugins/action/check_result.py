# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.check_result: a step's result published as it is, its problems
checked against the catalogue, warnings shown and the host failed on the severities asked for
(documentation: plugins/modules/check_result.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem
from ansible_collections.macops.cluster.plugins.plugin_utils._judge import judge

ARGUMENT_SPEC = dict(
    result=dict(type="dict", required=True),
    fail_on=dict(type="str", choices=["error", "warning", "never"], default="error"),
    what=dict(type="str", default=""),
    msg=dict(type="str", default=""),
    warn=dict(type="list", elements="str", default=[]),
    fail=dict(type="bool", default=False),
)
# The result keys Ansible gives a meaning of its own: a published result must not set them.
RESERVED = ("failed", "changed", "skipped", "msg", "warnings", "ansible_facts", "invocation")


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        published = args["result"]
        clashes = sorted(key for key in published if key in RESERVED)
        if clashes:
            raise AnsibleActionFail("check_result: the result may not set %s (Ansible's own result keys)"
                                    % ", ".join(clashes))
        problems = published.get("problems", [])
        if not isinstance(problems, list):
            raise AnsibleActionFail("check_result: result.problems must be a list, got %s" % type(problems).__name__)
        strays = [problem for problem in problems if not is_problem(problem)]
        if strays:
            raise AnsibleActionFail("check_result: result.problems holds entries that are not catalogue problems "
                                    "(plugins/module_utils/_problems.py, docs/problems.md): %r" % strays[:3])
        result.update(published)
        result["changed"] = False
        return judge(result, problems, args["fail_on"], args["what"], args["msg"], args["warn"], args["fail"])
