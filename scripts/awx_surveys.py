#!/usr/bin/env python3
"""Write the AWX survey specs in docs/awx/surveys/ from the roles' argument specs and input rules.

    .venv/bin/python scripts/awx_surveys.py           # regenerate docs/awx/surveys/*.json
    .venv/bin/python scripts/awx_surveys.py --check   # exit 1 when a shipped survey is stale

Only the questions are chosen here (which variables an operator sets per run, and how each is
asked); everything else comes from the collection, so a survey cannot drift from what its
playbook's first task accepts: each variable is looked up in the argument specs of the roles that
playbook's first task (macops.cluster.validate_inputs) checks, and its type, choices and default
are that spec's, the description its description. An integer's min and max are the bounds the
collection's own validator (the specs and plugins/plugin_utils/_input_rules.py) enforces, found by
asking it. tests/unit/awx/test_awx_surveys.py fails when the shipped files and this script disagree.

AWX has no boolean question: a bool is a multiple choice of "true" and "false", which AWX sends as
a string and Ansible coerces (the roles read every bool option through `| bool`).
"""

import argparse
import json
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SURVEY_DIR = os.path.join(ROOT, "docs", "awx", "surveys")
ROLES_DIR = os.path.join(ROOT, "roles")
# The collection's validator, imported as a playbook imports it: through the collections path
# (collections/ansible_collections/macops/cluster is this tree). `ansible_collections` is a
# namespace package the `ansible` distribution shares: extended, not shadowed.
sys.path.insert(0, os.path.join(ROOT, "collections"))
import ansible_collections  # noqa: E402

if os.path.join(ROOT, "collections", "ansible_collections") not in list(ansible_collections.__path__):
    ansible_collections.__path__.append(os.path.join(ROOT, "collections", "ansible_collections"))

# The nodes the bounds are probed with: a rule that reads the inventory (a source host) needs some.
PROBE_MACS = ["mac1", "mac2", "mac3", "mac4"]
# Wider than any bound a rule sets; a value accepted at both ends has no bound.
_FAR = 2 ** 31

