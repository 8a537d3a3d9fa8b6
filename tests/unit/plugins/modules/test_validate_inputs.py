"""The documentation of macops.cluster.validate_inputs (plugins/modules/validate_inputs.py; the action plugin beside it
checks a role's or an operation's inputs before anything connects): the options it documents are exactly the ones
the action accepts, with their types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("validate_inputs")
