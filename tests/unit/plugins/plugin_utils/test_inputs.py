"""The first step's validator (plugins/plugin_utils/_inputs.py, _input_rules.py), generated from the
roles' argument specs: every option with choices gets a misspelt value, every typed option a value
of the wrong type, and each case must be refused naming the variable. A new role or option is
covered without editing this file. Nothing connects anywhere: these are pure function calls."""
import os

import pytest
import yaml

from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem
from ansible_collections.macops.cluster.plugins.plugin_utils import _input_rule_base, _inputs

from input_cases import generated_cases

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
ROLES = os.path.join(ROOT, "roles")
SPECS = _inputs.load_specs(ROLES)
MACS = ["mac1", "mac2", "mac3", "mac4"]
MANAGEMENT = dict((host, "198.18.0.%d" % (10 + index)) for index, host in enumerate(MACS, 1))


def context(values_on=None, variable=None):
    return _input_rule_base.Context("mac1", MACS, MANAGEMENT, values_on, variable)


def role_defaults(role):
    """The role's defaults/main.yml values that are plain data (templated ones need a play)."""
    path = os.path.join(ROLES, role, "defaults", "main.yml")
    if not os.path.exists(path):
        return {}
    with open(path) as handle:
        data = yaml.safe_load(handle) or {}
    return dict((k, v) for k, v in data.items() if "{{" not in yaml.safe_dump(v))


CASES = generated_cases(SPECS)


def test_the_generator_covers_every_role_with_options_and_every_kind():
    roles_with_options = set(role for role, entries in SPECS.items() if any(entries.values()))
    assert set(case[0] for case in CASES) == roles_with_options
    kinds = set(case[3].split()[0] for case in CASES)
    assert {"choices", "type", "element", "suboption"} <= kinds
    assert len(CASES) > 150


# An operation's inputs that have no sensible default (its defaults leave them empty, and the run refuses
# that): what to deploy and where it is.
REQUIRED = {"deploy_model": {"deploy_model_source": "/Users/admin/staging/m", "deploy_model_source_host": "mac1"},
            "macos_update": {"macos_update_owner_password": "s3cret"}}


@pytest.mark.parametrize("role", sorted(SPECS))
def test_each_role_accepts_its_own_defaults(role):
    values = role_defaults(role)
    values.update(role_defaults("macops"))
    values.update(REQUIRED.get(role, {}))
    assert _inputs.validate(SPECS, ["macops", role], values, context()) == []


@pytest.mark.parametrize("role", sorted(REQUIRED))
def test_an_operation_s_defaults_alone_are_refused_naming_what_is_missing(role):
    values = role_defaults(role)
    values.update(role_defaults("macops"))
    named = sorted(p["details"]["variable"] for p in _inputs.validate(SPECS, ["macops", role], values, context()))
    assert named == sorted(REQUIRED[role])


@pytest.mark.parametrize("role, name, bad, kind, expected", CASES, ids=["%s-%s-%s" % (c[0], c[1], c[3]) for c in CASES])
def test_a_bad_value_is_refused_naming_the_variable(role, name, bad, kind, expected):
    values = role_defaults(role)
    values[name] = bad
    # The entry point that declares the option: main, else the other one (the serve role's completion).
    entry = next(entry for entry in sorted(SPECS[role], key=lambda e: e != "main") if name in SPECS[role][entry])
    problems = _inputs.validate(SPECS, [role], values, context(), entry_points={role: entry})
    named = [p for p in problems if p["details"].get("variable") == name]
    assert len(named) == 1, problems
    problem = named[0]
    assert is_problem(problem) and problem["code"] == "input_invalid" and problem["host"] == "mac1"
    assert problem["message"].startswith(name + " = ") and name in problem["fix"]
    if expected is not None:
        # the allowed values are named, and a typo of one gets it back as the suggestion
        assert expected in problem["message"] and "Did you mean %s" % expected in problem["message"]
    # one refusal per variable: the role's rules never see a value its spec refused
    assert len([p for p in problems if p["details"].get("variable") == name]) == 1


