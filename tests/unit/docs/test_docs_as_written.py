"""The docs run as written (issue 35): every command of README.md, lab/README.md, docs/*.md and the roles'
READMEs names what exists (playbook, inventory, argument-spec variables, tags, modules and their options,
make targets, maclab verbs and faults, files), passes the become password where its playbook uses
become, and every name and path the prose puts in backticks is still in the tree
(tests/docs_commands.py). The last tests rename a documented variable and a documented file in a
copy of the tree, and feed the checker a page of wrong commands: it names each."""
import os
import re
import shutil

import pytest

import docs_commands

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
NOT_COPIED = (".git", ".venv", ".cache", "artifacts", "collections", "__pycache__", ".pytest_cache")


def test_the_docs_agree_with_the_tree():
    assert docs_commands.findings(ROOT) == []


def test_every_playbook_is_documented_with_the_inventory_it_runs_against():
    # The owner's commands all name the inventory copied from inventories/example (README, Use it on your Macs).
    playbooks = sorted(name for name in os.listdir(ROOT) if name.endswith(".yml")
                       and "import_playbook" in open(os.path.join(ROOT, name)).read())
    documented = set()
    for name in docs_commands.doc_files(ROOT):
        for _line, lang, body, _runnable in docs_commands.blocks(open(os.path.join(ROOT, name)).read()):
            for _offset, argv in docs_commands.commands(body) if lang in docs_commands.SHELL_LANGS else []:
                if argv[0] == "ansible-playbook" and "inventories/mine" in argv:
                    documented.update(word for word in argv if word in playbooks)
    assert documented == set(playbooks)


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory):
    """A copy of the tree the tests below may change."""
    target = str(tmp_path_factory.mktemp("docs") / "tree")
    shutil.copytree(ROOT, target, symlinks=True, ignore=shutil.ignore_patterns(*NOT_COPIED))
    return target


def rename_in_code(root, old, new):
    """Rename a word everywhere but in the documentation (what a rename in the code alone does)."""
    docs = set(os.path.join(root, name) for name in docs_commands.doc_files(root))
    for directory, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            if path in docs or name.endswith(".md"):
                continue
            with open(path, errors="replace") as handle:
                text = handle.read()
            if re.search(r"\b%s\b" % old, text):
                with open(path, "w") as handle:
                    handle.write(re.sub(r"\b%s\b" % old, new, text))


def test_renaming_a_documented_variable_in_the_code_fails(tree_copy):
    rename_in_code(tree_copy, "doctor_fail_on", "doctor_fail_at")
    try:
        found = docs_commands.findings(tree_copy)
    finally:
        rename_in_code(tree_copy, "doctor_fail_at", "doctor_fail_on")
    assert any(line.startswith("docs/doctor.md:") and "-e doctor_fail_on=never" in line for line in found), found
    assert any("`doctor_fail_on` is no variable of an argument spec" in line for line in found), found


def test_a_documented_variable_the_defaults_set_but_no_argument_spec_has_fails(tree_copy):
    # The variable stays a default (and a word of the code), only its argument spec entry goes.
    path = os.path.join(tree_copy, "roles", "doctor", "meta", "argument_specs.yml")
    with open(path) as handle:
        original = handle.read()
    with open(path, "w") as handle:
        handle.write(original.replace("doctor_fail_on:", "doctor_fail_at:"))
    try:
        found = docs_commands.findings(tree_copy)
    finally:
        with open(path, "w") as handle:
            handle.write(original)
    assert any("`doctor_fail_on` is a role default but no argument spec has it" in line for line in found), found


def test_renaming_a_documented_file_fails(tree_copy):
    os.rename(os.path.join(tree_copy, "docs", "report.md"), os.path.join(tree_copy, "docs", "reports.md"))
    try:
        found = docs_commands.findings(tree_copy)
    finally:
        os.rename(os.path.join(tree_copy, "docs", "reports.md"), os.path.join(tree_copy, "docs", "report.md"))
    assert any(line.startswith("docs/site.md:") and "docs/report.md does not exist" in line for line in found), found
    assert any(line.startswith("docs/topology.md:") and "the link report.md leads nowhere" in line
               for line in found), found


