"""preflight on the lab: fact-free validation stops bad input before any Mac is contacted; the
node checks publish macops_preflight and fail only the node that is wrong, naming the fix."""
import json

import pytest

from access_helpers import CONVERGE, fact_dump_playbook, read_host_json, recap, run_playbook
from labtools import HOSTS, log_lines, maclab, ssh
from macsim import layout

CHECKS = ["macos_version", "macos_build", "memory", "free_disk", "filevault", "remote_login"]


def shim_calls():
    return sum(len(log_lines(host, "shim.log")) for host in HOSTS)



@pytest.fixture(scope="module", autouse=True)
def _fresh(fresh_lab):
    """These tests start from nodes nothing has converged yet (limit 0, empty shim logs)."""
    return fresh_lab

@pytest.fixture()
def dump(lab, tmp_path):
    path = str(tmp_path / "macops_preflight")
    return path, fact_dump_playbook(path, "macops_preflight")


@pytest.mark.parametrize("extra_vars, message", [
    # A survey's or -e's "yes" is a boolean once coerced as Ansible coerces it; "sometimes" is not.
    ('{"macops_rdma_required": "sometimes"}', "macops_rdma_required = 'sometimes' is refused"),
    ('{"macops_rdma_requried": true}', "macops_rdma_requried is not a macops.cluster variable. Did you mean "
                                       "macops_rdma_required?"),
    ('{"macops_tb_address_pool": "198.19.0.0/29"}', "198.19.0.0/29 holds 2 /30 subnets, a full mesh of 4 Macs has 6 cables"),
    ('{"macops_tb_address_pool": "198.18.0.0/16"}', "contains the management address(es) %s" % layout.mgmt_ip(1)),
    ('{"preflight_max_nodes": 3}', "must hold between 1 and 3 hosts; it holds 4"),
    ('{"power_sleep_minutes": "zero"}', "power_sleep_minutes = 'zero' is refused"),
])
def test_bad_input_fails_before_any_mac_is_contacted(lab, extra_vars, message):
    before = shim_calls()
    proc = run_playbook(CONVERGE, "-e", extra_vars)
    assert proc.returncode != 0
    output = " ".join((proc.stdout + proc.stderr).split())
    assert message in output
    assert shim_calls() == before
    assert all(result["changed"] == 0 for result in recap(proc.stdout).values())


def test_healthy_lab_passes_every_check(dump):
    path, playbook = dump
    proc = run_playbook(playbook)
    assert proc.returncode == 0, proc.stdout[-4000:]
    for host in HOSTS:
        found = read_host_json(path, host)
        assert [check["name"] for check in found["checks"]] == CHECKS
        assert all(check["ok"] for check in found["checks"]), found
        assert found["problems"] == []
    # One system_profiler run per node: the topology role plans from the fact it set.
    for host in HOSTS:
        runs = [entry for entry in log_lines(host, "shim.log") if entry["argv"][0].endswith("system_profiler")]
        assert len(runs) == 1, runs


def test_full_disk_fails_only_that_node_with_the_fix(dump):
    path, playbook = dump
    maclab("fault", "disk-full", "mac2", "5G")
    try:
        proc = run_playbook(playbook)
    finally:
        maclab("fault", "clear")
    assert proc.returncode != 0
    result = recap(proc.stdout)
    assert result["mac2"]["failed"] == 1
    assert all(result[host]["failed"] == 0 for host in HOSTS if host != "mac2")
    assert "[disk_space_low] mac2 has 4.7 GiB free on its boot volume" in " ".join(proc.stdout.split())
    assert "Free space on mac2" in proc.stdout


