"""The documentation of macops.cluster.cluster_report (plugins/modules/cluster_report.py; the action plugin beside it
writes the one report and decides the run's verdict): the options it documents are exactly the ones the action
accepts, with their types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("cluster_report")
