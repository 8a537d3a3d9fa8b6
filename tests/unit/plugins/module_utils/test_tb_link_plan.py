"""The cables of one host from the applied plan (plugins/module_utils/_tb_link_plan.py): sorted by device, peers
selected, a file that is no plan refused."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_plan import plan_links, select_peers

PLAN = '{"hosts": {"mac1": {"en4": {"peer_ip": "198.19.0.6", "peer_host": "mac3"}, "en3": {"peer_ip": "198.19.0.2"}}}}'


def test_plan_links_sorted_by_device():
    assert plan_links(PLAN, "mac1") == [{"interface": "en3", "peer_ip": "198.19.0.2", "peer_host": None},
                                        {"interface": "en4", "peer_ip": "198.19.0.6", "peer_host": "mac3"}]
    assert [link["interface"] for link in plan_links(PLAN, "mac1", "bridge0")] == ["bridge0", "bridge0"]
    assert plan_links(PLAN, "mac2") == [] and plan_links("{}", "mac1") == []


def test_select_peers():
    links = plan_links(PLAN, "mac1")
    assert select_peers(links, None) == links
    assert [link["peer_host"] for link in select_peers(links, ["mac3"])] == ["mac3"]


@pytest.mark.parametrize("text, message", [
    ("{", "not JSON"),
    ("[]", "no 'hosts' object"),
    ('{"hosts": []}', "no 'hosts' object"),
    ('{"hosts": {"mac1": []}}', "hosts.mac1 is not an object"),
    ('{"hosts": {"mac1": {"en3": {"peer_host": "mac2"}}}}', "hosts.mac1.en3 has no peer_ip"),
])
def test_plan_links_rejects(text, message):
    with pytest.raises(PlanError, match=message):
        plan_links(text, "mac1")
