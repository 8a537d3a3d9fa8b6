"""docs/architecture.md says what the code does: each published fact in its table is set by the
role it names (a set_fact key, a registered result or node_facts' set_facts), by no other role,
and the report reads the problems of exactly the results the text lists."""
import os
import re

import yaml

from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import PROBLEM_FACTS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DOC = os.path.join(ROOT, "docs", "architecture.md")
ROW = re.compile(r"^\| (?P<facts>[^|]+) \| (?P<role>[a-z_]+)\b[^|]* \| .* \|$")


def table():
    """[(fact names, role)] from the 'Facts the roles publish' table."""
    text = open(DOC).read().split("## Facts the roles publish", 1)[1]
    rows = []
    for line in text.splitlines():
        match = ROW.match(line)
        if match and not line.startswith("| fact |"):
            names = re.findall(r"`(?:ansible_facts\[')?(macops_[a-z_]+)(?:'\])?`", match.group("facts"))
            rows.append((names, match.group("role")))
    return rows


def tasks(node):
    """Every task dict in a task file, blocks included."""
    for item in node or []:
        if isinstance(item, dict):
            yield item
            for key in ("block", "rescue", "always"):
                for task in tasks(item.get(key)):
                    yield task


def published_by_role():
    """{fact: {roles that set or register it}}."""
    found = {}
    for role in sorted(os.listdir(os.path.join(ROOT, "roles"))):
        directory = os.path.join(ROOT, "roles", role, "tasks")
        for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
            with open(os.path.join(directory, name)) as handle:
                for task in tasks(yaml.safe_load(handle)):
                    names = set()
                    if isinstance(task.get("register"), str):
                        names.add(task["register"])
                    names.update(task.get("ansible.builtin.set_fact") or {})
                    if (task.get("macops.cluster.node_facts") or {}).get("set_facts"):
                        names.update(["macops_mac", "macops_node"])
                    for fact in names:
                        if fact.startswith("macops_"):
                            found.setdefault(fact, set()).add(role)
    return found


def test_the_table_lists_facts():
    rows = table()
    assert len(rows) >= 10 and ["macops_preflight"] in [names for names, _ in rows]


def test_each_fact_in_the_table_is_set_by_the_role_it_names_and_no_other():
    found = published_by_role()
    for names, role in table():
        for fact in names:
            # reboot-cluster.yml (before the reboot), doctor.yml (its sweep), deploy-model.yml, benchmark.yml,
            # serve-model.yml and update-macos.yml (their one read) read the node in their own runs, with node_facts'
            # set_facts.
            readers = {"reboot_cluster", "doctor", "deploy_model", "benchmark", "serve", "macos_update"}
            expected = {role} | readers if fact in ("macops_mac", "macops_node") else {role}
            assert found.get(fact, set()) <= expected and role in found.get(fact, set()), (fact, role, found.get(fact))


def test_every_published_macops_result_is_in_the_table():
    documented = set(name for names, _ in table() for name in names)
    assert set(published_by_role()) <= documented, set(published_by_role()) - documented


def test_the_report_reads_the_problems_the_text_names():
    text = open(DOC).read()
    sentence = text.split("and the problems of ", 1)[1].split(";", 1)[0]
    assert tuple(re.findall(r"`(macops_[a-z_]+)`", sentence)) == PROBLEM_FACTS


def test_the_playbooks_the_text_names_are_the_ones_there():
    text = open(DOC).read()
    shims = ("site.yml", "doctor.yml", "update-macos.yml", "reboot-cluster.yml", "deploy-model.yml", "serve-model.yml",
             "support-bundle.yml", "known-hosts.yml", "benchmark.yml")
    assert ", ".join("`%s`" % shim for shim in shims[:-1]) + " and `%s`" % shims[-1] in text
    shipped = set(os.listdir(os.path.join(ROOT, "playbooks")))
    # check_inputs.yml is every operation's first play, imported, never run alone: no shim.
    assert set(shim.replace("-", "_") for shim in shims) | {"check_inputs.yml"} == set(
        name for name in shipped if name.endswith(".yml"))
    # Each root shim the text names imports its collection playbook.
    for shim in shims:
        assert os.path.exists(os.path.join(ROOT, shim)), shim