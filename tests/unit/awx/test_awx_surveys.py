"""The AWX surveys (docs/awx/surveys/*.json, one per playbook, docs/awx.md) against AWX's own survey rules
(awx_rules.py, followed from AWX's source) and against the collection's validator, in-process: no
playbook runs and nothing connects anywhere.

(a) every survey is a spec AWX saves; (b) each question is an option its playbook's first task checks,
asked with that option's type, choices and default, and the shipped files are exactly what
scripts/awx_surveys.py generates from the argument specs; (c) the answers AWX sends when the operator
keeps every default pass the collection's validator, and a wrong answer per question (a word where a
number belongs, a value outside the choices or the bounds) is refused naming the variable.
"""
import importlib.util
import ipaddress
import json
import os

import pytest
import yaml

import awx_rules
from ansible_collections.macops.cluster.plugins.plugin_utils import _inputs

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SURVEY_DIR = os.path.join(ROOT, "docs", "awx", "surveys")
INVENTORY = os.path.join(ROOT, "docs", "awx", "inventory", "hosts.yml")
PLAYBOOKS = ["site.yml", "reboot-cluster.yml", "benchmark.yml", "deploy-model.yml", "serve-model.yml", "update-macos.yml",
             "doctor.yml", "support-bundle.yml"]
NAMES = [playbook[:-len(".yml")] for playbook in PLAYBOOKS]

_spec = importlib.util.spec_from_file_location("awx_surveys", os.path.join(ROOT, "scripts", "awx_surveys.py"))
generator = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generator)
SPECS = generator.load_specs()


def shipped(name):
    with open(os.path.join(SURVEY_DIR, name + ".json")) as handle:
        return json.load(handle)


def awx_hosts():
    with open(INVENTORY) as handle:
        return yaml.safe_load(handle)["macs"]["hosts"]


MACS = sorted(awx_hosts())
# What an operator must type where a question has no usable default (the survey requires it).
OPERATOR = {"deploy-model": {"deploy_model_source_host": MACS[0],
                             "deploy_model_source": "/Users/admin/staging/DeepSeek-V3.1-4bit"},
            # Not a question: the job template's credential injects it (docs/awx.md).
            "update-macos": {"macos_update_owner_password": "from-the-credential"}}
# Wrong answers a text question can get (free text with no rule has none: FREE_TEXT).
BAD_TEXT = {"deploy_model_source_host": ["", "mac-that-is-not-in-macs"], "deploy_model_source": ["staging/model"],
            "deploy_model_hub_id": ["not a hub id"], "deploy_model_name": ["a/b/c"],
            "macos_update_version": ["26.x", "latest"]}
# Any name: the plan refuses one nothing deployed, and a canary that is no node of the play is the first node.
FREE_TEXT = {"benchmark_exo_model", "serve_model_name", "macos_update_canary"}


def check_of(name):
    return generator.first_check(name + ".yml")


def answers(name):
    """The extra vars of a launch that keeps every default, as AWX's form sends them, plus OPERATOR."""
    values = awx_rules.ui_answers(shipped(name))
    values.update(OPERATOR.get(name, {}))
    return values


def refused(name, values):
    """{variable: [messages]} of the collection's refusals, with the roles' defaults beside ``values``."""
    found = {}
    for problem in generator.refusals(SPECS, check_of(name), values, macs=MACS):
        found.setdefault(problem["details"].get("variable"), []).append(problem["message"])
    return found


def bad_answers():
    cases = []
    for name in NAMES:
        for question in shipped(name)["spec"]:
            variable, kind = question["variable"], question["type"]
            if kind in ("integer", "float"):
                bad = ["abc"] + [question[key] + step for key, step in (("min", -1), ("max", 1)) if key in question]
            elif kind == "multiplechoice":
                bad = [question["choices"][0] + "x", "sometimes"]
            elif kind == "multiselect":
                bad = [[question["choices"][0] + "x"]]
            else:
                bad = BAD_TEXT.get(variable, [])
            cases.extend((name, variable, value) for value in bad)
    return cases


BAD = bad_answers()


