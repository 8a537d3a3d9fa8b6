"""Acceptance 2: Ansible sees four Macs through the generated inventory; become works with the
lab's password, and without one once a NOPASSWD rule is installed."""
import pytest

from labtools import HOSTS, log_lines
from macsim import layout

CHIP = "Apple M3 Ultra"
MEMORY_MB = {"mac1": 524288, "mac2": 524288, "mac3": 262144, "mac4": 262144}


@pytest.fixture(scope="module")
def facts(ansible):
    _, data = ansible("all", "ansible.builtin.setup", json_out=True)
    hosts = data["plays"][0]["tasks"][0]["hosts"]
    return {name: result["ansible_facts"] for name, result in hosts.items()}


def test_setup_reports_darwin_facts(facts):
    assert sorted(facts) == HOSTS
    for host, f in facts.items():
        assert f["ansible_system"] == "Darwin", host
        assert f["ansible_os_family"] == "Darwin"
        assert f["ansible_distribution"] == "MacOSX"
        assert f["ansible_distribution_version"] == "26.2"
        assert f["ansible_distribution_major_version"] == "26"
        assert f["ansible_kernel"] == "25.2.0"
        assert f["ansible_architecture"] == "arm64"
        assert f["ansible_service_mgr"] == "launchd"
        assert f["ansible_pkg_mgr"] != "apt"
        assert f["ansible_hostname"] == host


def test_setup_reports_hardware_per_profile(facts):
    for host, f in facts.items():
        assert f["ansible_memtotal_mb"] == MEMORY_MB[host], host
        assert f["ansible_processor"] == CHIP
        assert int(f["ansible_processor_cores"]) == 32  # a string on real Darwin too (sysctl text)
        assert f["ansible_model"] == "Mac15,14"
        assert f["ansible_default_ipv4"]["address"] == layout.mgmt_ip(HOSTS.index(host) + 1)


def test_setup_ran_the_macos_commands(facts):
    argvs = [entry["argv"] for entry in log_lines("mac1", "exec.log")]
    assert ["/usr/bin/sw_vers", "-productVersion"] in argvs
    assert any(a[0].endswith("sysctl") for a in argvs)
    shim_calls = [entry["argv"] for entry in log_lines("mac1", "shim.log")]
    assert any(call[0].endswith("sw_vers") for call in shim_calls)


def test_become_uses_the_lab_password(ansible):
    proc = ansible("macs", "ansible.builtin.command", "id -u", become=True)
    assert proc.stdout.count("rc=0 >>\n0") == 4


def test_become_without_password_needs_a_nopasswd_rule(ansible):
    no_password = ["-e", '{"ansible_become_password": null}']
    refused = ansible("mac1", "ansible.builtin.command", "id -u", become=True, extra=no_password, check=False)
    assert refused.returncode != 0 and "password" in (refused.stdout + refused.stderr).lower()
    rule = "/etc/sudoers.d/90-admin-nopasswd"
    ansible("mac1", "ansible.builtin.copy",
            "dest=%s content='admin ALL = (ALL) NOPASSWD: ALL\n' mode=0440 owner=root validate='visudo -cf %%s'" % rule,
            become=True)
    try:
        proc = ansible("mac1", "ansible.builtin.command", "id -u", become=True, extra=no_password)
        assert "rc=0 >>\n0" in proc.stdout
        other = ansible("mac2", "ansible.builtin.command", "id -u", become=True, extra=no_password, check=False)
        assert other.returncode != 0  # the rule lives in mac1's own /etc/sudoers.d only
    finally:
        ansible("mac1", "ansible.builtin.file", "path=%s state=absent" % rule, become=True)
