"""A boolean option read bare in a role misbehaves when it arrives as a string: `-e x=false` or an AWX
survey gives "false", which the validator accepts (Ansible coerces it) but which Jinja finds true.
So every expression in roles/ and playbooks/ reads a bool option through `| bool`."""
import glob
import os
import re

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CONDITION_KEYS = ("when", "that", "changed_when", "failed_when", "until")


def bool_options():
    names = set()
    for path in glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml")):
        with open(path) as handle:
            for entry in (yaml.safe_load(handle)["argument_specs"] or {}).values():
                names.update(n for n, o in ((entry or {}).get("options") or {}).items() if (o or {}).get("type") == "bool")
    return names


def expressions(node, key=None):
    """Every Jinja expression in a loaded YAML document: whole conditions, and {{ }} / {% %} spans."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from expressions(v, k)
    elif isinstance(node, list):
        for item in node:
            yield from expressions(item, key)
    elif isinstance(node, str):
        if key in CONDITION_KEYS:
            yield node
        for span in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", node, re.S):
            yield span


def files():
    patterns = ["roles/*/tasks/*.yml", "roles/*/vars/*.yml", "roles/*/handlers/*.yml", "playbooks/*.yml", "*.yml"]
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            yield path


def test_every_bool_option_is_read_through_the_bool_filter():
    names = bool_options()
    assert "macops_rdma_required" in names and len(names) > 20
    # `x | bool`, or `x | default(d) | bool` (another role's option, read where that role may not run).
    bare = re.compile(r"\b(%s)\b(?!\s*\|\s*(default\([^()]*\)\s*\|\s*)?bool)"
                      % "|".join(sorted(names, key=len, reverse=True)))
    found = []
    seen = 0
    for path in files():
        with open(path) as handle:
            document = yaml.safe_load(handle)
        for expression in expressions(document):
            seen += 1
            found.extend("%s: %s" % (os.path.relpath(path, ROOT), m.group(1)) for m in bare.finditer(expression))
    assert seen > 100
    assert found == []
