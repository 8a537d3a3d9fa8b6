"""What the fact-free first step relies on beside the validator: the address pool check, spec loading,
role prefixes, and the ipv4_network filter the firewall role uses."""
import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter import ipv4_network as network_filter
from ansible_collections.macops.cluster.plugins.plugin_utils import _inputs
from ansible_collections.macops.cluster.plugins.plugin_utils._tb_addressing import pool_problem

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
ROLES = os.path.join(ROOT, "roles")


def write_role(roles_dir, role, options):
    meta = roles_dir.join(role).ensure("meta", dir=True)
    meta.join("argument_specs.yml").write(yaml.safe_dump({"argument_specs": {"main": {"options": options}}}))


@pytest.mark.parametrize("pool, nodes, management, reason", [
    ("198.19.0.0/16", 16, ["198.18.0.11"], ""),
    ("198.19.0.0/27", 4, [], ""),  # 8 subnets for 6 cables
    ("198.19.0.0/28", 4, [], "198.19.0.0/28 holds 4 /30 subnets, a full mesh of 4 Macs has 6 cables"),
    ("198.19.0.0/25", 16, [], "198.19.0.0/25 holds 32 /30 subnets, a full mesh of 16 Macs has 120 cables"),
    ("198.19.0.1/24", 2, [], "has host bits set"),
    ("not-a-network", 2, [], "is not a valid IPv4 network"),
    ("198.19.0.0/31", 2, [], "too small: one cable needs a /30"),
    ("198.18.0.0/16", 4, ["198.18.0.11", "mac2.local"], "198.18.0.0/16 contains the management address(es) 198.18.0.11"),
    ("198.19.0.0/30", 1, [], ""),
])
def test_tb_pool_problem(pool, nodes, management, reason):
    problem = pool_problem(pool, nodes, management)
    if reason:
        assert reason in problem
    else:
        assert problem == ""


def test_role_prefixes_come_from_role_names(tmpdir):
    write_role(tmpdir, "macops", {"macops_pool": {"type": "str"}})
    write_role(tmpdir, "power", {"power_sleep_minutes": {"type": "int"}})
    specs = _inputs.load_specs(str(tmpdir))
    found = _inputs.unknown_variables(["power_sleep_minutes", "power_sleep_minute", "other_x", "macops_pool",
                                       "macops_zzz"], specs)
    assert [p["message"] for p in found] == [
        "macops_zzz is not a macops.cluster variable.",
        "power_sleep_minute is not a macops.cluster variable. Did you mean power_sleep_minutes?"]


def test_a_directory_without_specs_is_an_error(tmpdir):
    with pytest.raises(_inputs.InputSpecError, match="no meta/argument_specs.yml under"):
        _inputs.load_specs(str(tmpdir))


def test_an_unknown_role_or_entry_point_is_an_error():
    specs = _inputs.load_specs(ROLES)
    with pytest.raises(_inputs.InputSpecError, match="has no role 'nosuch'"):
        _inputs.role_options(specs, "nosuch")
    with pytest.raises(_inputs.InputSpecError, match="no entry point 'nosuch'"):
        _inputs.role_options(specs, "firewall", "nosuch")


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
