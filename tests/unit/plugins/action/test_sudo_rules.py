"""macops.cluster.sudo_rules: one `sudo -n -l` over the bare connection, audited on the
controller; the action is run here with a fake connection answer."""
from unittest.mock import MagicMock

from ansible_collections.macops.cluster.plugins.action.sudo_rules import LIST, ActionModule

SAFE = """User admin may run the following commands on mac1:
    (root) NOPASSWD: /sbin/shutdown -r now
"""
BROAD = SAFE + "    (root) NOPASSWD: /bin/launchctl\n"


def run(answer, applied=None, check_mode=False, **args):
    task = MagicMock()
    task.args = dict(args)
    task.async_val = 0
    task.check_mode = check_mode
    task.diff = False
    action = ActionModule(task, MagicMock(), MagicMock(), loader=None, templar=None, shared_loader_obj=None)
    commands = []

    def execute(cmd, sudoable=True, **kwargs):
        commands.append((cmd, sudoable))
        return answer

    def module(module_name, module_args, task_vars):
        commands.append((module_name, module_args))
        return dict(applied or {})

    action._low_level_execute_command = execute
    action._execute_module = module
    return action.run(task_vars={"inventory_hostname": "mac1"}), commands


def test_the_listing_is_read_once_without_become_and_a_safe_one_passes():
    result, commands = run({"rc": 0, "stdout": SAFE, "stderr": ""}, expected=["/sbin/shutdown -r now"])
    assert commands == [(LIST, False)]
    assert result.get("failed") is not True and result["problems"] == []


def test_a_broad_rule_fails_naming_it():
    result, _ = run({"rc": 0, "stdout": BROAD, "stderr": ""}, expected=["/sbin/shutdown -r now"])
    assert result["failed"] is True and [p["code"] for p in result["problems"]] == ["sudo_rule_unsafe"]
    assert result["msg"].startswith("sudoers: [sudo_rule_unsafe]") and "/bin/launchctl" in result["msg"]
    accepted, _ = run({"rc": 0, "stdout": BROAD, "stderr": ""}, expected=["/sbin/shutdown -r now"],
                      accepted=["/bin/launchctl"])
    assert accepted.get("failed") is not True
    assert [p["code"] for p in accepted["problems"]] == ["sudo_rule_unsafe_accepted"]


def test_rules_not_in_force_are_named():
    result, _ = run({"rc": 1, "stdout": "", "stderr": "sudo: a password is required\n"}, expected=["/sbin/shutdown -r now"])
    assert result["failed"] is True and [p["code"] for p in result["problems"]] == ["sudo_rules_inactive"]


RULES = {"name": "macops", "user": "admin", "commands": ["/sbin/shutdown -r now"], "state": "present"}


def test_the_rules_are_applied_first_then_listed():
    result, commands = run({"rc": 0, "stdout": SAFE, "stderr": ""}, applied={"changed": True, "diff": {"after": "x"}},
                           sudoers=RULES, expected=["/sbin/shutdown -r now"])
    assert commands == [("community.general.sudoers", RULES), (LIST, False)]
    assert result["changed"] is True and result["diff"] == {"after": "x"} and result["problems"] == []


def test_check_mode_lists_nothing_the_run_only_predicted():
    result, commands = run({"rc": 1, "stdout": "", "stderr": "sudo: a password is required\n"},
                           applied={"changed": True}, check_mode=True, sudoers=RULES, expected=["/sbin/shutdown -r now"])
    assert commands == [("community.general.sudoers", RULES)] and result.get("failed") is not True
    # unchanged rules are in force: check mode audits them too
    result, commands = run({"rc": 0, "stdout": BROAD, "stderr": ""}, applied={"changed": False}, check_mode=True,
                           sudoers=RULES, expected=["/sbin/shutdown -r now"])
    assert result["failed"] is True and commands[-1] == (LIST, False)


def test_a_failing_apply_stops_before_the_listing():
    result, commands = run({"rc": 0, "stdout": SAFE, "stderr": ""}, applied={"failed": True, "msg": "visudo: syntax error"},
                           sudoers=RULES)
    assert result["failed"] is True and "visudo: syntax error" in result["msg"] and len(commands) == 1
