"""Roles read as their steps (issue 31): a role's tasks/main.yml is its steps in the order the
playbooks run them, no tasks file only includes another, and another entry point exists only for a
phase a playbook runs apart. A role's own input check is its first step, skipped where the play
checked every input first (site.yml's first task, preflight's validate_inventory: their result
macops_inputs_checked names the roles they checked)."""
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
    "preflight": {"validate_inventory", "node"},
    "topology": {"plan"},
    "rdma": {"gate"},
    "exo": {"networksetup_guard"},
    "benchmark": {"validate"},
    "deploy_model": {"validate", "absent"},  # deploy_model_state absent: the model off every node
    "reboot_cluster": {"before", "restart"},
    "cluster_reboot": {"before", "restart"},  # 0.1.0's name of reboot_cluster: each entry point a stub that fails
    "serve": {"completion", "timed"},  # reboot-cluster.yml and doctor.yml prove a served model answers; update-macos.yml times it
    "macos_update": {"after"},  # update-macos.yml runs site.yml's settings roles between main and after
}
SKIP = "['macops', '{role}'] is not subset(macops_inputs_checked['roles'] | default([]))"


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
    only_includes = []
    for path in _task_files():
        tasks = _load(path) or []
        if len(tasks) == 1 and any(module in tasks[0] for module in INCLUDES):
            only_includes.append(os.path.relpath(path, ROOT))
    assert only_includes == []


def test_no_role_has_an_apply_entry_point_any_more():
    assert glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "apply.yml")) == []
    assert dict((role, entries) for role, entries in _entry_points().items() if "apply" in entries) == {}


def test_every_entry_point_besides_main_is_a_phase_a_playbook_runs_apart():
    extra = dict((role, entries - {"main"}) for role, entries in _entry_points().items() if entries - {"main"})
    assert extra == PHASES


def test_every_entry_point_has_its_tasks_file():
    for role, entries in _entry_points().items():
        # The macops role holds the cluster-wide settings only (a dependency of every role): no tasks.
        for entry in entries if role != "macops" else entries - {"main"}:
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
    assert mains == ["sudoers", "power", "thunderbolt_network", "rdma", "ssh_mesh", "python_env", "gpu_memory",
                     "mlx", "exo", "firewall", "report"]
    # site.yml checked every role's inputs first: no role checks its argument spec again.
    assert all(task["ansible.builtin.import_role"].get("rolespec_validate") is False for _, _, task in imports)


def _validation_tasks():
    """(role, its main's tasks, the index of its validate_inputs task) of every role whose main checks inputs."""
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "main.yml"))):
        role = path.split(os.sep)[-3]
        tasks = _load(path) or []
        for index, task in enumerate(tasks):
            if "macops.cluster.validate_inputs" in task:
                yield role, tasks, index


def test_a_roles_own_input_check_is_its_first_step_and_skipped_where_the_play_checked_first():
    checked = dict((role, (tasks, index)) for role, tasks, index in _validation_tasks())
    assert set(checked) == {"sudoers", "power", "thunderbolt_network", "ssh_mesh", "python_env", "gpu_memory",
                            "mlx", "exo", "firewall", "serve", "macos_update"}
    for role, (tasks, index) in checked.items():
        task = tasks[index]
        assert index == 0, role
        assert task["macops.cluster.validate_inputs"]["roles"] == ["macops", role], role
        assert task["when"] == SKIP.format(role=role), role


def test_the_up_front_check_registers_the_result_the_roles_read():
    site = _load(os.path.join(ROOT, "playbooks", "site.yml"))
    first = site[0]["tasks"][0]
    assert "macops.cluster.validate_inputs" in first and first["register"] == "macops_inputs_checked"
    preflight = _load(os.path.join(ROOT, "roles", "preflight", "tasks", "validate_inventory.yml"))
    assert [task.get("register") for task in preflight] == ["macops_inputs_checked"]
    # Both check every role site.yml runs, with the same arguments.
    assert preflight[0]["macops.cluster.validate_inputs"] == first["macops.cluster.validate_inputs"]


def test_exos_main_skips_the_guard_a_play_ran_before():
    main = _load(os.path.join(ROOT, "roles", "exo", "tasks", "main.yml"))
    read = next(task for task in main if "macops.cluster.node_facts" in task)
    guard = next(task for task in main if task.get("ansible.builtin.import_tasks") == "networksetup_guard.yml")
    assert read["register"] == "__exo_launchd" and read["when"] == "__exo_networksetup_guard is not defined"
    assert guard["when"] == "__exo_launchd is not skipped"
    registered = [task.get("register") for task in _tasks(_load(
        os.path.join(ROOT, "roles", "exo", "tasks", "networksetup_guard.yml")))]
    assert "__exo_networksetup_guard" in registered


def _python_env_readers():
    """The roles whose tasks read macops_python_env, the pip settings and environment python_env publishes."""
    readers = set()
    for path in _task_files():
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
