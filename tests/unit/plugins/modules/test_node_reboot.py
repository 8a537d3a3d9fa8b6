"""The documentation of macops.cluster.node_reboot (plugins/modules/node_reboot.py; the action plugin beside it is
ansible.builtin.reboot with a steady poll and the launchd jobs stopped first): it documents exactly the options the
action takes, the builtin's with the builtin's own defaults, and its examples use only them."""
from ansible.plugins.action.reboot import ActionModule as RebootAction

from module_docs import action, documentation, example_arguments

BUILTIN_DEFAULTS = {"boot_time_command": "DEFAULT_BOOT_TIME_COMMAND", "test_command": "DEFAULT_TEST_COMMAND",
                    "reboot_timeout": "DEFAULT_REBOOT_TIMEOUT", "pre_reboot_delay": "DEFAULT_PRE_REBOOT_DELAY",
                    "post_reboot_delay": "DEFAULT_POST_REBOOT_DELAY", "msg": "DEFAULT_REBOOT_MESSAGE",
                    "connect_timeout": "DEFAULT_CONNECT_TIMEOUT"}


def test_the_documented_options_are_the_builtin_s_and_the_action_s_own():
    options = documentation("node_reboot")[0]["options"]
    plugin = action("node_reboot")
    assert sorted(options) == sorted(plugin.ActionModule._VALID_ARGS)
    assert set(RebootAction._VALID_ARGS) < set(options)
    for option, constant in BUILTIN_DEFAULTS.items():
        assert options[option].get("default") == getattr(RebootAction, constant), option
    assert options["poll_interval"]["default"] == plugin.DEFAULT_POLL_INTERVAL == plugin.poll_interval(None)
    assert options["poll_interval"]["type"] == "float" and options["stop_labels"]["type"] == "list"


def test_the_examples_use_only_documented_options():
    options = documentation("node_reboot")[0]["options"]
    examples = example_arguments("node_reboot")
    assert examples and all(set(arguments or {}) <= set(options) for arguments in examples)
