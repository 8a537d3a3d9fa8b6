"""The report reads what the roles publish (plugins/plugin_utils/_report_inputs.py): node entries, problems and
sections from hostvars (a reboot's, valid in the one schema), and the report role given only report_hosts, as
site.yml runs it."""
import json
import os
import sys

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._report_inputs import (nodes_from_hostvars,
                                                                                    problems_from_hostvars,
                                                                                    sections_from_hostvars)
from ansible_collections.macops.cluster.plugins.plugin_utils._report_model import build_report_model

from ansible_cli import BIN, run_in_project
from report_fixture import healthy_inputs
from report_schema import assert_valid_report

MAC = {"chip": "Apple M3 Ultra", "thunderbolt_ports": []}
PREFLIGHT_PROBLEM = problem("disk_space_low", "12 GB free.", "Free disk space.", severity="warning")
TB_PROBLEM = problem("tb_address_reset", "en2 lost its address.", "Stop what resets it.", host="mac2",
                     port="en2", severity="warning")


DEPLOYED = {"name": "tiny-qwen2", "runtime": "mlx-lm", "rank": 0, "ranks": 1, "layers": [0, 24], "files": 3,
            "bytes": 3000, "missing": [], "wrong_size": [], "complete": True, "path": "/Users/admin/models/tiny-qwen2"}


def published(mac=MAC):
    """One node's variables after every role ran, as the roles publish them."""
    return {
        "ansible_facts": {"macops_mac": mac, "macops_node": {"models": [DEPLOYED]}},
        "macops_preflight": {"checks": [{"name": "macOS", "ok": True, "detail": "26.2"}],
                             "problems": [PREFLIGHT_PROBLEM]},
        "macops_tb_network": {"links": [], "problems": [TB_PROBLEM]},
        "macops_sudoers": {"problems": []},
        "macops_rdma": {"enabled": True, "ready": True, "ports": [], "problems": []},
        "macops_python_env": {"version": "3.12.8", "python": "/v/bin/python"},
        "macops_mlx": {"mlx": "0.30.3", "mlx_lm": "0.28.4",
                       "smoke": {"ok": True, "detail": "all_sum over 2 ranks = 3", "seconds": 1.5}},
        "macops_gpu": {"wired_limit_mb": 1000, "target_mb": 1000},
        "macops_exo": {"version": "1.0.3", "running": True, "detail": "pid 42"},
    }


def test_a_node_entry_maps_each_published_result():
    nodes = nodes_from_hostvars(["mac1"], {"mac1": published()}, ["mac1"])
    assert nodes == {"mac1": {
        "reachable": True, "mac": MAC,
        "rdma": {"enabled": True, "ready": True, "ports": [], "problems": []},
        "software": {"python": "3.12.8", "mlx": "0.30.3", "mlx_lm": "0.28.4", "exo": "1.0.3"},
        "gpu": {"wired_limit_mb": 1000, "target_mb": 1000},
        "services": {"exo": {"running": True, "detail": "pid 42"}},
        "checks": [{"name": "macOS", "ok": True, "detail": "26.2"},
                   {"name": "MLX all_sum over Thunderbolt", "ok": True, "detail": "all_sum over 2 ranks = 3"}],
        "models": [DEPLOYED]}}


def test_a_swept_node_shows_every_version_the_sweep_read():
    """doctor.yml publishes no role result: its exo read gives exo's version and the sweep's software
    the rest, each on its own (exo's read alone must not hide the MLX versions the report compares)."""
    swept = {"python": "3.12.8", "mlx": "0.32.3", "mlx_lm": "0.31.0", "exo": "1.0.71"}
    host_vars = {"ansible_facts": {"macops_mac": MAC},
                 "macops_doctor": {"reachable": True, "exo": {"version": "1.0.71", "running": True},
                                   "software": swept, "checks": []}}
    assert nodes_from_hostvars(["mac1"], {"mac1": host_vars}, ["mac1"])["mac1"]["software"] == swept
    # A role's result, where the run set it up, wins over the sweep's read.
    host_vars["macops_mlx"] = {"mlx": "0.32.4", "mlx_lm": "0.31.0"}
    assert nodes_from_hostvars(["mac1"], {"mac1": host_vars}, ["mac1"])["mac1"]["software"]["mlx"] == "0.32.4"


def test_a_node_that_published_nothing_is_not_checked_and_unreachable():
    nodes = nodes_from_hostvars(["mac1", "mac2"], {"mac1": {}, "mac2": {"ansible_host": "198.18.0.2"}}, ["mac1"])
    assert nodes["mac2"] == {"reachable": False, "mac": None, "rdma": None,
                             "software": {"python": None, "mlx": None, "mlx_lm": None, "exo": None},
                             "gpu": None, "services": {"exo": {"running": None, "detail": ""}}, "checks": [],
                             "models": None}
    assert nodes["mac1"]["reachable"] is True
    assert list(nodes) == ["mac1", "mac2"]


def test_a_node_that_left_the_play_after_its_facts_counts_as_reached():
    assert nodes_from_hostvars(["mac1"], {"mac1": published()}, [])["mac1"]["reachable"] is True


