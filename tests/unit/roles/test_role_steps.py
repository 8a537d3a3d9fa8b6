"""Roles read as their steps (issue 31): a role's tasks/main.yml is its steps in the order the
playbooks run them, no tasks file only includes another, and another entry point exists only for a
phase a playbook runs apart. Inputs are checked once per run, in one place (issue 51): every operation
playbook's first play is playbooks/check_inputs.yml, and no role checks its inputs again."""
import glob
import os
import re

import yaml
from test_no_log_audit import _tasks

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
INCLUDES = ("ansible.builtin.import_tasks", "ansible.builtin.include_tasks",
            "ansible.builtin.import_role", "ansible.builtin.include_role")
ROLE_IMPORTS = ("ansible.builtin.import_role", "ansible.builtin.include_role")
# The entry points besides main: each a phase a playbook runs apart from the role's main.
PHASES = {
    "preflight": {"limits"},  # no task: doctor.yml judges by preflight's limits (its defaults) without running it
    "topology": {"plan"},
    "rdma": {"gate"},
    "exo": {"networksetup_guard"},
    "deploy_model": {"absent"},  # deploy_model_state absent: the model off every node
    "reboot_cluster": {"before", "restart"},
    "cluster_reboot": {"before", "restart"},  # 0.1.0's name of reboot_cluster: each entry point a stub that fails
    "serve": {"completion", "timed"},  # reboot-cluster.yml and doctor.yml prove a served model answers; update-macos.yml times it
    "macos_update": {"after"},  # update-macos.yml runs site.yml's settings roles between main and after
}
# The most places that may call macops.cluster.validate_inputs (issue 51: at most 8): the one play every
# operation playbook starts with, and the end-to-end tests' own converge playbooks.
CALL_SITES_MAX = 8


def _load(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


def _task_files():
    return sorted(glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "*.yml")))


def _entry_points():
    """{role: {entry points}} from every meta/argument_specs.yml."""
    found = {}
    for path in glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml")):
        role = path.split(os.sep)[-3]
        found[role] = set((_load(path) or {}).get("argument_specs") or {})
    return found


def _role_imports():
    """(file, role, tasks_from, task) of every import_role/include_role of a playbook or a role."""
    paths = sorted(glob.glob(os.path.join(ROOT, "playbooks", "*.yml")) + _task_files()
                   + glob.glob(os.path.join(ROOT, "molecule", "*", "*.yml")))
    for path in paths:
        data = _load(path) or []
        plays = data if path.startswith(os.path.join(ROOT, "playbooks")) else [{"tasks": data}]
        for play in plays:
            if not isinstance(play, dict):
                continue
            for key in ("pre_tasks", "tasks", "post_tasks"):
                for task in _tasks(play.get(key)):
                    for module in ROLE_IMPORTS:
                        if module in task:
                            args = task[module]
                            role = args["name"].split(".")[-1]
                            yield os.path.relpath(path, ROOT), role, args.get("tasks_from"), task


def test_no_tasks_file_only_includes_another():
    """A file whose one task includes another unconditionally is indirection. A gate is not: one include with a
    condition (power's settings, exo's networksetup guard) costs one skipped task where nothing is to be done, where
    the tasks it includes would each be skipped."""
    only_includes = []
    for path in _task_files():
        tasks = _load(path) or []
        if len(tasks) == 1 and any(module in tasks[0] for module in INCLUDES) and "when" not in tasks[0]:
            only_includes.append(os.path.relpath(path, ROOT))
    assert only_includes == []


def test_no_role_has_an_apply_entry_point_any_more():
    assert glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "apply.yml")) == []
    assert dict((role, entries) for role, entries in _entry_points().items() if "apply" in entries) == {}


def test_every_entry_point_besides_main_is_a_phase_a_playbook_runs_apart():
    entries_of = _entry_points()
    # The macops role (settings only, no tasks) has one entry point, not called main: Ansible checks a dependency's
    # main every time a play runs a role that depends on it (a second input check per play and host).
    assert entries_of.pop("macops") == {"settings"} and not os.path.isdir(os.path.join(ROOT, "roles", "macops", "tasks"))
    extra = dict((role, entries - {"main"}) for role, entries in entries_of.items() if entries - {"main"})
    assert extra == PHASES


def test_every_entry_point_has_its_tasks_file():
    for role, entries in _entry_points().items():
        # The macops role holds the cluster-wide settings only (a dependency of every role): no tasks.
        for entry in entries if role != "macops" else ():
            assert os.path.exists(os.path.join(ROOT, "roles", role, "tasks", entry + ".yml")), (role, entry)


def test_every_tasks_from_names_an_entry_point_of_its_role():
    entry_points = _entry_points()
    for where, role, tasks_from, _ in _role_imports():
        if tasks_from is not None:
            assert os.path.splitext(tasks_from)[0] in entry_points[role] - {"main"}, (where, role, tasks_from)


def test_site_yml_imports_each_changing_role_through_its_main():
    imports = [(role, tasks_from, task) for where, role, tasks_from, task in _role_imports()
               if where == os.path.join("playbooks", "site.yml")]
    mains = [role for role, tasks_from, _ in imports if tasks_from is None]
    assert mains == ["preflight", "sudoers", "power", "thunderbolt_network", "rdma", "ssh_mesh", "python_env", "gpu_memory",
                     "mlx", "exo", "firewall", "report"]
    assert [role for role, tasks_from, _ in imports if tasks_from is not None] == ["topology", "rdma", "exo"]


