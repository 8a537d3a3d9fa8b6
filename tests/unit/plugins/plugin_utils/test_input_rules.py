"""The rules an argument spec cannot say (plugins/plugin_utils/_input_rules.py), one role at a time,
over values the spec already accepted."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils import _input_rules as rules
from ansible_collections.macops.cluster.plugins.plugin_utils._input_rule_base import Context, Params

from rule_run import MACS, MANAGEMENT, run, variables


@pytest.mark.parametrize("pool, reason", [
    ("198.19.0.0/16", None),
    ("198.19.0.0/28", "holds 4 /30 subnets, a full mesh of 4 Macs has 6 cables"),
    ("198.18.0.0/16", "contains the management address(es) 198.18.0.11"),
    ("198.19.0.1/24", "host bits"),
    ("not-a-network", "is not a valid IPv4 network"),
])
def test_the_address_pool_holds_every_cable_and_no_management_address(pool, reason):
    found = run(rules.macops, {"macops_tb_address_pool": pool})
    if reason is None:
        assert found == []
    else:
        assert variables(found) == ["macops_tb_address_pool"] and reason in found[0][2]


def test_mlx_versions_must_be_exact_pins():
    assert run(rules.macops, {"macops_mlx_package_spec": "mlx==0.32.4", "macops_mlx_lm_package_spec": "mlx-lm===0.32.2"}) == []
    found = run(rules.macops, {"macops_mlx_package_spec": "mlx>=0.30", "macops_mlx_lm_package_spec": "mlx-lm"})
    assert variables(found) == ["macops_mlx_package_spec", "macops_mlx_lm_package_spec"]


def test_the_inventory_needs_macs_with_their_own_management_addresses():
    assert run(rules.preflight, {"preflight_max_nodes": 16}) == []
    assert [c for c, _, _ in run(rules.preflight, {"preflight_max_nodes": 3})] == ["input_inventory"]
    shared = run(rules.preflight, {}, management=dict(MANAGEMENT, mac4="198.18.0.11"))
    assert shared[0][0] == "input_inventory" and "mac1, mac4 share the management address(es) 198.18.0.11" in shared[0][2]
    assert run(rules.preflight, {}, macs=[], management={})[0][0] == "input_inventory"


def test_firewall_ports_ranges_and_networks_only_when_present():
    good = {"firewall_state": "present", "firewall_exo_tcp_ports": [52415], "firewall_exo_udp_ports": [52413],
            "firewall_mlx_first_port": 32323, "firewall_mlx_port_count": 64,
            "firewall_management_networks": ["198.18.0.0/24"], "firewall_extra_allowed_networks": [],
            "firewall_launchd_label": "org.macops.pf"}
    assert run(rules.firewall, good) == []
    bad = dict(good, firewall_exo_tcp_ports=[0], firewall_mlx_first_port=65500,
               firewall_management_networks=["198.18.0.0/33", "lan"])
    assert variables(run(rules.firewall, bad)) == [
        "firewall_exo_tcp_ports", "firewall_mlx_first_port", "firewall_management_networks",
        "firewall_management_networks"]
    # absent removes the rules: ports and networks no longer matter, the label still does
    assert run(rules.firewall, dict(bad, firewall_state="absent")) == []
    assert variables(run(rules.firewall, dict(bad, firewall_state="absent", firewall_launchd_label="bad label"))) == [
        "firewall_launchd_label"]


def test_one_mtu_on_every_mac_within_macos_range():
    same = lambda name: dict((host, 1500) for host in MACS)  # noqa: E731
    assert run(rules.thunderbolt_network, {"thunderbolt_network_mtu": 1500}, values_on=same) == []
    odd = lambda name: dict(same(name), mac3="9000")  # noqa: E731
    found = run(rules.thunderbolt_network, {"thunderbolt_network_mtu": 1500}, values_on=odd)
    assert variables(found) == ["thunderbolt_network_mtu"] and "mac3 has 9000" in found[0][2]
    low = lambda name: dict((host, 600) for host in MACS)  # noqa: E731
    assert variables(run(rules.thunderbolt_network, {"thunderbolt_network_mtu": 600}, values_on=low)) == [
        "thunderbolt_network_mtu"]


def test_one_mlx_pin_for_the_whole_group():
    pins = {"macops_mlx_package_spec": "mlx==0.32.4", "macops_mlx_lm_package_spec": "mlx-lm==0.32.2"}
    same = lambda name: dict((host, pins[name]) for host in MACS)  # noqa: E731
    assert run(rules.macops, pins, values_on=same) == []
    odd = lambda name: dict(same(name), mac3="mlx-lm==0.31.0") if name == "macops_mlx_lm_package_spec" else same(name)  # noqa: E731
    found = run(rules.macops, pins, values_on=odd)
    assert variables(found) == ["macops_mlx_lm_package_spec"] and "mac3 has mlx-lm==0.31.0" in found[0][2]
    assert "group_vars" in rules.macops(Params(pins), Context("mac1", MACS, MANAGEMENT, values_on=odd))[0]["fix"]


def test_bridge_keep_only_for_two_macs_without_rdma():
    assert run(rules.thunderbolt_network, {"thunderbolt_network_bridge_mode": "keep", "macops_rdma_required": False},
               macs=["mac1", "mac2"]) == []
    assert variables(run(rules.thunderbolt_network, {"thunderbolt_network_bridge_mode": "keep",
                                                     "macops_rdma_required": True}, macs=["mac1", "mac2"])) == [
        "thunderbolt_network_bridge_mode"]
    assert variables(run(rules.thunderbolt_network, {"thunderbolt_network_bridge_mode": "keep"})) == [
        "thunderbolt_network_bridge_mode"]


def test_sudoers_entries_are_absolute_commands_without_sudo_syntax():
    good = {"sudoers_state": "present", "sudoers_user": "admin", "sudoers_file": "/etc/sudoers.d/macops",
            "sudoers_commands": ["/sbin/shutdown -r now"], "sudoers_extra_commands": []}
    assert run(rules.sudoers, good) == []
    bad = dict(good, sudoers_user="ad min", sudoers_file="/etc/sudoers.d/mac.ops",
               sudoers_extra_commands=["pfctl", "/bin/sh ALL", "/bin/a,/bin/b"])
    assert variables(run(rules.sudoers, bad)) == ["sudoers_user", "sudoers_file"] + ["sudoers_extra_commands"] * 3
    assert variables(run(rules.sudoers, dict(good, sudoers_commands=[]))) == ["sudoers_commands"]
    assert run(rules.sudoers, dict(bad, sudoers_state="absent")) == []


def test_reboot_rules_and_the_play_mode_from_extra_vars():
    good = {"reboot_cluster_batch_size": 1, "reboot_cluster_timeout": 600, "reboot_cluster_test_command": "/usr/bin/whoami",
            "reboot_cluster_stop_labels": ["org.macops.exo"], "reboot_cluster_mode": "parallel",
            "reboot_cluster_filevault": "refuse", "reboot_cluster_power_hook": {}}
    play = {"_reboot_cluster_play_mode": "parallel", "_reboot_cluster_play_batch_size": "1"}
    variable = lambda name, default=None: play.get(name, default)  # noqa: E731
    assert run(rules.reboot_cluster, good, variable=variable) == []
    found = run(rules.reboot_cluster, dict(good, reboot_cluster_mode="rolling"), variable=variable)
    assert variables(found) == ["reboot_cluster_mode"] and "-e reboot_cluster_mode=rolling" not in found[0][2]
    bad = dict(good, reboot_cluster_timeout=5, reboot_cluster_test_command="whoami", reboot_cluster_filevault="authrestart",
               reboot_cluster_filevault_password="hunter2",
               reboot_cluster_power_hook={"url": "pdu.local/cycle", "headers": {"Authorization": "Bearer tok-123"}})
    found = run(rules.reboot_cluster, bad, variable=variable)
    assert variables(found) == ["reboot_cluster_timeout", "reboot_cluster_test_command", "reboot_cluster_filevault",
                                "reboot_cluster_power_hook.url"]
    assert not any("hunter2" in message or "tok-123" in message for _, _, message in found)


@pytest.mark.parametrize("rule, values, variable", [
    (rules.power, {"power_sleep_minutes": -1}, "power_sleep_minutes"),
    (rules.ssh_mesh, {"ssh_mesh_host_key_file": "/etc/ssh/key"}, "ssh_mesh_host_key_file"),
    (rules.ssh_mesh, {"ssh_mesh_verify_throttle": 0}, "ssh_mesh_verify_throttle"),
    (rules.gpu_memory, {"gpu_memory_reserve_table_mb": [{"max_ram_mb": 1, "reserve_mb": -5}]}, "gpu_memory_reserve_table_mb"),
    (rules.gpu_memory, {"gpu_memory_reserve_table_mb": []}, "gpu_memory_reserve_table_mb"),
    (rules.exo, {"exo_program": [], "exo_install": False}, "exo_program"),
    (rules.exo, {"exo_program": ["exo"]}, "exo_program"),
    (rules.exo, {"exo_api_port": 70000}, "exo_api_port"),
    (rules.exo, {"exo_home": "relative"}, "exo_home"),
    (rules.python_env, {"python_env_interpreter_source": "path", "python_env_interpreter_path": "python3"},
     "python_env_interpreter_path"),
    (rules.python_env, {"python_env_interpreter_source": "homebrew", "python_env_homebrew_formula": "python3"},
     "python_env_homebrew_formula"),
    (rules.python_env, {"python_env_python_version": "3.8", "python_env_min_python_version": "3.9"},
     "python_env_python_version"),
    (rules.python_env, {"python_env_wheelhouse_dir": "/nonexistent/wheelhouse"}, "python_env_wheelhouse_dir"),
    (rules.preflight, {"preflight_min_macos_version": "twenty-six"}, "preflight_min_macos_version"),
    (rules.mlx, {"mlx_smoke_test_timeout": 0}, "mlx_smoke_test_timeout"),
    (rules.topology, {"topology_min_link_gbps": 0}, "topology_min_link_gbps"),
])
def test_each_rule_names_the_variable_it_refuses(rule, values, variable):
    assert variable in variables(run(rule, values))


def test_every_rule_is_registered_and_accepts_an_empty_role():
    for name, rule in rules.RULES.items():
        assert callable(rule)
        found = rule(Params({}), Context("mac1", MACS, MANAGEMENT))
        assert found == [], name


def test_sudoers_refuses_a_rule_that_gives_root_before_it_is_written_unless_accepted():
    good = {"sudoers_state": "present", "sudoers_commands": ["/sbin/shutdown -r now"], "sudoers_extra_commands": []}
    broad = dict(good, sudoers_extra_commands=["/bin/launchctl"])
    found = run(rules.sudoers, broad)
    assert variables(found) == ["sudoers_extra_commands"] and "launchctl" in found[0][2]
    assert run(rules.sudoers, dict(broad, sudoers_accepted_unsafe_rules=["/bin/launchctl"])) == []
    # a regular expression may end in $, not hold one before its end; no comment sign
    assert run(rules.sudoers, dict(good, sudoers_extra_commands=["/sbin/route ^change [0-9.]+$"])) == []
    assert variables(run(rules.sudoers, dict(good, sudoers_extra_commands=["/sbin/route ^change$ -x$"]))) == [
        "sudoers_extra_commands"]
    assert variables(run(rules.sudoers, dict(good, sudoers_extra_commands=["/sbin/route # change"]))) == [
        "sudoers_extra_commands"]


def test_sudoers_generated_rules_take_only_names_and_numbers():
    good = {"sudoers_state": "present", "sudoers_thunderbolt_interfaces": ["en2", "en3"],
            "sudoers_launchd_labels": ["org.macops.exo"], "sudoers_pmset_settings": {"sleep": 0, "womp": True}}
    assert run(rules.sudoers, good) == []
    bad = dict(good, sudoers_thunderbolt_interfaces=["en2|bridge0"], sudoers_launchd_labels=["org.x; sh"],
               sudoers_pmset_settings={"sleep": "0 -a hibernatemode 0"})
    assert variables(run(rules.sudoers, bad)) == ["sudoers_thunderbolt_interfaces", "sudoers_launchd_labels",
                                                  "sudoers_pmset_settings"]
