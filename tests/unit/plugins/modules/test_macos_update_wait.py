"""The documentation of macops.cluster.macos_update_wait (plugins/modules/macos_update_wait.py; the action plugin
beside it waits for a node's macOS install and restart): the options it documents are exactly the ones the action
accepts, with their types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("macos_update_wait")
