# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the input validator behind macops.cluster.validate_inputs.
# Controller side only (it imports ansible-core). Names and behaviour may change without notice.
"""Check a host's variables against the roles' argument specs and rules, before anything connects.

Three passes, each done once, every finding a problem in the one shape (``_problems.problem``):

1. every option of the roles asked for is checked with Ansible's own ``ArgumentSpecValidator``
   (what ``ansible.builtin.validate_argument_spec`` and role argument validation use), so types,
   choices, ``required``, ``elements`` and suboptions mean exactly what they mean to Ansible, and a
   string from ``-e`` or an AWX survey is coerced exactly as Ansible coerces it (``"8"`` to 8,
   ``"yes"`` to true) or refused. One stricter rule: a list or mapping where a string belongs is
   refused (Ansible would turn it into its Python text);
2. the rules an argument spec cannot say (ranges, address formats, cross-variable rules) run as
   one Python function per role (``_input_rules.RULES``) over the validated, coerced values;
3. a variable named like one of the collection's (``macops_*`` or a role's prefix) that no spec
   knows is reported with the closest known name (a typo would otherwise be ignored silently).

Messages name the variable, the value given (never for ``no_log`` options), what is allowed and a
did-you-mean where one is close.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import glob
import os

import yaml

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils import _input_rule_base, _input_rules

# Facts the collection's roles publish with set_fact: names with a role's prefix that no argument
# spec lists, and no typo either.
PUBLISHED_FACTS = frozenset((
    "macops_preflight", "macops_topology", "macops_report", "macops_tb_network", "macops_rdma",
    "macops_mlx_backend", "macops_python_env", "macops_mlx", "macops_gpu",
    "macops_exo", "macops_reboot", "macops_sudoers", "macops_doctor",
))

_ALLOWED_BY_TYPE = {
    "str": "a string", "path": "an absolute path", "int": "a whole number", "float": "a number",
    "bool": "true or false", "list": "a list", "dict": "a mapping", "raw": "any value",
}
_SHOWN_CHARS = 120


class InputSpecError(ValueError):
    """The collection's own argument specs cannot be read (a packaging bug, not bad input)."""


def load_specs(roles_dir):
    """{role: {entry point: options}} from every ``roles/*/meta/argument_specs.yml``."""
    specs = {}
    for path in sorted(glob.glob(os.path.join(str(roles_dir), "*", "meta", "argument_specs.yml"))):
        role = os.path.basename(os.path.dirname(os.path.dirname(path)))
        try:
            with open(path) as handle:
                # libyaml's loader when PyYAML has it: every host's first task reads every spec.
                data = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
        except (IOError, yaml.YAMLError) as exc:
            raise InputSpecError("cannot read %s: %s" % (path, exc))
        specs[role] = dict((name, (entry or {}).get("options") or {})
                           for name, entry in ((data.get("argument_specs") or {}).items()))
        # A role without tasks (macops: the settings every role depends on) names its one entry point otherwise, so
        # that Ansible does not check it again for every role that depends on it; it is the role's own spec.
        if "main" not in specs[role] and len(specs[role]) == 1 and not os.path.isdir(
                os.path.join(os.path.dirname(os.path.dirname(path)), "tasks")):
            specs[role]["main"] = next(iter(specs[role].values()))
    if not specs:
        raise InputSpecError("no meta/argument_specs.yml under %s" % roles_dir)
    return specs


def role_options(specs, role, entry_point="main"):
    """The options of one role's entry point (``main`` by default)."""
    if role not in specs:
        raise InputSpecError("the collection has no role %r (known: %s)" % (role, ", ".join(sorted(specs))))
    entries = specs[role]
    if entry_point not in entries:
        raise InputSpecError("role %s has no entry point %r" % (role, entry_point))
    return entries[entry_point]


def show(value):
    """A value as a person typed it, cut short when long."""
    if isinstance(value, str):
        text = "'%s'" % value
    elif isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null (no value)"
    else:
        text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS - 3] + "..."


