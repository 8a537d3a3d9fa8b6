"""No secret reaches a log: every option of a role's argument spec or a module whose name or
description says it holds a password, token or secret (and a power hook's headers and body) is
no_log, and every task that puts such a value (or a variable or template made from one) into its
arguments is no_log too."""
import glob
import json
import os
import re

import pytest
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SECRET_WORDS = re.compile(r"(?:\b|_)(?:passwords?|passphrases?|tokens?|secrets?|credentials?)(?:\b|_)", re.I)
# A hook's request may carry a token anywhere in these.
HOOK_PARTS = ("headers", "body")
# Options whose description mentions a secret word but that hold none, and why.
NOT_SECRET = {
    "sudoers_user": "an account name: the rules let it run commands *without* a password",
    "reboot_cluster_power_hook": "the parts that carry tokens, headers and body, are no_log suboptions",
    "sudoers_commands": "commands that sudo runs without asking for a password",
    "sudoers_extra_commands": "more such commands",
    "node_files.files.content": "a file's text; the tasks that write secrets with it are no_log (checked below)",
    "benchmark_generate_prompt_tokens": "a count of a model's tokens (text pieces), not a credential",
    "benchmark_generate_generation_tokens": "a count of a model's tokens, not a credential",
    "benchmark_exo_pp": "prompt sizes in a model's tokens, not credentials",
    "benchmark_exo_tg": "generation lengths in a model's tokens, not credentials",
    "deploy_model_context_tokens": "a context length in a model's tokens, not a credential",
    "model_shard.context_tokens": "a context length in a model's tokens, not a credential",
    "model_shard.run_id": "a deployment's id, the same on every node and in the report, not a credential",
    "serve_probe_interval": "seconds between two one-token completions, not a credential",
    "serve_max_tokens": "a count of a model's tokens, not a credential",
    "serve_measure_tokens": "a count of a model's tokens, not a credential",
    "serve_prefill_step_size": "a count of a model's tokens per prefill step, not a credential",
    "doctor_serve_timeout": "seconds a one-token completion may take, not a credential",
    "benchmark_serve_max_tokens": "a count of a model's tokens each request may generate, not a credential",
    "macos_update_measure_tokens": "a count of a model's tokens each timed completion asks for, not a credential",
    "serve_timed_tokens": "a count of a model's tokens each timed completion asks for, not a credential",
}


def _description(spec):
    text = spec.get("description") or ""
    return " ".join(text) if isinstance(text, list) else str(text)


def _options(options, path=()):
    """(dotted name, spec, parent name) of every option and suboption, depth first."""
    for name, spec in (options or {}).items():
        spec = spec or {}
        yield ".".join(path + (name,)), spec, path[-1] if path else None
        yield from _options(spec.get("options") or spec.get("suboptions"), path + (name,))


def _is_secret(name, spec, parent):
    leaf = name.rsplit(".", 1)[-1]
    if parent and "hook" in parent and leaf in HOOK_PARTS:
        return True
    return bool(SECRET_WORDS.search(leaf) or SECRET_WORDS.search(_description(spec)))


def role_options():
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml"))):
        role = path.split(os.sep)[-3]
        with open(path) as handle:
            specs = (yaml.safe_load(handle) or {}).get("argument_specs") or {}
        seen = set()
        for entry in specs.values():
            for name, spec, parent in _options(entry.get("options")):
                if name not in seen:
                    seen.add(name)
                    yield role, name, spec, parent


