"""macops.cluster.validate_inputs as the play every operation playbook starts with runs it
(playbooks/check_inputs.yml): with none of the roles it checks, so none of their defaults. A rule that hangs on a plain
default (firewall_state: present) must still apply, or bad input would pass the up-front check."""
from unittest.mock import MagicMock

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar

from ansible_collections.macops.cluster.plugins.action.validate_inputs import ActionModule, _templated


def run(task_vars, **args):
    task = MagicMock()
    task.args = dict({"roles": ["macops", "firewall"], "unknown_variables": False}, **args)
    task.async_val = 0
    task.check_mode = False
    task.diff = False
    loader = DataLoader()
    templar = Templar(loader=loader, variables=task_vars)
    action = ActionModule(task, MagicMock(), MagicMock(), loader=loader, templar=templar, shared_loader_obj=None)
    return action.run(task_vars=dict(task_vars))


def base_vars(**extra):
    return dict({"inventory_hostname": "mac1", "groups": {"macs": ["mac1"]},
                 "hostvars": {"mac1": {"ansible_host": "198.18.0.11"}}}, **extra)


def test_a_rule_on_a_role_default_applies_before_the_role_brings_it():
    result = run(base_vars(firewall_extra_allowed_networks=["lan"]))
    assert result.get("failed") is True, result
    assert [p["details"]["variable"] for p in result["problems"]] == ["firewall_extra_allowed_networks"]
    assert "'lan' is not an IPv4 address or network" in result["msg"]
    # The plain default took part; a good value passes.
    ok = run(base_vars(firewall_extra_allowed_networks=["198.18.5.0/24"]))
    assert ok.get("failed") is not True and "firewall_state" in ok["checked"], ok


def test_only_plain_defaults_stand_in_for_unset_variables():
    assert not _templated("present") and not _templated([52414, 52415]) and not _templated({"a": [1]})
    assert _templated("{{ ansible_user | default('') }}") and _templated({"k": ["x", "{% if a %}b{% endif %}"]})