def test_one_survey_per_playbook_and_the_script_knows_each():
    assert sorted(f[:-5] for f in os.listdir(SURVEY_DIR) if f.endswith(".json")) == sorted(NAMES)
    assert sorted(generator.SURVEYS) == sorted(NAMES)
    assert all(generator.SURVEYS[name]["playbook"] == name + ".yml" for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_survey_is_what_the_script_generates(name):
    with open(os.path.join(SURVEY_DIR, name + ".json")) as handle:
        assert handle.read() == generator.render(generator.survey(name, SPECS)), (
            "docs/awx/surveys/%s.json is stale: run .venv/bin/python scripts/awx_surveys.py" % name)


@pytest.mark.parametrize("playbook", PLAYBOOKS)
def test_the_playbook_s_first_task_is_the_collection_s_validator_and_stops_every_node(playbook):
    check = generator.first_check(playbook)  # raises when the first play is anything else
    with open(os.path.join(ROOT, playbook)) as handle:
        target = yaml.safe_load(handle)[0]["ansible.builtin.import_playbook"]
    with open(os.path.join(ROOT, "playbooks", target.rsplit(".", 1)[-1] + ".yml")) as handle:
        first = yaml.safe_load(handle)[0]
    # the playbook's first play is the collection's one input check, and that play's first task the validator
    with open(os.path.join(ROOT, "playbooks", first["ansible.builtin.import_playbook"])) as handle:
        play = yaml.safe_load(handle)[0]
    task = play["tasks"][0]
    assert "macops.cluster.validate_inputs" in task
    assert task["name"] == check["name"] and play["hosts"] == "macs" and play["gather_facts"] is False
    # a bad answer stops every node, not only the one it was judged on
    assert task.get("any_errors_fatal", play.get("any_errors_fatal")) is True
    assert "macops" in check["roles"] or check["roles"] == ["known_hosts"]


@pytest.mark.parametrize("name", NAMES)
def test_a_survey_is_a_spec_awx_saves_and_keeps_to_the_house_rules(name):
    survey = shipped(name)
    assert awx_rules.spec_errors(survey) == []
    for question in survey["spec"]:
        # Choices as a list (AWX also takes one string, but tests a default against it as a substring),
        # an explanation for the operator, and no secret: those are AWX credentials (docs/awx.md).
        assert question["type"] != "password" and question["question_description"].strip()
        assert isinstance(question.get("choices", []), list)
        assert all(isinstance(choice, str) for choice in question.get("choices", []))


@pytest.mark.parametrize("broken, reason", [
    ({"name": "x", "spec": [{"type": "text", "question_name": "q", "variable": "v", "required": False}]},
     "Field 'description' is missing"),
    ({"name": "x", "description": "", "spec": []}, "doesn't contain any items"),
    ({"name": "x", "description": "", "spec": [{"type": "boolean", "question_name": "q", "variable": "v",
                                                "required": False}]}, "not an allowed question type"),
    ({"name": "x", "description": "", "spec": [{"type": "text", "question_name": "q", "variable": "v",
                                                "required": "yes"}]}, "'required' in survey question 0"),
    ({"name": "x", "description": "", "spec": [{"type": "integer", "question_name": "q", "variable": "v",
                                                "required": False, "default": "3"}]}, "expected to be integer"),
    ({"name": "x", "description": "", "spec": [{"type": "integer", "question_name": "q", "variable": "v",
                                                "required": False, "min": 0.5}]}, "min limit"),
    ({"name": "x", "description": "", "spec": [{"type": "multiplechoice", "question_name": "q", "variable": "v",
                                                "required": False, "default": "a"}]}, "must specify choices"),
    ({"name": "x", "description": "", "spec": [{"type": "multiplechoice", "question_name": "q", "variable": "v",
                                                "required": False, "default": "c", "choices": ["a", "b"]}]},
     "Default choice must be answered from the choices"),
    ({"name": "x", "description": "", "spec": [{"type": "multiselect", "question_name": "q", "variable": "v",
                                                "required": False, "default": ["a"], "choices": ["a"]}]},
     "expected to be multiselect"),
    ({"name": "x", "description": "", "spec": [
        {"type": "text", "question_name": "q", "variable": "v", "required": False},
        {"type": "text", "question_name": "r", "variable": "v", "required": False}]}, "duplicated"),
])
def test_the_awx_rules_refuse_what_awx_refuses(broken, reason):
    errors = awx_rules.spec_errors(broken)
    assert any(reason in error for error in errors), errors


@pytest.mark.parametrize("name", NAMES)
def test_each_question_is_an_option_the_first_task_checks_asked_as_its_spec_says(name):
    options = generator.options_checked(SPECS, check_of(name))
    for question in shipped(name)["spec"]:
        variable = question["variable"]
        assert variable in options, "%s is not an option %s.yml's first task checks" % (variable, name)
        spec = options[variable]
        kind, default = spec.get("type", "str"), spec.get("default")
        if question["type"] == "multiplechoice" and question["choices"] == ["true", "false"]:
            assert kind == "bool" and question["default"] == ("true" if default else "false")
        elif question["type"] == "multiplechoice":
            assert kind in ("str", "path") and question["choices"] == [str(c) for c in spec["choices"]]
            assert question["default"] == str(default)
        elif question["type"] == "multiselect":
            assert kind == "list" and spec.get("elements") == "str"
            assert question["choices"] == [str(c) for c in spec["choices"]]
            assert question["default"].splitlines() == [str(c) for c in default]
        elif question["type"] == "integer":
            assert kind == "int" and question["default"] == default
        elif question["type"] == "float":
            assert kind == "float" and question["default"] == default
        else:
            assert question["type"] == "text" and kind in ("str", "path") and not spec.get("choices")
            assert question["default"] == default
        assert not spec.get("no_log"), "%s is a secret: an AWX credential, not a survey question" % variable


@pytest.mark.parametrize("name", NAMES)
def test_the_survey_defaults_pass_awx_and_the_collection_s_validator(name):
    values = answers(name)
    assert awx_rules.launch_errors(shipped(name), values) == []
    assert refused(name, values) == {}


def test_a_survey_without_the_operator_s_answers_is_refused_naming_what_is_missing():
    values = awx_rules.ui_answers(shipped("deploy-model"))
    # AWX itself refuses the launch: the required answer's minimum length is 1
    assert awx_rules.launch_errors(shipped("deploy-model"), values)
    assert sorted(refused("deploy-model", values)) == sorted(OPERATOR["deploy-model"])


def test_every_question_has_wrong_answers_unless_it_is_free_text():
    asked = set(variable for name, variable, _ in BAD)
    every = set(q["variable"] for name in NAMES for q in shipped(name)["spec"])
    assert every - asked == FREE_TEXT


@pytest.mark.parametrize("name, variable, bad", BAD, ids=["%s-%s-%r" % case for case in BAD])
def test_a_wrong_answer_is_refused_naming_the_variable(name, variable, bad):
    values = answers(name)
    values[variable] = bad
    found = refused(name, values)
    assert list(found) == [variable], found
    assert found[variable][0].startswith(variable + " = ")


def question_of(name, variable):
    return [q for q in shipped(name)["spec"] if q["variable"] == variable][0]


# A wrong type or choice (a text answer is any string to AWX: only the collection judges it).
AWX_BAD = [case for case in BAD if question_of(case[0], case[1])["type"] != "text"]


@pytest.mark.parametrize("name, variable, bad", AWX_BAD, ids=["%s-%s-%r" % case for case in AWX_BAD])
def test_awx_refuses_a_wrong_typed_or_chosen_answer_before_the_job_starts(name, variable, bad):
    # Through the survey AWX stops these itself; through extra vars (ask_variables_on_launch, a
    # workflow, the API) they reach the first task, which refuses them (the test above).
    assert awx_rules.answer_errors(question_of(name, variable), {variable: bad})


@pytest.mark.parametrize("name", NAMES)
def test_integer_bounds_are_exactly_the_validator_s(name):
    check = check_of(name)
    for question in [q for q in shipped(name)["spec"] if q["type"] == "integer"]:
        variable = question["variable"]
        for key, step in (("min", -1), ("max", 1)):
            if key in question:
                assert generator.accepted(SPECS, check, variable, question[key])
                assert not generator.accepted(SPECS, check, variable, question[key] + step)
            else:
                assert generator.accepted(SPECS, check, variable, step * 10 ** 6)


@pytest.mark.parametrize("variable, given, coerced", [
    ("benchmark_links_repeats", "3", 3), ("reboot_cluster_batch_size", "2", 2),
    ("doctor_check_updates", "false", False), ("benchmark_suites", "links,allsum", ["links", "allsum"]),
])
def test_a_numeric_or_boolean_string_is_accepted_as_ansible_coerces_it(variable, given, coerced):
    # -e name=3 and a text answer give strings; the validator judges them as Ansible's
    # ArgumentSpecValidator converts them (the roles read the value through | int or | bool).
    options = {}
    for role in SPECS:
        for entry in SPECS[role].values():
            options.update(entry)
    validated, problems = _inputs.check_options({variable: options[variable]}, {variable: given})
    assert problems == [] and validated == {variable: coerced}


@pytest.mark.parametrize("name", NAMES)
def test_a_default_awx_drops_on_a_launch_without_answers_is_the_role_s_own(name):
    # AWX sends a default itself only where it passes its own question (a multiselect's, one string,
    # never does): the role's default then applies, which must be the survey's.
    survey = shipped(name)
    sent = awx_rules.launch_defaults(survey)
    options = generator.options_checked(SPECS, check_of(name))
    for question in survey["spec"]:
        if question["variable"] not in sent and not question["required"]:
            assert awx_rules.ui_answers({"spec": [question]})[question["variable"]] == options[question["variable"]]["default"]


def test_the_workflow_s_artifacts_pass_the_unknown_variable_check():
    # A workflow merges a job's set_stats artifacts (doctor, reboot_cluster) into the next job's extra
    # vars: doctor.yml's first task must not take them for misspelt variables.
    assert _inputs.unknown_variables(["doctor", "reboot_cluster"], SPECS) == []


def test_the_awx_inventory_has_the_group_macs_and_documentation_addresses_only():
    documentation = [ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")]
    hosts = awx_hosts()
    assert len(hosts) >= 2
    for host, hostvars in hosts.items():
        address = ipaddress.ip_address(hostvars["ansible_host"])
        assert any(address in network for network in documentation), (host, address)
    with open(INVENTORY) as handle:
        text = handle.read()
    # the credential brings the account and every secret
    assert "ansible_user" not in yaml.safe_load(text)["macs"].get("vars", {})
    assert "password" not in yaml.safe_load(text)["macs"].get("vars", {})