MODULES = sorted(glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py")))


def module_options(path):
    """(name, spec, parent, no_log in the argument_spec) of every documented option of a module; the argument_spec
    of a module that is an action plugin's documentation is in plugins/action/<name>.py."""
    with open(path) as handle:
        source = handle.read()
    doc = re.search(r'^DOCUMENTATION = r?"""(.*?)"""', source, re.S | re.M)
    action = os.path.join(ROOT, "plugins", "action", os.path.basename(path))
    if os.path.exists(action):
        with open(action) as handle:
            source += handle.read()
    options = (yaml.safe_load(doc.group(1)) or {}).get("options") if doc else None
    for name, spec, parent in _options(options):
        leaf = name.rsplit(".", 1)[-1]
        # The argument_spec entry: `leaf=dict(...)` or `"leaf": dict(...)` up to its closing paren.
        entry = re.search(r"""(?:\b%s=|["']%s["']:\s*)dict\(([^()]*(?:\([^()]*\)[^()]*)*)\)""" % (leaf, leaf), source)
        yield name, spec, parent, bool(entry and re.search(r"no_log\s*=\s*True", entry.group(1)))


SECRET_ROLE_OPTIONS = [(role, name) for role, name, spec, parent in role_options()
                       if _is_secret(name, spec, parent) and name not in NOT_SECRET]


def test_the_audit_sees_the_secrets_it_must():
    names = set(name for _, name in SECRET_ROLE_OPTIONS)
    assert {"reboot_cluster_filevault_password", "reboot_cluster_power_hook.headers",
            "reboot_cluster_power_hook.body", "macops_pip_index_url"} <= names, names


@pytest.mark.parametrize("role, name", SECRET_ROLE_OPTIONS)
def test_every_secret_role_option_is_no_log(role, name):
    spec = dict((n, s) for r, n, s, _ in role_options() if r == role)[name]
    assert spec.get("no_log") is True, "%s: %s holds a secret; add no_log: true to its argument spec" % (role, name)


@pytest.mark.parametrize("path", MODULES, ids=[os.path.basename(p)[:-3] for p in MODULES])
def test_every_secret_module_option_is_no_log(path):
    module = os.path.basename(path)[:-3]
    missing = [name for name, spec, parent, no_log in module_options(path)
               if _is_secret(name, spec, parent) and "%s.%s" % (module, name) not in NOT_SECRET and not no_log]
    assert not missing, "%s: options %s hold secrets; give them no_log=True in the argument_spec" % (module, missing)


def test_the_module_audit_reads_argument_specs():
    # node_files documents `content` with the word "secrets" (and is allowed it, see NOT_SECRET);
    # the audit must have found that option, and read that it is not no_log.
    (found,) = [(n, no_log) for n, spec, parent, no_log in module_options(
        os.path.join(ROOT, "plugins", "modules", "node_files.py")) if n == "files.content"]
    assert found == ("files.content", False)


def _secret_patterns():
    """Regexes for the places a secret's value is used: the no_log variables and suboptions, the
    role variables defined from them, and the templates that print them."""
    patterns = []
    for _, name in SECRET_ROLE_OPTIONS:
        if "." in name:
            var, part = name.split(".", 1)
            patterns.append(r"\b%s\s*(?:\[\s*['\"]%s['\"]\s*\]|\.%s\b)" % (var, part, part))
        else:
            patterns.append(r"\b%s\b" % name)
    # A variable or template that interpolates a secret ({{ secret }}) carries it too.
    used = re.compile(r"\{\{[^}]*(?:%s)[^}]*\}\}" % "|".join(patterns))
    for path in glob.glob(os.path.join(ROOT, "roles", "*", "vars", "main.yml")):
        with open(path) as handle:
            for name, value in (yaml.safe_load(handle) or {}).items():
                if isinstance(value, str) and used.search(value) and "length" not in value.split("}}")[0]:
                    patterns.append(r"\b%s\b" % name)
    for path in glob.glob(os.path.join(ROOT, "roles", "*", "templates", "*")):
        with open(path) as handle:
            if used.search(handle.read()):
                patterns.append(re.escape(os.path.basename(path)))
    return re.compile(r"\{\{[^}]*(?:%s)[^}]*\}\}" % "|".join(patterns))


def _tasks(items):
    for task in items or []:
        if not isinstance(task, dict):
            continue
        yield task
        for key in ("block", "rescue", "always"):
            yield from _tasks(task.get(key))


KEYWORDS = {"name", "when", "tags", "register", "become", "vars", "loop", "loop_control", "changed_when",
            "failed_when", "run_once", "delegate_to", "no_log", "check_mode", "args", "environment",
            "ignore_errors", "block", "rescue", "always", "until", "retries", "delay", "notify"}


def test_every_task_that_puts_a_secret_into_its_arguments_is_no_log():
    used = _secret_patterns()
    leaking = []
    checked = 0
    for path in sorted(glob.glob(os.path.join(ROOT, "roles", "*", "tasks", "*.yml"))):
        with open(path) as handle:
            tasks = yaml.safe_load(handle)
        for task in _tasks(tasks):
            # What the module gets: its arguments and the task's vars (conditions print nothing).
            arguments = dict((k, v) for k, v in task.items() if k not in KEYWORDS or k in ("vars", "args"))
            if used.search(json.dumps(arguments, default=str)):
                checked += 1
                if task.get("no_log") is not True and not str(task.get("no_log", "")).strip().startswith("{{"):
                    leaking.append("%s: %s" % (os.path.relpath(path, ROOT), task.get("name")))
    # the FileVault plist, the power hook's request and pip's index file at least
    assert checked >= 3
    assert not leaking, "tasks that put a secret into their arguments without no_log: %s" % leaking