WRONG_PAGE = """# A page of wrong commands

```sh
ansible-playbook doctor.yml
ansible-playbook -i inventories/mine doctor.yml -K -e doctor_fail_when=never --tags doctr
ansible-playbook -i inventories/mine nowhere.yml
ansible -i inventories/mine macs -m macops.cluster.rdma_status -a 'verbose=true'
ansible -i inventories/mine macs -m macops.cluster.no_such_module
ansible -i inventories/mine macs -b -m macops.cluster.pf_status
make lba
lab/maclab fault unplug mac1 mac2
cat roles/doctor/files/nothing.py
if then
```

```
ansible-playbook -i inventories/mine site.yml -K
```

```yaml
doctor_fail_when: never
```

See `roles/doctor/defaults/nothing.yml`, `doctor_fail_when` and [the guide](nowhere.md).
"""


def page_findings(tree, name, text):
    """The checker's findings of one page added to the docs of a tree (removed again)."""
    with open(os.path.join(tree, "docs", name), "w") as handle:
        handle.write(text)
    try:
        return [line for line in docs_commands.findings(tree) if line.startswith("docs/%s:" % name)]
    finally:
        os.remove(os.path.join(tree, "docs", name))


def test_each_kind_of_wrong_command_is_named(tree_copy):
    found = page_findings(tree_copy, "wrong.md", WRONG_PAGE)
    expected = [
        "docs/wrong.md:4: ansible-playbook without -i",
        "docs/wrong.md:4: doctor.yml uses become but the command passes no become password",
        "docs/wrong.md:5: -e doctor_fail_when=never: no role's argument spec has the variable doctor_fail_when",
        "docs/wrong.md:5: no task has the tag doctr",
        "docs/wrong.md:6: playbook nowhere.yml does not exist",
        "docs/wrong.md:7: macops.cluster.rdma_status has no option verbose",
        "docs/wrong.md:8: module macops.cluster.no_such_module does not exist",
        "docs/wrong.md:9: -b uses become but the command passes no become password",
        "docs/wrong.md:10: make has no target lba",
        "docs/wrong.md:11: lab/maclab fault has no fault unplug",
        "docs/wrong.md:12: roles/doctor/files/nothing.py does not exist",
        "docs/wrong.md:3: bash -n:",
        "docs/wrong.md:16: a block of commands without a shell label",
        "docs/wrong.md:20: the YAML sets doctor_fail_when, which no role's argument spec has",
        "docs/wrong.md:24: roles/doctor/defaults/nothing.yml does not exist",
        "docs/wrong.md:24: `doctor_fail_when` is no variable of an argument spec and no name in the code",
        "docs/wrong.md:24: the link nowhere.md leads nowhere",
    ]
    missing = [line for line in expected if not any(finding.startswith(line) for finding in found)]
    assert missing == [], found
    assert len(found) == len(expected), found


def test_the_runnable_blocks_are_the_marked_ones():
    runnable = docs_commands.runnable_commands(ROOT)
    assert runnable, "no block of the docs is marked %s" % docs_commands.RUNNABLE
    assert all(argv[0] in ("ansible", "ansible-playbook") and "inventories/mine" in argv for _where, argv in runnable)



INPUTS_PAGE = """# Commands their input checks judge

```sh
ansible-playbook -i inventories/mine update-macos.yml -K --check
ansible-playbook -i inventories/mine update-macos.yml -K -e @vault.yml
ansible-playbook -i inventories/mine deploy-model.yml -e deploy_model_source_host=nowhere -e deploy_model_source=/m
ansible-playbook -i inventories/mine update-macos.yml -K -J -e @vault.yml
```

`ansible-playbook -i inventories/mine doctor.yml -K # refused` is not refused; `ansible-playbook -i inventories/mine
site.yml -K -e firewall_state=presnet # refused` is.
"""


def test_a_command_its_input_check_refuses_is_named_with_the_refusal(tree_copy):
    """Issue 49: every playbook command the docs show goes through its playbook's own input check (the owner's
    password the update needs, a source node of the inventory), a vault file needs a vault password option, and a
    command shown as refused must be."""
    found = page_findings(tree_copy, "inputs.md", INPUTS_PAGE)
    expected = [
        "docs/inputs.md:4: its input check refuses it: macos_update_owner_password = '' is refused",
        "docs/inputs.md:5: -e @vault.yml without a vault password option",
        "docs/inputs.md:6: its input check refuses it: deploy_model_source_host = 'nowhere' is refused: it must be a "
        "node of the group macs (studio-1, studio-2, studio-3, studio-4)",
        "docs/inputs.md:10: shown as refused, but its input check passes it",
    ]
    missing = [line for line in expected if not any(finding.startswith(line) for finding in found)]
    assert missing == [] and len(found) == len(expected), found