# Per playbook (docs/awx/surveys/<name>.json): the survey's name and description, then each
# question as (variable, question, options); options: required (the answer must not be empty).
# Picked for what an operator decides per run; settings of the cluster itself belong in the
# inventory, secrets in AWX credentials (docs/awx.md), never in a survey.
SURVEYS = {
    "site": {
        "playbook": "site.yml",
        "name": "Converge the cluster",
        "description": "site.yml: bring every Mac to a working MLX and exo cluster, then write the health report.",
        "questions": [
            ("macops_rdma_required", "Require RDMA on every node?", {}),
            ("mlx_smoke_test", "Prove MLX runs over Thunderbolt (all_sum smoke test)?", {}),
            ("ssh_mesh_rotate_keys", "Rotate the nodes' SSH mesh keys?", {}),
            ("report_fail_on", "Fail the job when the health report says", {}),
        ],
    },
    "reboot-cluster": {
        "playbook": "reboot-cluster.yml",
        "name": "Reboot the cluster",
        "description": "reboot-cluster.yml: reboot the Macs (parallel or rolling) and prove they are healthy "
                       "afterwards. Which nodes: the job's limit.",
        "questions": [
            ("reboot_cluster_mode", "Reboot every node at once, or a batch at a time?", {}),
            ("reboot_cluster_batch_size", "Nodes per batch (rolling)", {}),
            ("reboot_cluster_only_if_unhealthy", "Reboot only the nodes that fail the health checks?", {}),
            ("reboot_cluster_timeout", "Seconds to wait for a node to come back", {}),
        ],
    },
    "benchmark": {
        "playbook": "benchmark.yml",
        "name": "Benchmark the cluster",
        "description": "benchmark.yml: measure every Thunderbolt cable and the MLX and exo suites asked for, "
                       "against the baselines.",
        "questions": [
            ("benchmark_suites", "Suites to run", {}),
            ("benchmark_links_seconds", "Seconds each cable test measures", {}),
            ("benchmark_links_repeats", "Tests per cable", {}),
            ("benchmark_links_streams", "Parallel TCP streams per test", {}),
            ("benchmark_expected_cable", "Cables the cluster is built for", {}),
            ("benchmark_exo_model", "Model for exo's own benchmark (empty skips the exo suite)", {}),
            ("benchmark_fail_on", "Fail the job on problems of severity", {}),
        ],
    },
    "deploy-model": {
        "playbook": "deploy-model.yml",
        "name": "Deploy a model",
        "description": "deploy-model.yml: place a model across the cluster and give each node exactly its files, "
                       "over the Thunderbolt cables.",
        "questions": [
            ("deploy_model_state", "Deploy the model, or remove it from every node (absent)?", {}),
            ("deploy_model_source_host", "Node that holds the model (inventory name)", {"required": True}),
            ("deploy_model_source", "Model directory on that node", {}),
            ("deploy_model_hub_id", "Or: Hugging Face id to download there first (org/name)", {}),
            ("deploy_model_name", "Directory name on the nodes (empty: the source's)", {}),
            ("deploy_model_runtime", "Runtime that will run the model", {}),
            ("deploy_model_mode", "Split the layers (pipeline) or every layer (tensor)?", {}),
            ("deploy_model_split", "Layer split (mlx-lm pipeline)", {}),
            ("deploy_model_smallest_fit", "Place on the fewest nodes that fit?", {}),
        ],
    },
    "serve-model": {
        "playbook": "serve-model.yml",
        "name": "Serve a model",
        "description": "serve-model.yml: serve a deployed model behind one OpenAI-compatible endpoint, each rank "
                       "under its node's LaunchDaemon, and prove it answers a completion.",
        "questions": [
            ("serve_state", "Start, stop or restart serving?", {}),
            ("serve_model_name", "Deployed model to serve (empty: the one deployed last)", {}),
            ("serve_backend", "MLX backend between the ranks", {}),
            ("serve_ready_timeout", "Seconds the model gets to answer its first completion", {}),
            ("serve_restart_limit", "Failed generations in a row before serving stops and says so", {}),
        ],
    },
    "update-macos": {
        "playbook": "update-macos.yml",
        "name": "Update macOS",
        "description": "update-macos.yml: one macOS build on every node over SSH, a canary first; the owner's "
                       "password comes from a credential, never from the survey.",
        "questions": [
            ("macos_update_version", "macOS version to install (empty: the newest minor update offered)", {}),
            ("macos_update_strategy", "Canary then the rest, one at a time, or all at once?", {}),
            ("macos_update_canary", "Node to update first (empty: the first)", {}),
            ("macos_update_deadline", "Seconds before a node that has not restarted is restarted", {}),
        ],
    },
    "doctor": {
        "playbook": "doctor.yml",
        "name": "Check the cluster's health",
        "description": "doctor.yml: a read-only sweep of every node and cable; hands AWX the counts as the "
                       "artifact doctor (healthy, errors, warnings, codes).",
        "questions": [
            ("doctor_fail_on", "Fail the job on", {}),
            ("doctor_check_updates", "Ask for pending macOS updates (needs the internet)?", {}),
            ("doctor_check_ssh", "Check SSH from every node to every other?", {}),
            ("doctor_mlx_smoke", "Also run MLX's all_sum smoke over the ring?", {}),
            ("doctor_node_timeout", "Seconds each node's sweep may take", {}),
        ],
    },
    "support-bundle": {
        "playbook": "support-bundle.yml",
        "name": "Collect a support bundle",
        "description": "support-bundle.yml: what every node printed, its state files and logs and the last reports in "
                       "one redacted archive (artifacts/support) to hand a failure over.",
        "questions": [
            ("support_bundle_redact_names", "Also replace node names, addresses and the SSH user?", {}),
            ("support_bundle_updates", "Also ask softwareupdate for pending updates (needs the internet)?", {}),
            ("support_bundle_tail_kib", "KiB kept from the end of each log", {}),
        ],
    },
}

# Ansible's documentation markup (C(), O(), V(), M(), P(name#type), L(text,url), ...) as plain text.
_MARKUP = re.compile(r"\b(?:[A-Z]|RV)\(([^()]*)\)")


def plain(text):
    def one(match):
        inner = match.group(1)
        return inner.split("#", 1)[0].split(",", 1)[0] if match.group(0)[0] in "PL" else inner
    return _MARKUP.sub(one, text)