def _validate_inputs_call_sites():
    """The YAML files of the collection and its tests that run macops.cluster.validate_inputs, with how often."""
    sites = {}
    paths = glob.glob(os.path.join(ROOT, "*.yml")) + [
        path for top in ("playbooks", "roles", "tests", "molecule", "docs", "inventories")
        for path in glob.glob(os.path.join(ROOT, top, "**", "*.yml"), recursive=True)]
    for path in paths:
        relative = os.path.relpath(path, ROOT)
        with open(path) as handle:
            count = len(re.findall(r"^\s*(?:- )?macops\.cluster\.validate_inputs:", handle.read(), re.M))
        if count:
            sites[relative] = count
    return sites


def test_inputs_are_checked_in_one_place():
    sites = _validate_inputs_call_sites()
    assert sum(sites.values()) <= CALL_SITES_MAX, sites
    assert sites.get(os.path.join("playbooks", "check_inputs.yml")) == 1, sites
    # No role checks its inputs: the playbook that runs it checked them before anything connected.
    assert [site for site in sites if site.startswith("roles" + os.sep)] == [], sites


def _operation_playbooks():
    for path in sorted(glob.glob(os.path.join(ROOT, "playbooks", "*.yml"))):
        if os.path.basename(path) != "check_inputs.yml":
            yield os.path.basename(path), _load(path)


def test_every_operation_playbook_starts_with_the_one_input_check_and_checks_nothing_twice():
    imports = list(_role_imports())
    for name, plays in _operation_playbooks():
        first = plays[0]
        assert first.get("ansible.builtin.import_playbook") == "check_inputs.yml", name
        roles = first["vars"]["check_inputs_roles"]
        # It names every role the playbook runs (their required variables are checked), and only those.
        run = set(role for where, role, _, _ in imports if where == os.path.join("playbooks", name))
        assert run <= set(roles), (name, sorted(run - set(roles)))
        for play in plays[1:]:
            assert "ansible.builtin.import_playbook" not in play, name
            for task in _tasks(play.get("tasks")):
                assert "macops.cluster.validate_inputs" not in task, name
                for module in ROLE_IMPORTS:
                    if module in task:
                        # Checked in the first play: Ansible's own check of the argument spec would be a second.
                        assert task[module].get("rolespec_validate") is False, (name, task.get("name"))


def test_exos_main_skips_the_guard_a_play_ran_before():
    main = _load(os.path.join(ROOT, "roles", "exo", "tasks", "main.yml"))
    # One task where the play ran the guard: the include of the launchd read and the guard, skipped.
    include = next(task for task in main if "ansible.builtin.include_tasks" in task)
    assert include["ansible.builtin.include_tasks"]["file"] == "networksetup.yml"
    assert include["when"] == "__exo_networksetup_guard is not defined"
    assert not any("macops.cluster.node_facts" in task or task.get("ansible.builtin.import_tasks") == "networksetup_guard.yml"
                   for task in main)
    own = _load(os.path.join(ROOT, "roles", "exo", "tasks", "networksetup.yml"))
    assert [task.get("register") for task in own] == ["__exo_launchd", None]
    assert own[1]["ansible.builtin.import_tasks"] == "networksetup_guard.yml"
    registered = [task.get("register") for task in _tasks(_load(
        os.path.join(ROOT, "roles", "exo", "tasks", "networksetup_guard.yml")))]
    assert "__exo_networksetup_guard" in registered


def _python_env_readers():
    """The roles whose tasks (or the variables they use) read macops_python_env, the pip settings and environment
    python_env publishes."""
    readers = set()
    for path in _task_files() + sorted(glob.glob(os.path.join(ROOT, "roles", "*", "vars", "*.yml"))):
        with open(path) as handle:
            if re.search(r"\bmacops_python_env\b", handle.read()):
                readers.add(path.split(os.sep)[-3])
    return readers - {"python_env"}


def test_every_tagged_site_run_the_collection_advises_runs_python_env_with_the_roles_that_read_it():
    """A `site.yml --tags` run the fixes and docs advise that runs exo or mlx (or one of their steps) runs python_env
    too: exo's pip otherwise asks PyPI, not the owner's index (its install refuses that), and mlx fails on the
    missing fact. (python_env is not tagged exo or mlx in site.yml: `--skip-tags exo` must keep it.)"""
    readers = _python_env_readers()
    assert readers == {"exo", "mlx"}, readers
    paths = (glob.glob(os.path.join(ROOT, "plugins", "*", "*.py")) + glob.glob(os.path.join(ROOT, "docs", "*.md"))
             + glob.glob(os.path.join(ROOT, "roles", "*", "README.md")) + [os.path.join(ROOT, "README.md")])
    advised = []
    for path in paths:
        with open(path) as handle:
            text = " ".join(handle.read().split()).replace('" "', "")  # Python's adjacent strings joined
        for tags in re.findall(r"site\.yml[^.;|]*?--tags ([a-z_,]+)", text):
            reading = [tag for tag in tags.split(",") for role in readers if tag == role or tag.startswith(role + "_")]
            advised.append(tags)
            assert not reading or "python_env" in tags.split(","), (os.path.relpath(path, ROOT), tags)
    assert "python_env,exo" in advised and "python_env,mlx" in advised, advised
    site = _load(os.path.join(ROOT, "playbooks", "site.yml"))
    tags = [task.get("tags") for play in site for task in _tasks(play.get("tasks"))
            if (task.get("ansible.builtin.import_role") or {}).get("name") == "macops.cluster.python_env"]
    assert tags == [["python_env"]], tags