def test_firewall_state_typo_says_did_you_mean_present():
    problems = _inputs.validate(SPECS, ["macops", "firewall"], {"firewall_state": "presnet"}, context())
    assert [p["message"] for p in problems] == [
        "firewall_state = 'presnet' is refused: value of firewall_state must be one of: present, absent, "
        "got: presnet. Did you mean present?"]
    assert "Set firewall_state to one of present, absent" in problems[0]["fix"]


@pytest.mark.parametrize("name, given, coerced", [
    ("firewall_mlx_first_port", "32323", 32323),
    ("macops_rdma_required", "yes", True),
    ("macops_rdma_required", "false", False),
    ("thunderbolt_network_ping_interval", "0.5", 0.5),
    ("firewall_exo_tcp_ports", "52415,52414", [52415, 52414]),
])
def test_strings_from_extra_vars_and_surveys_are_coerced_as_ansible_does(name, given, coerced):
    options = {}
    for role in SPECS:
        options.update(_inputs.role_options(SPECS, role))
    validated, problems = _inputs.check_options({name: options[name]}, {name: given})
    assert problems == [] and validated == {name: coerced}


@pytest.mark.parametrize("name, given", [
    ("firewall_mlx_first_port", "32323.5"), ("macops_rdma_required", "sometimes"), ("exo_api_port", "port"),
])
def test_strings_that_ansible_cannot_coerce_are_refused(name, given):
    options = {}
    for role in SPECS:
        options.update(_inputs.role_options(SPECS, role))
    validated, problems = _inputs.check_options({name: options[name]}, {name: given})
    assert validated == {} and [p["details"]["variable"] for p in problems] == [name]


def test_a_value_refused_by_its_spec_is_not_refused_again_by_the_rules():
    # -e exo_api_port=abc: the spec refuses it; the port-range rule must not run on the string
    problems = _inputs.validate(SPECS, ["exo"], {"exo_api_port": "abc"}, context())
    assert [p["details"]["variable"] for p in problems] == ["exo_api_port"]


def test_no_log_values_never_reach_a_message():
    spec = {"token": {"type": "int", "no_log": True}}
    _, problems = _inputs.check_options(spec, {"token": "s3cret-token"})
    assert problems and all("s3cret-token" not in p["message"] + p["fix"] for p in problems)
    assert "hidden" in problems[0]["message"]


def test_the_exo_roles_old_version_variable_points_to_the_cluster_wide_pin():
    # exo_version moved to the macops role (doctor.yml checks it): an inventory that still sets it is told.
    problems = _inputs.unknown_variables(["exo_version"], SPECS)
    assert [(p["details"]["variable"], p["details"]["did_you_mean"]) for p in problems] == [
        ("exo_version", "macops_exo_version")]


def test_a_variable_of_the_renamed_reboot_role_is_refused_with_its_new_name():
    # cluster_reboot became reboot_cluster: an old name left in an inventory (cluster_reboot_mode: rolling)
    # would otherwise be ignored, and every node would reboot at once.
    problems = _inputs.unknown_variables(["cluster_reboot_mode", "reboot_cluster_mode", "cluster_rebooted"], SPECS,
                                         host="mac1")
    assert [(p["code"], p["host"], p["details"]["variable"], p["details"]["did_you_mean"]) for p in problems] == [
        ("input_unknown_variable", "mac1", "cluster_reboot_mode", "reboot_cluster_mode")]
    assert problems[0]["fix"] == "Rename it to reboot_cluster_mode" and "0.2.0" in problems[0]["message"]