def allowed(spec):
    """What an option accepts, in words: its choices, or its type (and element type)."""
    spec = spec or {}
    if spec.get("choices"):
        return "one of %s" % ", ".join(str(choice) for choice in spec["choices"])
    wanted = spec.get("type", "str")
    words = _ALLOWED_BY_TYPE.get(wanted, "a value of type %s" % wanted)
    if wanted == "list" and spec.get("elements"):
        element = spec["elements"]
        words = "a list of %s" % ("mappings" if element == "dict" else _ALLOWED_BY_TYPE.get(element, element) + "s")
    if wanted == "dict" and spec.get("options"):
        words = "a mapping with the keys %s" % ", ".join(sorted(spec["options"]))
    return words


def _is_no_log(spec):
    spec = spec or {}
    return bool(spec.get("no_log")) or any(_is_no_log(sub) for sub in (spec.get("options") or {}).values())


def _choice_hints(path, spec, value):
    """[(path, bad value, closest choice or None)] for every value outside its choices, at any depth."""
    hints = []
    if spec.get("choices") is not None and not isinstance(value, (list, dict)):
        choices = [str(choice) for choice in spec["choices"]]
        if str(value) not in choices and value not in spec["choices"]:
            close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.5)
            hints.append((path, value, close[0] if close else None))
    if spec.get("choices") is not None and spec.get("type") == "list" and isinstance(value, list):
        for item in value:
            hints.extend(_choice_hints(path, dict(spec, type=spec.get("elements", "str")), item))
    suboptions = spec.get("options") or {}
    items = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
    for item in items:
        if isinstance(item, dict):
            for name, subspec in suboptions.items():
                if name in item and not (subspec or {}).get("no_log"):
                    hints.extend(_choice_hints("%s.%s" % (path, name), subspec or {}, item[name]))
    return hints


def _shape_problem(name, value, spec):
    """A list or mapping given for a string option (Ansible would accept its Python text)."""
    wanted = (spec or {}).get("type", "str")
    if wanted in ("str", "path") and isinstance(value, (list, dict)):
        return "%s is a %s" % (name, "list" if isinstance(value, list) else "mapping")
    if wanted == "list" and (spec or {}).get("elements") in ("str", "path") and isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (list, dict)):
                return "%s[%d] is a %s" % (name, index, "list" if isinstance(item, list) else "mapping")
    return None


def invalid(name, value, spec, reason, host=None, secret=False):
    """The input_invalid problem for one option: the variable, the value, what is allowed, the fix."""
    shown = "(value hidden: no_log)" if secret else show(value)
    message = "%s = %s is refused: %s." % (name, shown, reason.rstrip("."))
    # Choices of a suboption that is no secret still get their did-you-mean (the suggestion is a
    # choice, never the value given); an option that is itself no_log gets none.
    hints = [] if (spec or {}).get("no_log") else [
        hint for hint in _choice_hints(name, spec or {}, value) if hint[2] is not None]
    for path, bad, close in hints:
        message += " Did you mean %s%s?" % (close, "" if path == name else " for %s" % path)
    fix = "Set %s to %s in group_vars, host_vars, -e or the AWX survey, or remove it to use the default" % (
        name, allowed(spec))
    if "default" in (spec or {}) and not secret:
        fix += " (%s)" % show(spec["default"])
    return problem("input_invalid", message, fix + ".", host=host,
                   details={"variable": name, "allowed": allowed(spec)})


def check_options(options, values, host=None):
    """Validate ``values`` against ``options`` (one entry point's spec), option by option.

    Returns (validated values, coerced as Ansible coerces them; problems). Options absent from
    ``values`` are validated as absent (so a required one is reported) and left out.
    """
    validated = {}
    problems = []
    for name in sorted(options):
        spec = options[name] or {}
        secret = _is_no_log(spec)
        given = {name: values[name]} if name in values else {}
        if name in values:
            shape = _shape_problem(name, values[name], spec)
            if shape:
                problems.append(invalid(name, values[name], spec, shape, host, secret))
                continue
        result = ArgumentSpecValidator({name: spec}).validate(given)
        if result.error_messages:
            reason = "; ".join(remove_values(message, result._no_log_values) for message in result.error_messages)
            problems.append(invalid(name, values.get(name), spec, reason, host, secret))
        elif name in values:
            validated[name] = result.validated_parameters[name]
    return validated, problems