def test_problems_keep_role_order_and_the_host_they_name():
    hostvars = {"mac1": published(), "mac2": published()}
    hostvars["mac1"]["macops_preflight"]["problems"] = [dict(PREFLIGHT_PROBLEM, host="mac1")]
    hostvars["mac2"]["macops_sudoers"] = {"problems": [dict(PREFLIGHT_PROBLEM, host="mac2")]}
    del hostvars["mac2"]["macops_preflight"]
    found = problems_from_hostvars(["mac1", "mac2"], hostvars)
    assert [(p["code"], p["host"]) for p in found] == [
        ("disk_space_low", "mac1"), ("tb_address_reset", "mac2"), ("tb_address_reset", "mac2"),
        ("disk_space_low", "mac2")]
    assert found[0] == dict(PREFLIGHT_PROBLEM, host="mac1")


def test_a_problem_without_a_host_gets_the_one_it_was_published_on():
    # problem()'s shape always has the key; a host of None is kept as site.yml's combine() kept it
    found = problems_from_hostvars(["mac1"], {"mac1": {"macops_sudoers": {"problems": [
        PREFLIGHT_PROBLEM, {"code": "x", "message": "no host key"}]}}})
    assert [p["host"] for p in found] == [None, "mac1"]


PLAYBOOK = """
- name: Publish what the roles publish
  hosts: macs
  gather_facts: false
  vars_files: [published.json]
  tasks:
    - name: Publish
      ansible.builtin.set_fact:
        ansible_facts: {macops_mac: "{{ published[inventory_hostname].ansible_facts.macops_mac }}"}
        macops_preflight: "{{ published[inventory_hostname].macops_preflight }}"
        macops_tb_network: "{{ published[inventory_hostname].macops_tb_network }}"
        macops_mlx: "{{ published[inventory_hostname].macops_mlx }}"
        macops_exo: "{{ published[inventory_hostname].macops_exo }}"
        macops_topology: {}
- name: Report
  hosts: macs
  gather_facts: false
  tasks:
    - name: Report
      ansible.builtin.import_role:
        name: macops.cluster.report
      vars:
        report_hosts: "{{ groups['macs'] }}"
        report_dir: out/report
"""


def test_the_report_role_reads_the_hosts_itself(tmp_path):
    (tmp_path / "published.json").write_text(json.dumps({"published": {"mac1": published(), "mac2": published()}}))
    (tmp_path / "site.yml").write_text(PLAYBOOK)
    (tmp_path / "inventory").write_text("[macs]\nmac1 ansible_connection=local ansible_python_interpreter=%s\n"
                                        "mac2 ansible_connection=local ansible_python_interpreter=%s\n"
                                        % (sys.executable, sys.executable))
    result = run_in_project([os.path.join(BIN, "ansible-playbook"), "-i", "inventory", "site.yml"], tmp_path)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads((tmp_path / "out" / "report" / "report.json").read_text())
    assert [node["name"] for node in report["nodes"]] == ["mac1", "mac2"]
    codes = sorted((p["code"], p["host"]) for p in report["problems"] if p["code"] in ("disk_space_low",
                                                                                        "tb_address_reset"))
    # the report keeps one of each (code, host, port, message)
    assert codes == [("disk_space_low", None), ("tb_address_reset", "mac2")]
    assert "MLX all_sum over Thunderbolt" in json.dumps(report["nodes"][0])
    assert "pid 42" in json.dumps(report["nodes"][1])


def reboot_result(ok=True, back=True):
    checks = [{"name": "came_back", "ok": back, "detail": "", "code": "" if back else "reboot_node_not_back",
               "severity": "error", "fix": "" if back else "Look at the Mac."}]
    return {"selected": True, "rebooted": True, "back": back, "waited_seconds": 41, "power_cycled": False,
            "boot_session_before": "A", "checks": checks, "ok": ok and back, "rdma": None,
            "gpu": {"wired_limit_mb": 229376, "target_mb": "229376"},
            "problems": [] if back else [{"code": "reboot_node_not_back", "severity": "error", "host": "mac2",
                                          "port": None, "peer": None, "message": "mac2 did not come back after 41 s",
                                          "fix": "Look at the Mac.", "details": {}}]}


def test_a_reboot_report_built_from_what_the_role_published_validates():
    nodes, _topology = healthy_inputs()
    hostvars = dict((host, {"macops_reboot": reboot_result(back=host != "mac2"),
                            "ansible_facts": {"macops_mac": nodes[host]["mac"]}}) for host in nodes)
    hosts = sorted(hostvars)
    run = {"playbook": "reboot-cluster.yml", "mode": "parallel"}
    model = build_report_model(nodes_from_hostvars(hosts, hostvars, hosts), {}, problems_from_hostvars(hosts, hostvars),
                               "Mac cluster reboot", run, sections_from_hostvars(hosts, hostvars, run))
    assert_valid_report(json.loads(json.dumps(model)))
    [reboot] = model["sections"]
    assert reboot["summary"][:2] == ["mac1: OK, back after 41 s", "mac2: FAILED, NOT BACK after 41 s; failed: came_back"]
    assert reboot["data"]["mode"] == "parallel" and reboot["data"]["nodes"]["mac2"]["failed_checks"] == ["came_back"]
    # The role's own problem, once (not derived again from the failed check); mac2 not reachable.
    assert [(p["code"], p["host"]) for p in model["problems"]] == [("node_unreachable", "mac2"),
                                                                   ("reboot_node_not_back", "mac2")]
    by_name = dict((node["name"], node) for node in model["nodes"])
    assert by_name["mac1"]["gpu"] == {"wired_limit_mb": 229376, "target_mb": 229376}
    assert by_name["mac2"]["reachable"] is False
