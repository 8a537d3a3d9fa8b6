# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.inventory_variable_problems: misspelled or mistyped inventory variables."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: inventory_variable_problems
short_description: Find unknown or mistyped variables in a host's inventory, before anything runs
version_added: 0.1.0
author: macops.cluster team
description:
  - Reads the C(meta/argument_specs.yml) of every role in O(roles_dir), then looks at every
    variable of the host whose name starts with C(macops_) or with a role name and C(_), and
    compares it with the options of those argument specs (all entry points).
  - A name no spec knows is reported with the closest known name (a typo such as
    C(macops_rdma_requried) would otherwise be ignored silently and the default used).
  - A value whose Python type does not match the option type is reported too. Argument specs
    accept the string C("yes") for a C(bool) option and convert it; the collection insists on real
    booleans in the inventory (kubespray's rule) because the string C("false") is true in Jinja.
  - Returns a list of sentences, empty when all is well.
positional: roles_dir, allowed
options:
  _input:
    description: The host's variables, usually C(hostvars[inventory_hostname]).
    type: dict
    required: true
  roles_dir:
    description: The collection's C(roles) directory, such as C(role_path | dirname).
    type: path
    required: true
  allowed:
    description: More names that are known without an argument spec (facts the roles publish).
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: Reject misspelled and mistyped cluster variables
  ansible.builtin.assert:
    that: _problems | length == 0
    fail_msg: "{{ _problems | join(' ') }}"
  vars:
    _problems: "{{ hostvars[inventory_hostname] | macops.cluster.inventory_variable_problems(role_path | dirname) }}"
"""

RETURN = r"""
_value:
  description: One sentence per problem.
  type: list
  elements: str
  sample: ["macops_rdma_requried is not a macops.cluster variable; did you mean macops_rdma_required?"]
"""

import difflib
import glob
import os

import yaml

from ansible.errors import AnsibleFilterError

# Cluster-wide variables (macops_*) belong to the role `macops`: like every role's, their prefix
# is the role's name, so a roles directory alone says which names are the collection's.

# Python types a value of each argument-spec type may have in the inventory. YAML and extra-vars
# give str/int/float/bool/list/dict; `raw` and unlisted types accept anything.
_TYPES = {
    "bool": (bool,),
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "path": (str,),
    "list": (list, tuple),
    "dict": (dict,),
}
_EXAMPLES = {"bool": "true or false (no quotes)", "int": "a number without quotes", "float": "a number",
             "str": "a string", "path": "an absolute path", "list": "a YAML list", "dict": "a YAML mapping"}


def _type_name(value):
    """The argument-spec name of a value's type; Ansible hands over tagged str/int subclasses."""
    if isinstance(value, bool):
        return "bool"
    for name in ("int", "float", "str", "list", "dict"):
        if isinstance(value, _TYPES[name]):
            return name
    return type(value).__name__


def _type_problem(name, value, spec):
    wanted = (spec or {}).get("type", "str")
    types = _TYPES.get(wanted)
    if types is None:
        return None
    is_bool = isinstance(value, bool)
    if (wanted in ("int", "float") and is_bool) or not isinstance(value, types):
        return "%s must be %s (type %s), got %r (%s)." % (name, _EXAMPLES[wanted], wanted, value, _type_name(value))
    if wanted == "path" and value and not str(value).startswith("/"):
        return "%s must be an absolute path, got %r." % (name, value)
    return None


def role_options(roles_dir):
    """({option name: spec} over every role and entry point, [name prefixes]) of a roles directory."""
    options = {}
    prefixes = []
    for path in sorted(glob.glob(os.path.join(str(roles_dir), "*", "meta", "argument_specs.yml"))):
        role = os.path.basename(os.path.dirname(os.path.dirname(path)))
        try:
            with open(path) as handle:
                # libyaml's loader when PyYAML has it: every host's first task reads every spec.
                specs = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
        except (IOError, yaml.YAMLError) as exc:
            raise AnsibleFilterError("inventory_variable_problems: cannot read %s: %s" % (path, exc))
        for entry_point in (specs.get("argument_specs") or {}).values():
            options.update((entry_point or {}).get("options") or {})
        prefixes.append(role + "_")
    if not options:
        raise AnsibleFilterError("inventory_variable_problems: no meta/argument_specs.yml under %s" % roles_dir)
    return options, prefixes


def inventory_variable_problems(variables, roles_dir, allowed=()):
    options, prefixes = role_options(roles_dir)
    known = set(options) | set(allowed or ())
    problems = []
    for name in sorted(str(key) for key in variables.keys()):
        if not name.startswith(tuple(prefixes)):
            continue
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
            hint = "; did you mean %s?" % close[0] if close else "; see the roles' meta/argument_specs.yml."
            problems.append("%s is not a macops.cluster variable%s" % (name, hint))
            continue
        if name in options:
            problem = _type_problem(name, variables[name], options[name])
            if problem:
                problems.append(problem)
    return problems


class FilterModule(object):
    def filters(self):
        return {"inventory_variable_problems": inventory_variable_problems}
