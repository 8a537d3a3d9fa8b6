# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.validate_inputs: every input of the named roles checked on the
controller, before anything connects (documentation: plugins/modules/validate_inputs.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.plugin_utils import _inputs
from ansible_collections.macops.cluster.plugins.plugin_utils._input_rule_base import Context

ARGUMENT_SPEC = dict(
    roles=dict(type="list", elements="str", default=[]),
    entry_points=dict(type="dict", default={}),
    argument_specs=dict(type="bool", default=True),
    unknown_variables=dict(type="bool", default=True),
)
ROLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles")
_MISSING = object()


def _role_defaults(roles):
    """{variable: raw default} from the roles' defaults/main.yml, as written (templates untouched)."""
    defaults = {}
    for role in roles:
        path = os.path.join(ROLES_DIR, role, "defaults", "main.yml")
        if os.path.exists(path):
            with open(path) as handle:
                defaults.update(yaml.safe_load(handle) or {})
    return defaults


def _templated(raw):
    """Whether a raw default holds a Jinja template anywhere in it."""
    if isinstance(raw, str):
        return "{{" in raw or "{%" in raw
    if isinstance(raw, dict):
        return any(_templated(key) or _templated(value) for key, value in raw.items())
    if isinstance(raw, (list, tuple)):
        return any(_templated(item) for item in raw)
    return False


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def _value(self, raw, default_raw):
        """The templated value; _MISSING for a role default that needs facts not gathered yet
        (such as ansible_facts['user_dir']): those are no user input and are checked where used."""
        try:
            return self._templar.template(raw)
        except AnsibleError:
            if default_raw is not _MISSING and raw == default_raw:
                return _MISSING
            raise

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        try:
            specs = _inputs.load_specs(ROLES_DIR)
            roles = args["roles"] or sorted(specs)
            options = {}
            for role in roles:
                options.update(_inputs.role_options(specs, role, args["entry_points"].get(role, "main")))
        except _inputs.InputSpecError as exc:
            raise AnsibleActionFail("validate_inputs: %s" % exc)
        defaults = _role_defaults(specs)

        # Each variable as the play sets it, else its role's plain default (one with no template: those
        # need the role's own vars or facts, and are no user input): the play that checks the roles up front
        # (playbooks/check_inputs.yml, every operation playbook's first) runs none of them, so has none of their
        # defaults, and a rule may hang on one (firewall's networks are checked where firewall_state is present).
        values = {}
        for name in options:
            if name in task_vars or (name in defaults and not _templated(defaults[name])):
                raw = task_vars[name] if name in task_vars else defaults[name]
                try:
                    value = self._value(raw, defaults.get(name, _MISSING))
                except AnsibleError as exc:
                    raise AnsibleActionFail("validate_inputs: %s cannot be templated: %s" % (name, exc))
                if value is not _MISSING:
                    values[name] = value

        host = task_vars.get("inventory_hostname")
        hostvars = task_vars.get("hostvars") or {}
        macs = list((task_vars.get("groups") or {}).get("macs") or [])

        def host_value(other, name, default=None):
            try:
                return self._templar.template(hostvars[other][name])
            except (KeyError, AnsibleError):
                return default

        def values_on(name):
            fallback = values.get(name)
            return dict((other, host_value(other, name, fallback)) for other in macs)

        def variable(name, default=None):
            if name not in task_vars:
                return default
            return self._templar.template(task_vars[name])

        context = Context(host, macs, dict((other, host_value(other, "ansible_host", "") or "") for other in macs),
                          values_on, variable)
        problems = _inputs.validate(specs, roles, values, context, check_specs=args["argument_specs"],
                                    entry_points=args["entry_points"])
        if args["unknown_variables"] and host in hostvars:
            problems += _inputs.unknown_variables(list(hostvars[host].keys()), specs, host=host)

        result.update(changed=False, problems=problems, roles=roles, checked=sorted(values))
        if problems:
            result["failed"] = True
            result["msg"] = "%s: %d input problem%s (no node was contacted, nothing changed)\n%s" % (
                host, len(problems), "" if len(problems) == 1 else "s",
                "\n".join("- %s Fix: %s" % (p["message"], p["fix"]) for p in problems))
        else:
            result["msg"] = "%d variables of %s are valid" % (len(values), ", ".join(roles))
        return result
