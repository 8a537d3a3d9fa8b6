"""macops.cluster.ipv4_network, the filter the firewall role uses: an address's network at a prefix; a name is
refused."""

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter import ipv4_network as network_filter


@pytest.mark.parametrize("address, prefix, network", [
    ("198.18.0.11", 24, "198.18.0.0/24"),
    ("198.18.0.11", 32, "198.18.0.11/32"),
    ("198.19.0.4/30", 24, "198.19.0.4/30"),
])
def test_ipv4_network(address, prefix, network):
    assert network_filter.ipv4_network(address, prefix) == network


def test_ipv4_network_rejects_names():
    with pytest.raises(AnsibleFilterError, match="'mac1.local' is not an IPv4 address"):
        network_filter.ipv4_network("mac1.local", 24)


@pytest.mark.parametrize("module, name", [(network_filter, "ipv4_network")])
def test_each_file_exposes_its_filter(module, name):
    assert list(module.FilterModule().filters()) == [name]
    assert yaml.safe_load(module.DOCUMENTATION)["name"] == name