# Roles renamed since a release, {old prefix: (new prefix, the last release with the old name, the
# release that renamed it)}: a variable still spelled the old way would otherwise be silently ignored
# (cluster_reboot_mode=rolling, say, and every node reboots at once). The old role itself is a stub
# that fails with the same names (roles/cluster_reboot; meta/runtime.yml cannot route a role).
RENAMED_PREFIXES = {"cluster_reboot_": ("reboot_cluster_", "0.1.0", "0.2.0")}
# Variables whose meaning changed with their name, {old: (new, the version that has the new name, what
# changed)}. serve_probe_timeout was never released (the serve role is new in 0.2.0): it was renamed on
# the way to 0.2.0, and the message says so rather than call it a name of an older release.
RENAMED_VARIABLES = {"serve_probe_timeout": ("serve_stall_timeout", "0.2.0", "a hang is now seconds in which nothing "
                                             "moves, not one probe's latency: a busy server is no longer restarted")}


def unknown_variables(names, specs, host=None, extra_known=()):
    """input_unknown_variable problems for names with a role's prefix that no spec (nor fact) knows,
    or with the prefix of a role that has been renamed since."""
    known = set(PUBLISHED_FACTS) | set(extra_known)
    for entries in specs.values():
        for options in entries.values():
            known.update(options)
    prefixes = tuple(role + "_" for role in specs)
    problems = []
    for name in sorted(str(name) for name in names):
        renamed = [(old, new) for old, new in RENAMED_PREFIXES.items() if name.startswith(old)]
        if renamed:
            old, (new, released, version) = renamed[0]
            now = new + name[len(old):]
            problems.append(problem(
                "input_unknown_variable", "%s is a variable of macops.cluster.%s, the role's name in %s: %s renamed "
                "it macops.cluster.%s and its variables %s*." % (name, old[:-1], released, version, new[:-1], new),
                "Rename it to %s" % now,
                host=host, details={"variable": name, "did_you_mean": now}))
            continue
        if name in RENAMED_VARIABLES:
            now, version, why = RENAMED_VARIABLES[name]
            problems.append(problem(
                "input_unknown_variable", "%s was renamed %s before %s was released: %s." % (name, now, version, why),
                "Rename it to %s" % now, host=host, details={"variable": name, "did_you_mean": now}))
            continue
        if not name.startswith(prefixes) or name in known:
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        hint = " Did you mean %s?" % close[0] if close else ""
        problems.append(problem(
            "input_unknown_variable", "%s is not a macops.cluster variable.%s" % (name, hint),
            ("Rename it to %s" % close[0]) if close else
            "Remove it, or look the right name up in the roles' meta/argument_specs.yml",
            host=host, details={"variable": name, "did_you_mean": close[0] if close else None}))
    return problems


def validate(specs, roles, values, context, check_specs=True, entry_points=None):
    """Every problem of ``values`` for ``roles``: the specs (unless ``check_specs`` is false, when
    Ansible's role validation already checked them), then each role's rules over the result.

    values: {variable: templated value}; context: an ``_input_rule_base.Context``.
    entry_points: {role: entry point} where it is not ``main``.
    """
    problems = []
    coerced = {}
    for role in roles:
        options = role_options(specs, role, (entry_points or {}).get(role, "main"))
        if check_specs:
            validated, found = check_options(options, values, context.host)
            problems.extend(found)
        else:
            validated = dict((name, values[name]) for name in options if name in values)
        coerced[role] = validated
    # A rule reads only values that passed their spec: one refusal per variable, never two.
    refused = set(p["details"]["variable"] for p in problems if p["code"] == "input_invalid")
    params = {}
    for values_of_role in coerced.values():
        params.update((k, v) for k, v in values_of_role.items() if k not in refused)
    for role in roles:
        rule = _input_rules.RULES.get(role)
        if rule is not None:
            problems.extend(rule(_input_rule_base.Params(params, role_options(specs, role), values), context))
    return problems
