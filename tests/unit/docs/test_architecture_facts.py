"""docs/architecture.md's "The code, counted" describes the tree as it is: each directory's count
and names, and each module_utils and plugin_utils file with its kind. The checker reads the two
tables and compares them with the files; the last tests show it fails on a doctored copy."""
import os
import re
import shutil

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOC = os.path.join(ROOT, "docs", "architecture.md")
SECTION = "## The code, counted"
KINDS = {
    "plugins/module_utils": ("parser of", "format reader", "node-side engine", "shared"),
    "plugins/plugin_utils": ("controller-side model", "renderer", "shared"),
}
CELL = re.compile(r"`([^`]+)`")


def section(text):
    """The lines of the section, up to the next heading of its level."""
    assert SECTION in text, "docs/architecture.md has no %r section" % SECTION
    body = text.split(SECTION, 1)[1]
    return body.split("\n## ", 1)[0].splitlines()


def rows(lines):
    """Each table row's cells, header and rule lines left out."""
    found = []
    for line in lines:
        if not line.startswith("|") or set(line) <= set("|- "):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] in ("what", "file"):
            continue
        found.append(cells)
    return found


def tree_names(root, where):
    """The names in a directory, as the counts table names them."""
    path = os.path.join(root, where)
    if where == "roles/":
        return sorted(name for name in os.listdir(path) if os.path.isdir(os.path.join(path, name)))
    if where == "./":
        # the root shims: top-level playbooks that import a collection playbook
        return sorted(name[:-4] for name in os.listdir(path) if name.endswith(".yml")
                      and "import_playbook" in open(os.path.join(path, name)).read())
    suffix = ".yml" if where == "playbooks/" else ".py"
    return sorted(name[:-len(suffix)] for name in os.listdir(path)
                  if name.endswith(suffix) and not name.startswith("__"))


def disagreements(text, root):
    """Every way the section and the tree at root disagree, as sentences; [] when they agree."""
    found = []
    listed_files = {}
    for cells in rows(section(text)):
        if len(cells) == 4:
            what, where, count, names = cells
            where = CELL.findall(where)[0]
            actual = tree_names(root, where)
            if not count.isdigit() or int(count) != len(actual):
                found.append("%s: the doc counts %s, the tree holds %d" % (where, count, len(actual)))
            if names != "the next table" and sorted(CELL.findall(names)) != actual:
                found.append("%s: the doc names %s, the tree holds %s" % (where, sorted(CELL.findall(names)), actual))
        elif len(cells) == 3:
            path, kind = CELL.findall(cells[0])[0], cells[1]
            listed_files[path] = kind
            directory = os.path.dirname(path)
            if not os.path.isfile(os.path.join(root, path)):
                found.append("%s is listed but does not exist" % path)
                continue
            if not kind.startswith(KINDS.get(directory, ())):
                found.append("%s: kind %r is not one of %s" % (path, kind, KINDS.get(directory)))
            if kind.startswith("parser of"):
                command = CELL.findall(kind)
                source = open(os.path.join(root, path)).read()
                if not command or not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(command[0]), source):
                    found.append("%s: a parser of %s, which its file never names" % (path, command))
        else:
            found.append("a row the checker cannot read: %r" % cells)
    for directory in KINDS:
        for name in sorted(os.listdir(os.path.join(root, directory))):
            path = directory + "/" + name
            if name.endswith(".py") and not name.startswith("__") and path not in listed_files:
                found.append("%s is in the tree but not in the doc" % path)
    return found


def test_the_doc_and_the_tree_agree():
    assert disagreements(open(DOC).read(), ROOT) == []


def test_the_section_lists_every_kind_of_thing():
    lines = section(open(DOC).read())
    counted = [cells for cells in rows(lines) if len(cells) == 4]
    files = [cells for cells in rows(lines) if len(cells) == 3]
    assert len(counted) == 9 and len(files) >= 70
    assert any(kind.startswith("parser of") for _, kind, _ in files)


