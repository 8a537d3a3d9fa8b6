"""The problem catalogue: one shape, one registry, docs/problems.md generated from it, and no
problem code anywhere in plugins/, roles/ or playbooks/ that the registry lacks."""
import ast
import importlib.util
import os
import re

import pytest

from ansible_collections.macops.cluster.plugins.module_utils._problems import (
    PROBLEM_KEYS, REGISTRY, SEVERITIES, UnknownProblemCode, is_problem, problem)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
CODE_SHAPE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")


def _load_script():
    spec = importlib.util.spec_from_file_location("problems_doc", os.path.join(ROOT, "scripts", "problems_doc.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the shape ---------------------------------------------------------------------------------

def test_problem_refuses_a_code_the_registry_lacks():
    with pytest.raises(UnknownProblemCode, match="'tb_made_up' is not in the registry"):
        problem("tb_made_up", "a message")


def test_problem_refuses_an_unknown_severity():
    with pytest.raises(ValueError, match="severity 'fatal'"):
        problem("tb_link_no_reply", "a message", severity="fatal")


def test_problem_has_exactly_the_shared_keys_and_the_registry_defaults():
    found = problem("tb_link_no_reply", "en3: no reply", host="mac1", port="en3", peer="mac2")
    assert list(found) == list(PROBLEM_KEYS)
    assert found["severity"] == REGISTRY["tb_link_no_reply"]["severity"]
    assert found["fix"] == REGISTRY["tb_link_no_reply"]["fix"] and found["details"] == {}
    overridden = problem("tb_link_tb4_speed", "slow", "Use a TB5 cable.", severity="warning", details={"link_id": "x"})
    assert (overridden["severity"], overridden["fix"], overridden["details"]) == ("warning", "Use a TB5 cable.",
                                                                                  {"link_id": "x"})
    assert is_problem(found) and is_problem(overridden)


@pytest.mark.parametrize("change", [
    {"code": "tb_made_up"}, {"severity": "fatal"}, {"peer_host": "mac2"}, {"link_id": "a--b"},
    {"details": None}, {"details": [["link_id", "a--b"]]}, {"message": ""}, {"fix": None}, {"host": 3},
])
def test_is_problem_rejects_anything_but_the_one_shape(change):
    found = dict(problem("tb_link_no_reply", "en3: no reply"), **change)
    assert not is_problem(found)
    assert not is_problem(None) and not is_problem("tb_link_no_reply")


def test_every_registry_entry_is_complete():
    for code, entry in REGISTRY.items():
        assert CODE_SHAPE.match(code), code
        assert set(entry) == {"severity", "area", "meaning", "fix"}, code
        assert entry["severity"] in SEVERITIES, code
        assert entry["area"] and entry["meaning"].strip() and entry["fix"].strip(), code


def test_the_merged_port_next_to_ethernet_code_has_one_name():
    assert "tb_port_next_to_ethernet" in REGISTRY and "rdma_port_next_to_ethernet" not in REGISTRY


# --- docs/problems.md ----------------------------------------------------------------------------

def test_docs_problems_md_is_generated_from_the_registry_and_current():
    script = _load_script()
    with open(os.path.join(ROOT, "docs", "problems.md"), encoding="utf-8") as handle:
        current = handle.read()
    assert current == script.render(REGISTRY, PROBLEM_KEYS), \
        "docs/problems.md is stale: run python3 scripts/problems_doc.py"
    for code in REGISTRY:
        assert "| `%s` |" % code in current


def test_the_generated_doc_changes_with_the_registry():
    script = _load_script()
    registry = dict(REGISTRY, zz_new_code={"severity": "info", "area": "report", "meaning": "m | n", "fix": "f"})
    text = script.render(registry, PROBLEM_KEYS)
    assert "| `zz_new_code` | info | m \\| n | f |" in text and text != script.render(REGISTRY, PROBLEM_KEYS)


# --- every code the collection emits is registered -------------------------------------------------

# Functions whose first argument (or `code=`) is a problem code.
PROBLEM_BUILDERS = {"problem", "make_problem", "registered_problem", "_derived_problem", "_check"}


def python_codes(source):
    """Codes passed as literals (or module constants) to the problem builders in one Python file."""
    tree = ast.parse(source)
    constants = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    constants[target.id] = node.value.value
    codes = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if name not in PROBLEM_BUILDERS:
            continue
        args = [k.value for k in node.keywords if k.arg == "code"] or node.args[:1]
        for arg in args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                codes.add(arg.value)
            elif isinstance(arg, ast.Name) and arg.id in constants:
                codes.add(constants[arg.id])
    return codes


_FILTER_CODE = re.compile(r"""['"]([a-z0-9_]+)['"]\s*\|\s*macops\.cluster\.problem\b""")
# `code: x` or `_code: "{{ 'x' if .. else 'y' }}"` (every literal of the value)
_CODE_KEY = re.compile(r"""^\s*-?\s*_?code:\s*(.*)$""")
_BARE = re.compile(r"""^['"]?([a-z][a-z0-9_]*)['"]?$""")
_QUOTED = re.compile(r"""['"]([a-z][a-z0-9_]*)['"]""")
# `{'code': 'x'}`, `['code'] | default('x')`, `selectattr('code', 'equalto', 'x')`
_INLINE = [re.compile(r"""['"]code['"]\s*:\s*['"]([a-z0-9_]+)['"]"""),
           re.compile(r"""\[['"]code['"]\]\s*\|\s*default\(\s*['"]([a-z0-9_]+)['"]"""),
           re.compile(r"""attr\(\s*['"]code['"]\s*,\s*['"]\w+['"]\s*,\s*['"]([a-z0-9_]+)['"]""")]
_CODES_LIST = re.compile(r"""_codes:\s*\[([^\]]*)\]""")


def yaml_codes(text):
    """Codes a role or playbook names: given to the problem filter, set as a check's code, gated on."""
    codes = set(_FILTER_CODE.findall(text))
    for line in text.splitlines():
        key = _CODE_KEY.match(line)
        if key:
            bare = _BARE.match(key.group(1).strip())
            codes.update([bare.group(1)] if bare else [c for c in _QUOTED.findall(key.group(1)) if CODE_SHAPE.match(c)])
        for pattern in _INLINE:
            codes.update(pattern.findall(line))
        for listed in _CODES_LIST.findall(line):
            codes.update(item.strip().strip("'\"") for item in listed.split(",") if item.strip())
    return codes


def collection_files(extensions, folders=("plugins", "roles", "playbooks")):
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                if name.endswith(extensions):
                    yield os.path.join(directory, name)


def emitted_codes():
    """{code: [files]} for every problem code named in plugins/, roles/ and playbooks/."""
    found = {}
    for path in collection_files((".py",)):
        with open(path, encoding="utf-8") as handle:
            for code in python_codes(handle.read()):
                found.setdefault(code, []).append(os.path.relpath(path, ROOT))
    for path in collection_files((".yml", ".yaml", ".j2")):
        with open(path, encoding="utf-8") as handle:
            for code in yaml_codes(handle.read()):
                found.setdefault(code, []).append(os.path.relpath(path, ROOT))
    return found


def test_every_code_the_collection_names_is_registered():
    found = emitted_codes()
    unregistered = dict((code, files) for code, files in found.items() if code not in REGISTRY)
    assert unregistered == {}, "add these codes to REGISTRY in plugins/module_utils/_problems.py: %s" % unregistered


def test_the_scan_sees_the_emitters_of_every_area():
    # A scan that finds nothing would pass the test above: check that it sees each kind of emitter.
    found = emitted_codes()
    for code, where in [("tb_link_tb4_speed", "plugins/plugin_utils/_topology.py"),
                        ("tb_cabling_differs", "plugins/plugin_utils/_tb_cabling.py"),
                        ("mlx_ring_unavailable", "plugins/plugin_utils/_mlx_hostfiles.py"),
                        ("rdma_disabled", "plugins/module_utils/_rdma_readiness.py"),
                        ("rdma_tool_failed", "plugins/module_utils/_rdma_facts.py"),
                        ("tb_link_no_reply", "plugins/module_utils/_tb_link_problems.py"),
                        ("node_unreachable", "plugins/plugin_utils/_report_model.py"),
                        ("tb_bridge_returned", "plugins/module_utils/_tb_link_problems.py"),
                        ("remote_login_off", "plugins/plugin_utils/_preflight_checks.py"),
                        ("mlx_smoke_failed", "roles/mlx/tasks/main.yml"),
                        ("reboot_exo_unhealthy", "roles/reboot_cluster/tasks/verify.yml"),
                        ("reboot_command_failed", "roles/reboot_cluster/tasks/summary.yml"),
                        ("rdma_ctl_missing", "roles/rdma/vars/main.yml")]:
        assert where in found.get(code, []), (code, where)


def test_the_scanners_catch_an_unregistered_code():
    python = 'make_problem("tb_typo", ERROR, "m", "f")\nCODE = "x_const"\nproblem(CODE, "m")\nproblem(code="kw_code")\n'
    assert python_codes(python) == {"tb_typo", "x_const", "kw_code"}
    yaml = "\n".join([
        "p: \"{{ 'tb_typo' | macops.cluster.problem('m', host=inventory_hostname) }}\"",
        "  code: bare_code",
        "  x: \"{{ c | combine({'name': 'check_name', 'code': 'quoted_code', 'fix': 'Do it'}) }}\"",
        "  z: \"{{ (p | first)['code'] | default('default_code') }}\"",
        "  _code: \"{{ 'one_way' if a else 'other_way' }}\"",
        "  y: \"{{ p | selectattr('code', 'equalto', 'gated_code') }}\"",
        "_gate_codes: [listed_code, second_code]",
        "name: not_a_code_line"])
    assert yaml_codes(yaml) == {"tb_typo", "bare_code", "quoted_code", "default_code", "one_way", "other_way",
                                "gated_code", "listed_code", "second_code"}
