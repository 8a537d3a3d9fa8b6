"""No JSON is assembled in Jinja (issue 14, acceptance 2): no role or playbook applies `from_json`
to a string it templated itself (a `{% for %}` loop printing `to_json` pieces, or `'[' ~ ... ~ ']'`).
Data is built as data: Jinja lists and dicts, filters that return native values, or a Python
filter or action.

`from_json` stays allowed on what a module returned: a registered command's `stdout` or
`stdout_lines` (a command that prints JSON, such as python_env's read or the MLX smoke test's
lines) and a slurped file's `content` (topology's previous plan, after `b64decode`). The check
reads each expression with Jinja's own parser and follows the value that reaches `from_json`:
that value must come from one of those fields."""
import glob
import os

import jinja2
import pytest
import yaml
from jinja2 import nodes

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# The fields of a module's result that carry text a program printed or a file held.
MODULE_OUTPUT_FIELDS = {"stdout", "stdout_lines", "content"}
# Task keys whose string is a bare Jinja expression (no braces).
BARE_EXPRESSION_KEYS = {"when", "that", "failed_when", "changed_when", "until"}
ENVIRONMENT = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])


def _strings(value, key=None):
    """(key it belongs to, string) of every string in a loaded YAML document."""
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _strings(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, key)
    elif isinstance(value, str):
        yield key, value


def _fields_read(node):
    """Every attribute, item or `map(attribute=...)` name the expression under `node` reads."""
    found = set()
    for child in [node] + list(node.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter))):
        if isinstance(child, nodes.Getattr):
            found.add(child.attr)
        elif isinstance(child, nodes.Getitem) and isinstance(child.arg, nodes.Const):
            found.add(child.arg.value)
        elif isinstance(child, nodes.Filter):
            found.update(kw.value.value for kw in child.kwargs
                         if kw.key == "attribute" and isinstance(kw.value, nodes.Const))
    return found


def _from_json_inputs(tree):
    """The expression each `from_json` parses: `x | from_json` and `xs | map('from_json')`."""
    for node in tree.find_all(nodes.Filter):
        if node.name == "from_json":
            yield node.node
        elif node.name == "map" and node.args and isinstance(node.args[0], nodes.Const) \
                and node.args[0].value == "from_json":
            yield node.node


def from_json_over_templated_text(text, key=None):
    """The source of each `from_json` in `text` whose input is not a module's output field."""
    if "from_json" not in text:
        return []
    source = "{{ %s }}" % text if key in BARE_EXPRESSION_KEYS and "{{" not in text else text
    tree = ENVIRONMENT.parse(source)
    return [nodes_source for nodes_source in (repr(expr) for expr in _from_json_inputs(tree)
                                              if not _fields_read(expr) & MODULE_OUTPUT_FIELDS)]


def _yaml_files():
    for pattern in ("roles/**/*.yml", "roles/**/*.yaml", "playbooks/**/*.yml", "playbooks/**/*.yaml"):
        yield from glob.glob(os.path.join(ROOT, pattern), recursive=True)


def offenders(path):
    with open(path) as handle:
        documents = list(yaml.safe_load_all(handle))
    return ["%s: from_json over %s" % (key, found) for document in documents
            for key, text in _strings(document) for found in from_json_over_templated_text(text, key)]


@pytest.mark.parametrize("path", sorted(os.path.relpath(p, ROOT) for p in _yaml_files()))
def test_no_from_json_over_a_templated_string(path):
    assert offenders(os.path.join(ROOT, path)) == []


# The rule itself, on the shapes it must tell apart.
@pytest.mark.parametrize("text", [
    "{{ _site_report_nodes_json | from_json }}",
    "{{ _nodes_json | from_json | select | list }}",
    "{{ ('[' ~ items | join(',') ~ ']') | from_json }}",
    "{{ lines | map('from_json') | list }}",
    "{% set x = '[1]' | from_json %}{{ x }}",
])
def test_templated_strings_are_refused(text):
    assert from_json_over_templated_text(text) != []


@pytest.mark.parametrize("key, text", [
    (None, "{{ __python_env_versions.stdout | from_json }}"),
    (None, "{{ (__read.stdout | from_json) if __read.rc == 0 else {} }}"),
    (None, "{{ _run['stdout_lines'] | map('trim') | select('match', '^\\{') | map('from_json') | list }}"),
    (None, "{{ hosts | map('extract', hostvars, 'plan') | map(attribute='content') | map('b64decode')"
           " | map('from_json') | list }}"),
    ("when", "(__status.stdout | from_json)['ok']"),
    (None, "{{ items | map('to_json') | list }}"),
])
def test_module_output_is_allowed(key, text):
    assert from_json_over_templated_text(text, key) == []


def test_a_bare_condition_is_read_as_an_expression():
    assert from_json_over_templated_text("_json_text | from_json | length > 0", "when") != []
