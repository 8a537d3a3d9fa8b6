"""Filters the fact-free inventory validation (preflight) and the firewall role rely on."""
import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter import inventory_variable_problems as variables_filter
from ansible_collections.macops.cluster.plugins.filter import ipv4_network as network_filter
from ansible_collections.macops.cluster.plugins.filter import tb_pool_problem as pool_filter

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
    problem = pool_filter.tb_pool_problem(pool, nodes, management)
    if reason:
        assert reason in problem
    else:
        assert problem == ""


def test_unknown_names_get_the_closest_known_name():
    found = variables_filter.inventory_variable_problems(
        {"macops_rdma_requried": True, "macops_zzz": 1, "ansible_host": "x", "macops_topology": {}},
        ROLES, allowed=["macops_topology"])
    assert found == [
        "macops_rdma_requried is not a macops.cluster variable; did you mean macops_rdma_required?",
        "macops_zzz is not a macops.cluster variable; see the roles' meta/argument_specs.yml.",
    ]


@pytest.mark.parametrize("name, value, reason", [
    ("macops_rdma_required", "yes", "macops_rdma_required must be true or false (no quotes) (type bool), got 'yes' (str)."),
    ("macops_rdma_required", 1, "macops_rdma_required must be true or false (no quotes) (type bool), got 1 (int)."),
    ("macops_tb_cabling", "mac1-mac2", "macops_tb_cabling must be a YAML list (type list)"),
    ("macops_venv_path", "opt/venv", "macops_venv_path must be an absolute path, got 'opt/venv'."),
    ("macops_tb_address_pool", 198, "macops_tb_address_pool must be a string (type str), got 198 (int)."),
])
def test_mistyped_values_are_named(name, value, reason):
    found = variables_filter.inventory_variable_problems({name: value}, ROLES)
    assert found == [reason] or reason in found[0]


def test_good_values_pass():
    good = {"macops_rdma_required": False, "macops_tb_cabling": [], "macops_venv_path": "/opt/macops/venv",
            "macops_tb_address_pool": "198.19.0.0/16"}
    assert variables_filter.inventory_variable_problems(good, ROLES) == []


def test_role_prefixes_come_from_role_names(tmpdir):
    write_role(tmpdir, "macops", {"macops_pool": {"type": "str"}})
    write_role(tmpdir, "power", {"power_sleep_minutes": {"type": "int"}})
    found = variables_filter.inventory_variable_problems(
        {"power_sleep_minutes": True, "power_sleep_minute": 0, "other_x": 1, "macops_pool": "p"},
        str(tmpdir))
    assert found == ["power_sleep_minute is not a macops.cluster variable; did you mean power_sleep_minutes?",
                     "power_sleep_minutes must be a number without quotes (type int), got True (bool)."]


def test_a_directory_without_specs_is_an_error(tmpdir):
    with pytest.raises(AnsibleFilterError, match="no meta/argument_specs.yml under"):
        variables_filter.inventory_variable_problems({}, str(tmpdir))


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


@pytest.mark.parametrize("module, name", [(pool_filter, "tb_pool_problem"),
                                          (variables_filter, "inventory_variable_problems"),
                                          (network_filter, "ipv4_network")])
def test_each_file_exposes_its_filter(module, name):
    assert list(module.FilterModule().filters()) == [name]
    assert yaml.safe_load(module.DOCUMENTATION)["name"] == name
