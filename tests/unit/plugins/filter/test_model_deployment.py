"""macops.cluster.model_deployment as a filter: a plan it cannot read is an error a person can read (the
deployment itself: plugin_utils/test_model_deployment.py)."""

import pytest

from ansible_collections.macops.cluster.plugins.filter.model_deployment import FilterModule as Deployment

from deployment_fixture import DEST, SOURCE, applied, empty_inventories, placement, volumes

deployment = Deployment().filters()["model_deployment"]


def test_a_plan_without_the_cables_is_an_error_a_person_can_read():
    from ansible.errors import AnsibleFilterError
    plan = placement()
    broken = applied()
    broken["mac2"]["en2"] = {"link_id": "L1"}
    with pytest.raises(AnsibleFilterError, match="model_deployment"):
        deployment(plan, "mac1", SOURCE, DEST, empty_inventories(plan), volumes(), broken, 0, "/")
