"""The documentation of macops.cluster.job_progress (plugins/modules/job_progress.py; the action plugin beside it
follows a job on the node and shows its progress lines): the options it documents are exactly the ones the action
accepts, with their types, defaults and choices, and its examples use only them."""
from module_docs import assert_documented_as_accepted


def test_the_documented_options_are_what_the_action_accepts():
    assert_documented_as_accepted("job_progress")
