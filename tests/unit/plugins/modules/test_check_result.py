"""The documentation of macops.cluster.check_result (plugins/modules/check_result.py; the action plugin beside it
publishes a step's result and fails the host on its problems): the options it documents are exactly the ones the
action accepts, with their types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("check_result")
