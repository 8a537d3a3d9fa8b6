"""What each part of the one problem registry must hold (plugins/module_utils/_problems.py gathers them): its codes in
REGISTRY as its own entries, none defined in _problems.py's own table or in another part, each named for its area."""
import ast
import inspect
import itertools

from ansible_collections.macops.cluster.plugins.module_utils import (_benchmark_problems, _problems, _serve_problems,
                                                                     _shard_problems, _update_problems)
from ansible_collections.macops.cluster.plugins.module_utils._problem_codes import SEVERITIES

PARTS = {"benchmark": _benchmark_problems.BENCHMARK_CODES, "serve": _serve_problems.SERVE_CODES,
         "shard": _shard_problems.SHARD_CODES, "update": _update_problems.UPDATE_CODES}


def own_table_codes():
    """The codes _problems.py's REGISTRY literal names itself, before the parts are added."""
    tree = ast.parse(inspect.getsource(_problems))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["REGISTRY"]:
            return set(key.value for key in node.value.keys)
    raise AssertionError("no REGISTRY table in _problems.py")


def check_part(name, prefixes, areas):
    """Assert the registry part `name` holds codes named with `prefixes`, found by `areas`, each its own."""
    codes = PARTS[name]
    assert codes, name
    for code, entry in codes.items():
        assert code.startswith(prefixes), code
        assert entry["area"] in areas and entry["severity"] in SEVERITIES, code
        assert entry["meaning"].strip().endswith(".") and entry["fix"].strip(), code
        assert _problems.REGISTRY[code] is entry, "%s: REGISTRY holds another entry for it" % code
    assert sorted(set(codes) & own_table_codes()) == [], "defined twice"
    for (one, first), (other, second) in itertools.combinations(PARTS.items(), 2):
        assert not set(first) & set(second), (one, other, sorted(set(first) & set(second)))
