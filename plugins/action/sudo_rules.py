# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.sudo_rules: `sudo -n -l` run on the node over the bare
connection, its listing audited on the controller (documentation: plugins/modules/sudo_rules.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.module_utils._sudo_rules import audit
from ansible_collections.macops.cluster.plugins.plugin_utils._judge import judge

ARGUMENT_SPEC = dict(
    sudoers=dict(type="dict"),
    verify=dict(type="bool", default=True),
    expected=dict(type="list", elements="str", default=[]),
    accepted=dict(type="list", elements="str", default=[]),
    fail_on=dict(type="str", choices=["error", "warning", "never"], default="error"),
)
LIST = "/usr/bin/sudo -n -l"


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        result.update(changed=False, problems=[])
        if args["sudoers"]:
            # Apply first, with the task's become: community.general.sudoers writes the drop-in only
            # after `visudo -c` accepted it.
            applied = self._execute_module(module_name="community.general.sudoers", module_args=args["sudoers"],
                                           task_vars=task_vars)
            if applied.get("failed"):
                result.update(failed=True, msg="sudoers: %s" % applied.get("msg", "community.general.sudoers failed"),
                              applied=applied)
                return result
            result.update(changed=bool(applied.get("changed")))
            if "diff" in applied:
                result["diff"] = applied["diff"]
        if not args["verify"] or (self._task.check_mode and result["changed"]):
            # Rules only predicted in check mode are not in force yet: nothing to list.
            return result
        # No Python start on the node, and no tty: sudo neither mixes stderr in nor wraps long rules.
        answer = self._low_level_execute_command(LIST, sudoable=False)
        problems = audit(to_text(answer.get("stdout", "")), rc=int(answer.get("rc", 1)),
                         stderr=to_text(answer.get("stderr", "")), expected=args["expected"],
                         accepted=args["accepted"], host=task_vars.get("inventory_hostname"))
        result["problems"] = problems
        return judge(result, problems, args["fail_on"], what="sudoers")