def test_the_doc_no_longer_calls_module_utils_one_parser_per_command():
    for path in (DOC, os.path.join(ROOT, "README.md")):
        assert "one pure parser per macOS command" not in open(path).read(), path
        assert "one per macOS command" not in open(path).read(), path


# The checker, on doctored copies: each kind of disagreement is caught.

@pytest.fixture
def doctored(tmp_path):
    """A copy of the tree the tables describe, to change."""
    for directory in ("plugins", "roles", "playbooks"):
        shutil.copytree(os.path.join(ROOT, directory), str(tmp_path / directory), symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
    for name in os.listdir(ROOT):
        if name.endswith(".yml"):
            shutil.copy(os.path.join(ROOT, name), str(tmp_path / name))
    return tmp_path


def test_the_copy_agrees_before_it_is_changed(doctored):
    assert disagreements(open(DOC).read(), str(doctored)) == []


def test_a_file_the_doc_does_not_list_is_caught(doctored):
    count = len(tree_names(str(doctored), "plugins/module_utils/"))
    (doctored / "plugins" / "module_utils" / "_newthing.py").write_text("")
    assert disagreements(open(DOC).read(), str(doctored)) == [
        "plugins/module_utils/: the doc counts %d, the tree holds %d" % (count, count + 1),
        "plugins/module_utils/_newthing.py is in the tree but not in the doc"]


def test_a_listed_file_that_is_gone_is_caught(doctored):
    count = len(tree_names(str(doctored), "plugins/plugin_utils/"))
    os.remove(str(doctored / "plugins" / "plugin_utils" / "_markdown.py"))
    assert disagreements(open(DOC).read(), str(doctored)) == [
        "plugins/plugin_utils/: the doc counts %d, the tree holds %d" % (count, count - 1),
        "plugins/plugin_utils/_markdown.py is listed but does not exist"]


def test_a_count_or_a_name_that_is_off_is_caught(doctored):
    filters = len([name for name in os.listdir(str(doctored / "plugins" / "filter")) if name.endswith(".py")])
    os.remove(str(doctored / "plugins" / "filter" / "pip_unmet.py"))
    found = disagreements(open(DOC).read(), str(doctored))
    assert found[0] == "plugins/filter/: the doc counts %d, the tree holds %d" % (filters, filters - 1)
    assert found[1].startswith("plugins/filter/: the doc names") and len(found) == 2


def test_a_new_role_or_playbook_is_caught(doctored):
    count = len(tree_names(str(doctored), "roles/"))
    os.mkdir(str(doctored / "roles" / "serving"))
    (doctored / "playbooks" / "serve.yml").write_text("---\n")
    found = disagreements(open(DOC).read(), str(doctored))
    assert len(found) == 4 and found[0] == "roles/: the doc counts %d, the tree holds %d" % (count, count + 1)


def test_a_parser_whose_command_is_not_in_its_file_is_caught(doctored):
    text = open(DOC).read().replace("| parser of `pmset` |", "| parser of `caffeinate` |")
    assert disagreements(text, str(doctored)) == [
        "plugins/module_utils/_pmset.py: a parser of ['caffeinate'], which its file never names"]


def test_a_kind_outside_the_vocabulary_is_caught(doctored):
    text = open(DOC).read().replace(
        "| `plugins/plugin_utils/_svg_cabling.py` | renderer |", "| `plugins/plugin_utils/_svg_cabling.py` | parser of `svg` |")
    found = disagreements(text, str(doctored))
    assert found == ["plugins/plugin_utils/_svg_cabling.py: kind 'parser of `svg`' is not one of "
                     "('controller-side model', 'renderer', 'shared')"]


def test_the_old_description_in_a_doctored_doc_is_caught(doctored):
    text = open(DOC).read()
    doctored_doc = text.replace(SECTION, "## Something else")
    with pytest.raises(AssertionError):
        disagreements(doctored_doc, str(doctored))
