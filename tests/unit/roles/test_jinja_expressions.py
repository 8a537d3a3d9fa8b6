"""Roles read as their steps (issue 31, acceptance 3): no Jinja expression in roles/, playbooks/ or
the top-level playbooks is longer than 200 characters or chains more than four filters, and no
Jinja loop prints `to_json` (that is JSON assembled in Jinja; build data as data instead). There is
no exception list: logic that does not fit moves into a filter (plugins/filter, a thin wrapper over
a pure function in plugins/plugin_utils with its own unit tests), a module's option, or named
intermediate variables.

What is measured, read with Jinja's own lexer and parser:
- every `{{ ... }}` expression and every `{% ... %}` tag (`{% set x = ... %}`, `{% if ... %}`, ...)
  in a string of a YAML file (tasks, handlers, vars, defaults, meta, playbooks) or in a template;
- the bare expressions of `when`, `that`, `failed_when`, `changed_when` and `until`, which Ansible
  reads as if they were inside `{{ }}`.

Length is the expression's source text between the delimiters (without `{{`/`}}`, `{%`/`%}`, their
`-` whitespace control and the whitespace next to them), with every run of whitespace between two
tokens counted as one character. So YAML folding and indentation do not count: an expression
measures the same on one line as over several lines of a `>-` or `|` block. Whitespace inside a
quoted string counts as written.

A filter chain is a run of filters each applied to the previous one's result: `a | b | c` is two
filters (`b`, `c`). A filter in an argument (`map('extract', hostvars)`, `x | f(y | g)`) or after
an attribute or item (`(a | b)['k'] | c`) starts a chain of its own.
"""
import glob
import os

import pytest
import yaml
from jinja2 import nodes
from test_no_json_in_jinja import BARE_EXPRESSION_KEYS, ENVIRONMENT, ROOT, _strings

MAX_LENGTH = 200
MAX_FILTERS = 4
# Filters that print JSON text: inside a `{% for %}` they assemble a JSON document piece by piece.
JSON_PRINTING_FILTERS = {"to_json", "to_nice_json", "tojson"}
OPENERS = {"variable_begin": "variable_end", "block_begin": "block_end"}
# Jinja decodes string literals with Python's unicode-escape, which warns on the regular
# expressions roles pass to regex filters ('\s'); the strings mean what Ansible reads them as.
pytestmark = pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning")


def _source_of(key, text):
    """The template text Ansible evaluates for a YAML value under `key`."""
    if key in BARE_EXPRESSION_KEYS and "{{" not in text and "{%" not in text:
        return "{{ %s }}" % text
    return text


def expressions(template):
    """The source text of each `{{ }}` expression and `{% %}` tag of `template`, measured as the
    module docstring says (whitespace runs between tokens as one space, delimiters left out)."""
    found = []
    closer, tokens = None, []
    for _, kind, value in ENVIRONMENT.lex(template):
        if closer is None:
            closer = OPENERS.get(kind)
            tokens = []
        elif kind == closer:
            found.append("".join(tokens).strip())
            closer = None
        else:
            tokens.append(" " if kind == "whitespace" else value)
    return found


def _chain_length(node):
    length = 0
    while isinstance(node, nodes.Filter):
        length += 1
        node = node.node
    return length


def filter_chains(tree):
    """The length of every filter chain in a parsed template (each chain once, from its last
    filter)."""
    filters = list(tree.find_all(nodes.Filter))
    inner = {id(node.node) for node in filters if isinstance(node.node, nodes.Filter)}
    return [_chain_length(node) for node in filters if id(node) not in inner]


def _prints_json(node):
    return node.name in JSON_PRINTING_FILTERS or (
        node.name == "map" and bool(node.args) and isinstance(node.args[0], nodes.Const)
        and node.args[0].value in JSON_PRINTING_FILTERS)


def json_in_loops(tree):
    """The `to_json` (or `to_nice_json`, `tojson`, `map('to_json')`) filters inside the body of a
    `{% for %}` loop."""
    return [node.name for loop in tree.find_all(nodes.For) for part in loop.body
            for node in ([part] if isinstance(part, nodes.Filter) else []) + list(part.find_all(nodes.Filter))
            if _prints_json(node)]


