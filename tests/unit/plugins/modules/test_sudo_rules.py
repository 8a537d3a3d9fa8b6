"""The documentation of macops.cluster.sudo_rules (plugins/modules/sudo_rules.py; the action plugin beside it applies
and audits the node's sudo rules): the options it documents are exactly the ones the action accepts, with their
types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("sudo_rules")
