"""A module file that only documents an action plugin (plugins/modules/<name>.py beside plugins/action/<name>.py): what
its DOCUMENTATION promises against what the action accepts, and its EXAMPLES against its options."""
import importlib

import yaml

FQCN = "macops.cluster."
PACKAGE = "ansible_collections.macops.cluster.plugins."


def documentation(name):
    """(DOCUMENTATION, EXAMPLES) of plugins/modules/<name>.py, parsed."""
    module = importlib.import_module(PACKAGE + "modules." + name)
    return yaml.safe_load(module.DOCUMENTATION), yaml.safe_load(module.EXAMPLES)


def action(name):
    return importlib.import_module(PACKAGE + "action." + name)


def spec(options, suboptions_key):
    """An argument spec's or a documentation's options with Ansible's defaults filled in, to compare them."""
    found = {}
    for option, entry in (options or {}).items():
        found[option] = {"type": entry.get("type", "str"), "required": bool(entry.get("required", False)),
                         "default": entry.get("default"), "choices": entry.get("choices"),
                         "elements": entry.get("elements"), "aliases": sorted(entry.get("aliases") or [])}
        if entry.get(suboptions_key):
            found[option]["options"] = spec(entry[suboptions_key], suboptions_key)
    return found


def documented_spec(name):
    return spec(documentation(name)[0]["options"], "suboptions")


def accepted_spec(name):
    return spec(action(name).ARGUMENT_SPEC, "options")


def example_arguments(name):
    """The arguments of every task of the module's EXAMPLES, by its full name or its short one."""
    _doc, examples = documentation(name)
    return [task.get(FQCN + name, task.get(name)) for task in examples if FQCN + name in task or name in task]


def assert_documented_as_accepted(name):
    """The documented options are exactly what the action accepts, and each example uses only them."""
    documented, accepted = documented_spec(name), accepted_spec(name)
    assert sorted(documented) == sorted(accepted)
    for option in documented:
        assert documented[option] == accepted[option], option
    examples = example_arguments(name)
    assert examples, "no example of %s" % name
    for arguments in examples:
        assert set(arguments or {}) <= set(documented), sorted(set(arguments or {}) - set(documented))
