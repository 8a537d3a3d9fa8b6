"""A job as AWX runs it, through `ansible_runner.run`: a private data directory laid out as AWX lays it out
(env/extravars with survey answers as strings, env/passwords answering the become prompt of a machine credential,
env/ssh_key through ssh-agent, env/envvars, env/cmdline, inventory/ from the lab's without its secrets, project/),
and the job's artifacts as AWX keeps them. Used by the site lane (tests/e2e/site/test_site_runner.py) and the
serving lane (update-macos.yml as a job, tests/e2e/serve/test_serve.py)."""
import os
import shutil

import yaml

import ansible_runner

from labtools import INVENTORY, REPO, VENV_BIN

# The prompt a machine credential's become password answers (AWX passes --ask-become-pass).
BECOME_PROMPT = r"^BECOME password.*:\s*?$"


def _awx_inventory(source_dir, target_dir):
    """The lab's inventory as an AWX inventory source gives it: the hosts and group_vars, without
    the connection secrets, which AWX takes from the machine credential (key and become password)."""
    shutil.copytree(os.path.join(source_dir, "group_vars"), os.path.join(target_dir, "group_vars"))
    secrets = {}
    # The volume owner's password comes from a credential too (its injector sets the extra var).
    group_vars = os.path.join(target_dir, "group_vars", "macs", "lab.yml")
    with open(group_vars) as handle:
        lab_vars = yaml.safe_load(handle)
    secrets["macos_update_owner_password"] = lab_vars.pop("macos_update_owner_password")
    with open(group_vars, "w") as handle:
        yaml.safe_dump(lab_vars, handle, default_flow_style=False)
    with open(os.path.join(source_dir, "hosts.yml")) as handle:
        inventory = yaml.safe_load(handle)
    path = os.path.join(target_dir, "hosts.yml")
    for group in inventory.get("all", {}).get("children", {}).values():
        variables = group.get("vars") or {}
        for key in ("ansible_ssh_private_key_file", "ansible_become_password"):
            if key in variables:
                secrets[key] = variables.pop(key)
        # The lab pins its key file (IdentitiesOnly); AWX offers the credential's key through
        # ssh-agent, which IdentitiesOnly would refuse to use.
        if "ansible_ssh_common_args" in variables:
            variables["ansible_ssh_common_args"] = variables["ansible_ssh_common_args"].replace(
                "-o IdentitiesOnly=yes", "").strip()
    with open(path, "w") as handle:
        yaml.safe_dump(inventory, handle, default_flow_style=False)
    return secrets


def _resolved_password(expression):
    """The lab's become password: its inventory reads it from a file (a lookup kept out of the file)."""
    path = expression.split("'")[-2] if "lookup(" in expression else None
    with open(path) as handle:
        return handle.read().strip()


def awx_job_dir(root, playbooks):
    """A private data directory as AWX lays it out for a job of the lab's project: the project is the repository's
    root `playbooks` (each imports the collection's playbook; AWX cannot pick a playbook from inside a collection),
    as a project sync checks them out."""
    os.makedirs(os.path.join(root, "project"))
    for name in playbooks:
        shutil.copy(os.path.join(REPO, name), os.path.join(root, "project", name))
    secrets = _awx_inventory(os.path.dirname(INVENTORY), os.path.join(root, "inventory"))
    assert set(secrets) == {"ansible_ssh_private_key_file", "ansible_become_password",
                            "macos_update_owner_password"}, secrets
    password = _resolved_password(secrets["ansible_become_password"])
    os.makedirs(os.path.join(root, "env"))
    with open(secrets["ansible_ssh_private_key_file"]) as handle:
        key = handle.read()
    files = {
        "ssh_key": key,
        "passwords": {BECOME_PROMPT: password},
        "cmdline": "--ask-become-pass",
        # The execution environment has the collection installed; here it is this working tree.
        "envvars": {"ANSIBLE_COLLECTIONS_PATH": os.path.join(REPO, "collections"),
                    "ANSIBLE_HOST_KEY_CHECKING": "True", "ANSIBLE_GATHERING": "explicit",
                    "ANSIBLE_CALLBACK_RESULT_FORMAT": "yaml",
                    "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")},
        "settings": {"job_timeout": 900, "pexpect_timeout": 10},
    }
    for name, content in files.items():
        with open(os.path.join(root, "env", name), "w") as handle:
            handle.write(content if isinstance(content, str) else yaml.safe_dump(content))
    return {"dir": root, "password": password}


def run_job(job_dir, extravars, **kwargs):
    """One job, as AWX launches it: survey answers arrive as extra vars (strings for text answers)."""
    with open(os.path.join(job_dir["dir"], "env", "extravars"), "w") as handle:
        yaml.safe_dump(extravars, handle)
    return ansible_runner.run(private_data_dir=job_dir["dir"], quiet=True, **kwargs)


def artifacts_text(runner):
    """Everything the job left in its artifact directory (stdout, events, status), as AWX keeps it."""
    texts = []
    for base, _, names in os.walk(runner.config.artifact_dir):
        for name in names:
            with open(os.path.join(base, name), errors="replace") as handle:
                texts.append(handle.read())
    return "\n".join(texts)
