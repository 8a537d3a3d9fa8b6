"""The public surface is what roles and users use (issue 31, acceptance 2).

Every module, action and filter plugin the collection ships must be used by a role (its tasks,
handlers, vars, defaults and templates), by a playbook (the root `*.yml` and `playbooks/**`), or
by a user-facing example in a fenced code block of README.md or docs/**/*.md. A plugin's own
EXAMPLES, its documentation, comments and task names are not uses. There is no exception list:
a plugin nothing uses is removed, or gets a documented example that a test runs.

How a use is recognised:
- a module or action plugin: `macops.cluster.<name>` as a task's key (also in `module_defaults`),
  as the value of `action`/`local_action`, or `-m macops.cluster.<name>` in a command line; an
  action plugin and the module of the same name are one plugin;
- a filter (by each name its FilterModule's `filters()` returns): `| macops.cluster.<name>` in
  Jinja, or `'macops.cluster.<name>'` as a filter passed by name (`map('macops.cluster.problem')`).
"""
import ast
import glob
import importlib
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.path.dirname(sys.executable)
FQCN = "macops.cluster."
# Role folders whose files run; meta/ holds documentation (argument specs), files/ scripts that run
# on the nodes and use no plugin.
ROLE_PARTS = ("tasks", "handlers", "vars", "defaults", "templates")
# Keys whose string is a task's or play's name: text for people, not a use.
NAME_KEYS = {"name"}
FENCE = re.compile(r"^ *(```|~~~)[^\n]*\n(.*?)^ *\1 *$", re.S | re.M)


def _names(folder):
    return sorted(os.path.splitext(os.path.basename(path))[0]
                  for path in glob.glob(os.path.join(ROOT, "plugins", folder, "*.py"))
                  if not os.path.basename(path).startswith("_"))


def module_names():
    """Modules and action plugins by file name (an action and its module doc stub are one)."""
    return sorted(set(_names("modules")) | set(_names("action")))


def filter_names():
    """Every filter name a filter plugin file's FilterModule offers."""
    found = []
    for stem in _names("filter"):
        plugin = importlib.import_module("ansible_collections.macops.cluster.plugins.filter." + stem)
        found.extend(plugin.FilterModule().filters())
    return sorted(found)


def _module_pattern(name):
    fqcn = re.escape(FQCN + name)
    return re.compile(r"(?:^|[\s\-{,])%s\s*:(?:\s|$)|-m\s+%s(?![\w.])" % (fqcn, fqcn), re.M)


def _filter_pattern(name):
    fqcn = re.escape(FQCN + name)
    return re.compile(r"\|\s*%s(?![\w.])|['\"]%s['\"]" % (fqcn, fqcn))


def _walk(value, key=None):
    """(kind, text) of a loaded YAML document: ("key", a dict key) and ("value", a string)."""
    if isinstance(value, dict):
        for name, item in value.items():
            if isinstance(name, str):
                yield "key", name
            if name in NAME_KEYS and isinstance(item, str):
                continue
            yield from _walk(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key)
    elif isinstance(value, str):
        yield ("action" if key in ("action", "local_action") else "value"), value


def _role_and_playbook_files():
    patterns = [os.path.join("roles", "*", part, "**", "*") for part in ROLE_PARTS]
    patterns += ["*.yml", os.path.join("playbooks", "**", "*.yml"), os.path.join("playbooks", "**", "*.yaml")]
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
            if os.path.isfile(path) and os.path.basename(path) != "galaxy.yml":
                yield path


def code_uses():
    """(where, modules used, filter texts) of every role and playbook file.

    YAML files are read as YAML, so comments are no use; a template's Jinja comments are dropped."""
    for path in _role_and_playbook_files():
        where = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if path.endswith((".yml", ".yaml")):
            keys, actions, values = set(), [], []
            for kind, item in _walk(list(yaml.safe_load_all(text))):
                if kind == "key":
                    keys.add(item)
                elif kind == "action":
                    actions.append(item.split()[0] if item.split() else "")
                else:
                    values.append(item)
            modules = {item[len(FQCN):] for item in keys | set(actions) if item.startswith(FQCN)}
            yield where, modules, "\n".join(values)
        elif path.endswith(".j2"):
            yield where, set(), re.sub(r"\{#.*?#\}", "", text, flags=re.S)


def documented_examples():
    """(where, text) of each fenced code block of README.md and docs/**/*.md."""
    paths = [os.path.join(ROOT, "README.md")]
    paths += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for match in FENCE.finditer(text):
            yield os.path.relpath(path, ROOT), match.group(2)