def problems(template, key=None):
    """What is wrong with one YAML string (under `key`) or template: a list of sentences."""
    source = _source_of(key, template)
    if "{{" not in source and "{%" not in source:
        return []
    where = "%s: " % key if key is not None else ""
    found = ["%s%d characters (at most %d): %s" % (where, len(text), MAX_LENGTH, text[:100])
             for text in expressions(source) if len(text) > MAX_LENGTH]
    tree = ENVIRONMENT.parse(source)
    found += ["%s%d filters chained (at most %d)" % (where, length, MAX_FILTERS)
              for length in filter_chains(tree) if length > MAX_FILTERS]
    found += ["%s%s inside a {%% for %%} loop: JSON assembled in Jinja" % (where, name)
              for name in json_in_loops(tree)]
    return found


def offenders(path):
    with open(path) as handle:
        if path.endswith(".j2"):
            return problems(handle.read())
        documents = list(yaml.safe_load_all(handle))
    return [problem for document in documents for key, text in _strings(document)
            for problem in problems(text, key)]


def _checked_files():
    patterns = ("roles/**/*.yml", "roles/**/*.yaml", "roles/**/*.j2", "playbooks/**/*.yml",
                "playbooks/**/*.yaml", "*.yml")
    for pattern in patterns:
        yield from glob.glob(os.path.join(ROOT, pattern), recursive=True)


@pytest.mark.parametrize("path", sorted({os.path.relpath(p, ROOT) for p in _checked_files()}))
def test_jinja_is_short_and_builds_no_json(path):
    assert offenders(os.path.join(ROOT, path)) == []


def test_every_role_and_playbook_is_checked():
    checked = {os.path.relpath(p, ROOT) for p in _checked_files()}
    assert "roles/reboot_cluster/tasks/verify.yml" in checked
    assert "roles/mlx/templates/mlx-ring-endpoints.json.j2" in checked
    assert "playbooks/site.yml" in checked and "reboot-cluster.yml" in checked


# The rule itself, on the shapes it must tell apart.
LONG = "{{ " + " ~ ".join(["'%s'" % ("x" * 20)] * 9) + " }}"  # 9 * 22 + 8 * 3 = 222 characters


@pytest.mark.parametrize("key, text", [
    (None, LONG),
    ("when", LONG[3:-3]),
    (None, "{% set x = " + LONG[3:-3] + " %}{{ x }}"),
    (None, "{{ hosts | map('extract', hostvars) | map(attribute='x') | select | unique | list }}"),
    ("that", "a | b | c | d | e | f"),
    (None, "{{ x | default([]) }} and {{ (a | b | c | d | e | f) }}"),
    (None, "[{% for h in hosts %}{{ h | to_json }}{{ ',' if not loop.last }}{% endfor %}]"),
    (None, "{% for h in hosts %}{{ {'name': h} | to_nice_json }}{% endfor %}"),
    (None, "{% for h in hosts %}{{ h | map('to_json') | join(',') }}{% endfor %}"),
    (None, "{% for h in hosts %}{% if h %}{{ h | to_json }}{% endif %}{% endfor %}"),
])
def test_the_rule_refuses(key, text):
    assert problems(text, key) != []


@pytest.mark.parametrize("key, text", [
    (None, "{{ " + "'%s'" % ("y" * 198) + " }}"),  # exactly 200 characters
    # Indentation and line breaks (a `>-` or `|` block) count as one space each run.
    (None, "{{ a\n" + "".join("        ~ b%d\n" % n for n in range(25)) + "}}"),  # 141 characters, 367 as written
    (None, "{{ hosts | map('extract', hostvars) | map(attribute='x') | select | list }}"),
    # Filters in arguments and after an item start chains of their own.
    (None, "{{ (a | b | c | d)['k'] | e | f | g | h }}"),
    (None, "{{ a | f(b | c | d | e | g) | h | i | j }}"),
    (None, "{{ items | map('to_json') | list }}"),
    (None, "{% for h in hosts %}{{ h }}{% endfor %}"),
    ("when", "a | b | c | d | e"),
    ("name", "no jinja here " * 30),
])
def test_the_rule_allows(key, text):
    assert problems(text, key) == []


def test_length_is_the_source_without_delimiters_and_folding():
    assert expressions("x {{- a\n    | b }} y {%- if c -%}z{% endif %}") == ["a | b", "if c", "endif"]
    assert expressions("{{ 'two  spaces' ~  x }}") == ["'two  spaces' ~ x"]
