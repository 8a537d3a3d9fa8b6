"""The documentation of macops.cluster.node_python (plugins/modules/node_python.py; the action plugin beside it finds
the node's system Python and judges it): the options it documents are exactly the ones the action accepts, with
their types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("node_python")