def test_serve_probe_timeout_is_refused_with_its_new_name_and_what_changed():
    """Issue 47: a hang is seconds in which nothing moves, no longer one probe's latency; an inventory that still sets
    serve_probe_timeout is told so instead of being silently ignored."""
    [found] = _inputs.unknown_variables(["serve_probe_timeout", "serve_stall_timeout"], SPECS, host="mac1")
    assert (found["details"]["variable"], found["details"]["did_you_mean"]) == ("serve_probe_timeout",
                                                                               "serve_stall_timeout")
    assert "nothing moves" in found["message"] and found["fix"] == "Rename it to serve_stall_timeout"


def test_unknown_names_get_the_closest_known_name_and_published_facts_pass():
    problems = _inputs.unknown_variables(
        ["macops_rdma_requried", "firewall_stat", "macops_topology", "unrelated_variable", "macops_exo_version",
         "macops_preflight"], SPECS)
    assert [(p["code"], p["details"]["variable"], p["details"]["did_you_mean"]) for p in problems] == [
        ("input_unknown_variable", "firewall_stat", "firewall_state"),
        ("input_unknown_variable", "macops_rdma_requried", "macops_rdma_required")]


def _published_by_roles():
    """Every cluster-wide result a role publishes: set_fact keys and registered names with the
    collection's prefix (macops_), which later plays and the report read."""
    names = set()
    for dirpath, _dirs, files in os.walk(ROLES):
        for name in files:
            if not name.endswith(".yml") or os.path.basename(dirpath) != "tasks":
                continue
            with open(os.path.join(dirpath, name)) as handle:
                tasks = yaml.safe_load(handle) or []
            stack = list(tasks)
            while stack:
                task = stack.pop()
                if not isinstance(task, dict):
                    continue
                stack.extend(task.get("block") or [])
                registered = task.get("register")
                if isinstance(registered, str) and registered.startswith("macops_"):
                    names.add(registered)
                facts = task.get("ansible.builtin.set_fact") or {}
                names.update(key for key in facts if isinstance(facts, dict) and key.startswith("macops_"))
    return names


def test_every_result_a_role_publishes_passes_the_unknown_variable_check():
    """A later playbook in the same run (site.yml then doctor.yml in one AWX workflow) sees the first one's
    published results as variables: none of them may be refused as unknown."""
    published = _published_by_roles()
    assert {"macops_doctor", "macops_sudoers", "macops_preflight"} <= published
    assert _inputs.unknown_variables(sorted(published), SPECS) == []
    # And the list of published facts is the roles' own: none missing from it.
    assert sorted(published - _inputs.PUBLISHED_FACTS) == []


def write_role(roles_dir, role, options):
    meta = roles_dir.join(role).ensure("meta", dir=True)
    meta.join("argument_specs.yml").write(yaml.safe_dump({"argument_specs": {"main": {"options": options}}}))


def test_role_prefixes_come_from_role_names(tmpdir):
    write_role(tmpdir, "macops", {"macops_pool": {"type": "str"}})
    write_role(tmpdir, "power", {"power_sleep_minutes": {"type": "int"}})
    specs = _inputs.load_specs(str(tmpdir))
    found = _inputs.unknown_variables(["power_sleep_minutes", "power_sleep_minute", "other_x", "macops_pool",
                                       "macops_zzz"], specs)
    assert [p["message"] for p in found] == [
        "macops_zzz is not a macops.cluster variable.",
        "power_sleep_minute is not a macops.cluster variable. Did you mean power_sleep_minutes?"]


def test_a_directory_without_specs_is_an_error(tmpdir):
    with pytest.raises(_inputs.InputSpecError, match="no meta/argument_specs.yml under"):
        _inputs.load_specs(str(tmpdir))


def test_an_unknown_role_or_entry_point_is_an_error():
    specs = _inputs.load_specs(ROLES)
    with pytest.raises(_inputs.InputSpecError, match="has no role 'nosuch'"):
        _inputs.role_options(specs, "nosuch")
    with pytest.raises(_inputs.InputSpecError, match="no entry point 'nosuch'"):
        _inputs.role_options(specs, "firewall", "nosuch")
