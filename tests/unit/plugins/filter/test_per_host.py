"""macops.cluster.per_host: one variable of each host, by inventory name, or an error naming the host."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.per_host import FilterModule, per_host

HOSTVARS = {
    "mac1": {"__doctor_sweep": {"rc": 0}, "macops_python_env": {"version": "3.12.8"}, "items": ["a", "b"]},
    "mac2": {"__doctor_sweep": {"rc": 1}, "macops_python_env": {"version": "3.12.9"}, "items": ["c"]},
    "mac3": {"macops_python_env": {}},
}


def test_each_host_maps_to_its_variable_in_the_order_given():
    found = per_host(["mac2", "mac1"], HOSTVARS, "__doctor_sweep")
    assert found == {"mac2": {"rc": 1}, "mac1": {"rc": 0}} and list(found) == ["mac2", "mac1"]


def test_a_path_of_keys_reaches_inside_the_variable_as_extract_does():
    assert per_host(["mac1", "mac2"], HOSTVARS, ["macops_python_env", "version"]) == {"mac1": "3.12.8",
                                                                                      "mac2": "3.12.9"}
    assert per_host(["mac1"], HOSTVARS, ("items", 1)) == {"mac1": "b"}
    assert per_host([], HOSTVARS, "anything") == {}


@pytest.mark.parametrize("hosts, key, message", [
    (["mac1", "mac3"], "__doctor_sweep", "per_host: mac3 has no __doctor_sweep"),
    (["mac3"], ["macops_python_env", "version"], "per_host: mac3 has no macops_python_env.version"),
    (["mac2"], ["items", 4], "per_host: mac2 has no items.4"),
    (["mac1"], ["__doctor_sweep", "rc", "deeper"], "per_host: mac1 has no __doctor_sweep.rc.deeper"),
    (["mac1"], [], "per_host: the key is empty"),
])
def test_a_host_without_the_variable_is_an_error_naming_host_and_path(hosts, key, message):
    with pytest.raises(AnsibleFilterError, match=message.replace(".", r"\.")):
        per_host(hosts, HOSTVARS, key)


def test_the_filter_is_registered_under_its_name():
    assert FilterModule().filters() == {"per_host": per_host}