def users():
    """{("module"|"filter", name): [where it is used]} over every plugin of the collection."""
    found = {("module", name): [] for name in module_names()}
    found.update({("filter", name): [] for name in filter_names()})
    code = list(code_uses())
    examples = list(documented_examples())
    for (kind, name), places in found.items():
        if kind == "module":
            pattern = _module_pattern(name)
            places.extend(where for where, modules, _ in code if name in modules)
        else:
            pattern = _filter_pattern(name)
            places.extend(where for where, _, text in code if pattern.search(text))
        places.extend(where + " (example)" for where, text in examples if pattern.search(text))
    return found


def test_the_surface_is_found():
    """The lists the check runs over are the collection's: a broken glob would pass everything."""
    modules, filters = module_names(), filter_names()
    assert {"node_facts", "validate_inputs", "check_result"} <= set(modules)
    assert {"problem", "thunderbolt_topology", "doctor_findings"} <= set(filters)
    assert len(filters) == len(set(filters)), "a filter name offered twice"


def test_every_plugin_is_used_by_a_role_a_playbook_or_a_documented_example():
    unused = sorted("%s %s%s" % (kind, FQCN, name) for (kind, name), places in users().items() if not places)
    assert not unused, ("nothing uses these plugins (no role, playbook or code block of README.md or "
                        "docs/**/*.md): remove them, or document and test a use: %s" % ", ".join(unused))


@pytest.mark.parametrize("text, name, used", [
    ("- name: Read\n  macops.cluster.node_facts:\n    gather: [mac]\n", "node_facts", True),
    ("ansible macs -m macops.cluster.rdma_status\n", "rdma_status", True),
    ("# read with macops.cluster.node_facts: it is fast\n", "node_facts", True),
    ("see M(macops.cluster.node_facts) for this\n", "node_facts", False),
    ("ansible macs -m macops.cluster.rdma_status_x\n", "rdma_status", False),
])
def test_module_pattern(text, name, used):
    """In documentation code blocks (text, not YAML), a task key or `-m` is a use, a mention is not.

    (A comment in a code block that reads like a task key counts: the check errs towards use.)"""
    assert bool(_module_pattern(name).search(text)) is used


@pytest.mark.parametrize("text, name, used", [
    ("{{ plan | macops.cluster.mlx_backend(rdma) }}", "mlx_backend", True),
    ("{{ x |\n   macops.cluster.doctor_findings }}", "doctor_findings", True),
    ("{{ codes | map('macops.cluster.problem', host=h) }}", "problem", True),
    ("{{ plan | macops.cluster.mlx_hostfile_files(h) }}", "mlx_hostfile", False),
    ("the result of macops.cluster.thunderbolt_topology", "thunderbolt_topology", False),
])
def test_filter_pattern(text, name, used):
    assert bool(_filter_pattern(name).search(text)) is used


def test_comments_and_task_names_are_no_use():
    """A YAML comment or a task's name naming a plugin is not a use of it."""
    document = yaml.safe_load("# macops.cluster.node_facts:\n- name: 'Like macops.cluster.node_facts: fast'\n"
                              "  ansible.builtin.debug:\n    msg: hi\n")
    walked = list(_walk(document))
    assert ("key", "macops.cluster.node_facts") not in walked
    assert not any("node_facts" in text for _, text in walked)


def _documentation(path):
    """The DOCUMENTATION of a plugin file, parsed, without importing it."""
    for node in ast.parse(open(path, encoding="utf-8").read()).body:
        targets = [target.id for target in getattr(node, "targets", []) if isinstance(target, ast.Name)]
        if isinstance(node, ast.Assign) and targets == ["DOCUMENTATION"]:
            return yaml.safe_load(node.value.value)
    return None


def test_every_filter_file_holds_one_filter_named_like_it():
    """One filter a file, so the file's DOCUMENTATION is that filter's and no other's."""
    for stem in _names("filter"):
        plugin = importlib.import_module("ansible_collections.macops.cluster.plugins.filter." + stem)
        assert list(plugin.FilterModule().filters()) == [stem], stem
        assert _documentation(os.path.join(ROOT, "plugins", "filter", stem + ".py"))["name"] == stem


def test_ansible_doc_shows_each_filter_its_own_documentation(tmp_path):
    """`ansible-doc -t filter macops.cluster.<name>` documents <name>, for every name a FilterModule offers."""
    names = filter_names()
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, "collections"), ANSIBLE_HOME=str(tmp_path),
               ANSIBLE_LOCAL_TEMP=str(tmp_path), ANSIBLE_NOCOLOR="1")
    result = subprocess.run([os.path.join(BIN, "ansible-doc"), "-t", "filter", "--json"] + [FQCN + n for n in names],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    docs = json.loads(result.stdout)
    assert sorted(docs) == sorted(FQCN + name for name in names)
    assert {name: docs[FQCN + name]["doc"]["name"] for name in names} == {name: name for name in names}
