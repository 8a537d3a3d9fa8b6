"""Tests mirror the code (issue 51): every plugin file plugins/<type>/<name>.py has its tests in
tests/unit/plugins/<type>/test_<name>.py (a private file's leading underscore dropped: plugins/module_utils/_df.py is
tested in tests/unit/plugins/module_utils/test_df.py), holding at least one test; and a test file in a <type> folder
there mirrors a plugin file, so a test is found where its code is. Tests of several plugin files at once sit in
tests/unit/plugins/ itself, what the test files share in tests/unit/plugins/helpers/."""
import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGINS = os.path.join(ROOT, "plugins")
TESTS = os.path.join(ROOT, "tests", "unit", "plugins")


def plugin_files(plugins=PLUGINS):
    """{(type, file name)} of every plugin file but the packages' __init__.py."""
    return set((kind, name) for kind in sorted(os.listdir(plugins)) if os.path.isdir(os.path.join(plugins, kind))
               for name in os.listdir(os.path.join(plugins, kind))
               if name.endswith(".py") and name != "__init__.py")


def mirror(kind, name):
    """tests/unit/plugins' path, relative, of plugins/<kind>/<name>'s tests."""
    return os.path.join(kind, "test_%s" % (name[1:] if name.startswith("_") else name))


def collected_tests(path):
    """Names of the tests pytest collects from the file: test_* functions, and test_* methods of Test* classes."""
    with open(path) as handle:
        tree = ast.parse(handle.read(), path)
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            found.extend("%s.%s" % (node.name, item.name) for item in node.body
                         if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"))
    return found


def unmirrored(plugins=PLUGINS, tests=TESTS):
    """Plugin files without a mirrored test file holding a test, each with the path it lacks."""
    missing = []
    for kind, name in sorted(plugin_files(plugins)):
        path = os.path.join(tests, mirror(kind, name))
        if not os.path.isfile(path):
            missing.append("plugins/%s/%s: no %s" % (kind, name, os.path.relpath(path, ROOT)))
        elif not collected_tests(path):
            missing.append("plugins/%s/%s: %s holds no test" % (kind, name, os.path.relpath(path, ROOT)))
    return missing


def strays(plugins=PLUGINS, tests=TESTS):
    """Test files in a <type> folder of the tests that mirror no plugin file."""
    kinds = set(kind for kind, _name in plugin_files(plugins))
    mirrored = set(mirror(kind, name) for kind, name in plugin_files(plugins))
    return sorted(os.path.join(kind, name) for kind in kinds if os.path.isdir(os.path.join(tests, kind))
                  for name in os.listdir(os.path.join(tests, kind))
                  if name.startswith("test_") and name.endswith(".py") and os.path.join(kind, name) not in mirrored)


def test_every_plugin_file_has_its_mirrored_test():
    assert len(plugin_files()) > 100  # the walk found the plugins
    missing = unmirrored()
    assert missing == [], "\n".join(missing)


def test_every_test_file_in_a_type_folder_mirrors_a_plugin_file():
    assert strays() == []


def test_each_type_folder_is_a_package_so_two_types_may_share_a_test_name():
    kinds = set(kind for kind, _name in plugin_files())
    assert [kind for kind in sorted(kinds) if not os.path.isfile(os.path.join(TESTS, kind, "__init__.py"))] == []
    assert os.path.isfile(os.path.join(TESTS, "__init__.py"))


@pytest.mark.parametrize("private", [False, True])
def test_a_plugin_file_without_its_test_or_with_an_empty_one_is_named(tmp_path, private):
    """The check fails as it should: a plugin file whose mirror is missing, or holds no test, is named."""
    plugins, tests = tmp_path / "plugins", tmp_path / "tests"
    name = "_thing.py" if private else "thing.py"
    (plugins / "filter").mkdir(parents=True)
    (plugins / "filter" / "__init__.py").write_text("")
    (plugins / "filter" / name).write_text("X = 1\n")
    (tests / "filter").mkdir(parents=True)
    assert [line.split(":")[0] for line in unmirrored(str(plugins), str(tests))] == ["plugins/filter/" + name]
    (tests / "filter" / "test_thing.py").write_text("def helper():\n    pass\n\n\nclass TestNot(object):\n    x = 1\n")
    assert "holds no test" in unmirrored(str(plugins), str(tests))[0]
    (tests / "filter" / "test_thing.py").write_text("class TestThing(object):\n    def test_x(self):\n        pass\n")
    assert unmirrored(str(plugins), str(tests)) == []
    (tests / "filter" / "test_other.py").write_text("def test_x():\n    pass\n")
    assert strays(str(plugins), str(tests)) == [os.path.join("filter", "test_other.py")]