def test_build_mismatch_names_the_odd_node_and_can_be_a_warning(dump):
    path, playbook = dump
    maclab("fault", "build", "mac4", "25C57")
    try:
        strict = run_playbook(playbook)
        lenient = run_playbook(playbook, "-e", '{"preflight_require_same_build": false}')
    finally:
        maclab("fault", "clear")
    assert recap(strict.stdout)["mac4"]["failed"] == 1
    assert all(recap(strict.stdout)[host]["failed"] == 0 for host in ("mac1", "mac2", "mac3"))
    flat = " ".join(strict.stdout.split())
    assert "mac4 runs macOS 26.2 (build 25C57), the other nodes 26.2 (mac1, mac2, mac3, build 25C56)" in flat
    assert lenient.returncode == 0
    problems = read_host_json(path, "mac4")["problems"]
    assert [(p["code"], p["severity"]) for p in problems] == [("macos_build_mismatch", "warning")]
    assert read_host_json(path, "mac1")["problems"] == []


def test_filevault_pending_is_named_with_the_restart_it_needs(dump):
    """`fdesetup status`: "will be enabled after the next restart": read by the tested parser as
    pending, a warning (preflight_filevault_allowed) that says the next restart stops at the
    unlock screen and how to get past it."""
    path, playbook = dump
    maclab("fault", "filevault-pending", "mac3")
    try:
        proc = run_playbook(playbook)
    finally:
        maclab("fault", "clear")
    assert proc.returncode == 0, proc.stdout[-4000:]
    (found,) = read_host_json(path, "mac3")["problems"]
    assert (found["code"], found["severity"]) == ("filevault_on", "warning")
    assert found["message"].startswith("FileVault is about to be turned on on mac3 (FileVault is Off, but will be "
                                       "enabled after the next restart.): its next restart waits at the pre-boot")
    assert found["fix"].startswith("Restart mac3 once with someone at the Mac to unlock it")
    assert all(read_host_json(path, host)["problems"] == [] for host in ("mac1", "mac2", "mac4"))


# What site.yml's roles would run, given to a preflight-only play: python_env's interpreter from Homebrew and exo
# with pip from its git tag (exo's default), which builds exo's Rust bindings on the Mac.
SITE_TOOLS = {"python_env_interpreter_source": "homebrew", "exo_install": True, "exo_install_method": "pip",
              "exo_package_spec": "exo @ git+https://github.com/exo-explore/exo.git@v1.0.68"}


def test_a_mac_without_homebrew_or_rust_is_stopped_by_preflight_naming_each(dump):
    """Issue 35: every prerequisite has the preflight code that finds it missing. The lab's Macs have Homebrew
    (its brew shim) and no Rust; `fault homebrew-missing` takes Homebrew from mac2, and mac3 gets rustup's cargo."""
    path, playbook = dump
    maclab("fault", "homebrew-missing", "mac2")
    ssh("mac3", "mkdir -p ~/.cargo/bin && printf '#!/bin/sh\\n' > ~/.cargo/bin/cargo && chmod 755 ~/.cargo/bin/cargo")
    try:
        proc = run_playbook(playbook, "-e", json.dumps(SITE_TOOLS))
        # mac3 has both: it passes, its checks name them.
        passed = read_host_json(path, "mac3")
        index = run_playbook(playbook, "-e", json.dumps(dict(SITE_TOOLS, exo_package_spec="exo==1.0.68")))
    finally:
        maclab("fault", "clear")
        ssh("mac3", "rm -rf ~/.cargo")
    assert proc.returncode != 0
    assert {host for host, counts in recap(proc.stdout).items() if counts["failed"]} == {"mac1", "mac2", "mac4"}
    assert passed["problems"] == [] and [c["name"] for c in passed["checks"]][-2:] == ["homebrew", "exo_build_tools"]
    flat = " ".join(proc.stdout.split())
    for host in ("mac1", "mac2", "mac4"):
        assert ("[exo_build_tools_missing] %s lacks Rust's cargo (~/.cargo/bin/cargo or /opt/homebrew/bin/cargo)"
                % host) in flat
    assert "[homebrew_missing] mac2 has no Homebrew at /opt/homebrew/bin/brew" in flat
    assert "[homebrew_missing] mac1" not in flat
    # exo from a package index with built wheels builds nothing: Homebrew alone is needed, and mac2 lacks it.
    assert {host for host, counts in recap(index.stdout).items() if counts["failed"]} == {"mac2"}