def load_yaml(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


def first_check(playbook):
    """What the playbook's input check checks: {name, roles} (each role's main entry point).

    The root shim (site.yml) imports playbooks/<name>.yml; that file's first play must be the import of
    check_inputs.yml (the collection's one input check, its roles in check_inputs_roles), or this raises (a
    playbook that does not check its inputs first is exactly what the surveys must not be attached to).
    """
    shim = load_yaml(os.path.join(ROOT, playbook))
    target = shim[0]["ansible.builtin.import_playbook"]
    plays = load_yaml(os.path.join(ROOT, "playbooks", target.rsplit(".", 1)[-1] + ".yml"))
    first = plays[0]
    if first.get("ansible.builtin.import_playbook") != "check_inputs.yml":
        raise SystemExit("%s: the first play (%s) is not the import of check_inputs.yml" % (playbook, first.get("name")))
    check = load_yaml(os.path.join(ROOT, "playbooks", "check_inputs.yml"))[0]["tasks"][0]
    roles = (first.get("vars") or {}).get("check_inputs_roles")
    if not isinstance(roles, list):
        raise SystemExit("%s: check_inputs_roles (%r) is not a list this script can read" % (playbook, roles))
    return {"name": check["name"], "roles": roles}


def load_specs():
    from ansible_collections.macops.cluster.plugins.plugin_utils import _inputs
    return _inputs.load_specs(ROLES_DIR)


def options_checked(specs, check):
    """{variable: spec} of every option the first task checks."""
    from ansible_collections.macops.cluster.plugins.plugin_utils import _inputs
    options = {}
    for role in check["roles"]:
        options.update(_inputs.role_options(specs, role, "main"))
    return options


def plain_defaults(roles):
    """The roles' defaults/main.yml values that need no template (a templated one needs a play)."""
    values = {}
    for role in roles:
        path = os.path.join(ROLES_DIR, role, "defaults", "main.yml")
        if os.path.exists(path):
            for name, value in (load_yaml(path) or {}).items():
                if "{{" not in json.dumps(value):
                    values[name] = value
    return values


def refusals(specs, check, answers, macs=None):
    """The collection's problems for these answers (extra vars), beside the roles' plain defaults."""
    from ansible_collections.macops.cluster.plugins.plugin_utils import _input_rule_base, _inputs
    macs = list(macs or PROBE_MACS)
    values = plain_defaults(check["roles"])
    values.update(answers)
    management = dict((host, "192.0.2.%d" % (10 + index)) for index, host in enumerate(macs, 1))
    context = _input_rule_base.Context(macs[0], macs, management)
    return _inputs.validate(specs, check["roles"], values, context)


def accepted(specs, check, variable, value):
    return not any(p["details"].get("variable") == variable for p in refusals(specs, check, {variable: value}))


def bounds(specs, check, variable, default):
    """(min, max) the validator enforces for an integer option, each None where it sets none."""
    found = []
    for far, inside in ((-_FAR, default), (_FAR, default)):
        if accepted(specs, check, variable, far):
            found.append(None)
            continue
        # Bisect between a refused value and the accepted default: the rules are "at least" and
        # "at most", so acceptance changes once on each side.
        refused, good = far, inside
        while abs(refused - good) > 1:
            middle = (refused + good) // 2
            if accepted(specs, check, variable, middle):
                good = middle
            else:
                refused = middle
        found.append(good)
    return tuple(found)


def question(specs, check, variable, title, required=False):
    options = options_checked(specs, check)
    if variable not in options:
        raise SystemExit("%s is not an option the first task of %s checks" % (variable, check["name"]))
    spec = options[variable] or {}
    kind, default = spec.get("type", "str"), spec.get("default")
    description = spec.get("description") or ""
    entry = {"question_name": title,
             "question_description": plain(" ".join(description if isinstance(description, list) else [description])),
             "required": required, "variable": variable}
    if kind == "bool":
        entry.update(type="multiplechoice", choices=["true", "false"], default="true" if default else "false")
    elif kind in ("str", "path") and spec.get("choices"):
        entry.update(type="multiplechoice", choices=[str(c) for c in spec["choices"]], default=str(default))
    elif kind in ("str", "path"):
        entry.update(type="text", default=default or "")
        if required:
            # AWX's "required" only wants the key: an empty answer is kept out by a minimum length.
            entry["min"] = 1
    elif kind == "int":
        low, high = bounds(specs, check, variable, default)
        entry.update(type="integer", default=default)
        entry.update(dict((key, value) for key, value in (("min", low), ("max", high)) if value is not None))
    elif kind == "float":
        # AWX takes only whole numbers as bounds: a float question has none here.
        entry.update(type="float", default=float(default))
    elif kind == "list" and spec.get("choices") and spec.get("elements", "str") == "str":
        # AWX stores a multiselect default as one string, one choice per line.
        entry.update(type="multiselect", choices=[str(c) for c in spec["choices"]],
                     default="\n".join(str(c) for c in default or []))
    else:
        raise SystemExit("%s (%s) has no AWX question type" % (variable, kind))
    order = ("question_name", "question_description", "required", "type", "variable", "min", "max", "default",
             "choices")
    return dict((key, entry[key]) for key in order if key in entry)


def survey(name, specs=None):
    specs = specs or load_specs()
    definition = SURVEYS[name]
    check = first_check(definition["playbook"])
    return {"name": definition["name"], "description": definition["description"],
            "spec": [question(specs, check, variable, title, **options)
                     for variable, title, options in definition["questions"]]}


def render(data):
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a shipped survey differs")
    args = parser.parse_args()
    specs = load_specs()
    stale = []
    for name in sorted(SURVEYS):
        path = os.path.join(SURVEY_DIR, name + ".json")
        text = render(survey(name, specs))
        current = open(path).read() if os.path.exists(path) else None
        if current == text:
            continue
        if args.check:
            stale.append(path)
        else:
            os.makedirs(SURVEY_DIR, exist_ok=True)
            with open(path, "w") as handle:
                handle.write(text)
            print("wrote %s" % os.path.relpath(path, ROOT))
    if stale:
        print("stale (run scripts/awx_surveys.py): %s" % ", ".join(os.path.relpath(p, ROOT) for p in stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
