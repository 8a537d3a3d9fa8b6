"""One PlanError (issue 31): the applied-plan readers, the network planner, the model placer and the
benchmark planner raise the one class of module_utils/_plan_error.py, so a caller catches one name."""
import glob
import os
import re

import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _model_plan, _tb_config_check, _tb_link_plan
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))


def test_plan_error_is_defined_once():
    defined = [os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "plugins", "**", "*.py"),
                                                                  recursive=True)
               if re.search(r"^class PlanError\b", open(path, encoding="utf-8").read(), re.M)]
    assert defined == ["plugins/module_utils/_plan_error.py"]


def test_every_planner_raises_the_one_plan_error():
    with pytest.raises(PlanError, match="no 'hosts' object"):
        _tb_link_plan.plan_ends([])
    with pytest.raises(PlanError, match="plan.json is not a Thunderbolt address plan"):
        _tb_config_check.applied_settings("plan.json", "{", "mac1")
    with pytest.raises(PlanError, match="plan.json is not a Thunderbolt address plan"):
        _tb_link_plan.plan_file_links("plan.json", "{", "mac1")
    with pytest.raises(PlanError) as raised:
        _model_plan.smallest_fit(None, [], "mlx-lm", "0.32.2")
    assert [found["code"] for found in raised.value.problems] == ["shard_no_fit"]


def test_a_plan_error_of_problems_says_them_all():
    found = [problem("shard_no_fit", "First."), problem("shard_no_fit", "Second.")]
    error = PlanError.of_problems(found)
    assert str(error) == "First.; Second." and error.problems == found and isinstance(error, ValueError)
    assert PlanError("plain").problems == []
