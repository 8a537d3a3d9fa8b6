"""gpu_memory on the lab: the limit is RAM minus the reserve, applied now, idempotent, predicted
by check mode, refused when impossible, and set again by the LaunchDaemon after a reboot."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
from labtools import HOSTS, read_json, ssh, wait_until  # noqa: E402
from software import changed_tasks, converge  # noqa: E402

# mac1/mac2 have 512 GB (reserve 16 GB), mac3/mac4 256 GB (reserve 12 GB): the default table.
EXPECTED = {"mac1": 524288 - 16384, "mac2": 524288 - 16384, "mac3": 262144 - 12288, "mac4": 262144 - 12288}
PLIST = "/Library/LaunchDaemons/org.macops.gpu-memory.plist"


def live_limit(host):
    return int(ssh(host, "/usr/sbin/sysctl -n iogpu.wired_limit_mb").stdout)



@pytest.fixture(scope="module", autouse=True)
def _fresh(fresh_lab):
    """These tests start from nodes nothing has converged yet (limit 0, empty shim logs)."""
    return fresh_lab

@pytest.fixture(scope="module")
def first_run(ansible, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gpu")
    predicted = converge(ansible, tmp, ["gpu_memory"], flags=["--check", "--diff"])
    assert all(live_limit(h) == 0 for h in HOSTS), "check mode must not change the limit"
    return predicted, converge(ansible, tmp, ["gpu_memory"]), tmp


def test_limit_is_ram_minus_reserve_on_every_node(first_run):
    _, (_, facts, _), _ = first_run
    for host in HOSTS:
        assert live_limit(host) == EXPECTED[host], host
        assert facts[host]["macops_gpu"]["wired_limit_mb"] == EXPECTED[host]
        assert facts[host]["macops_gpu"]["target_mb"] == EXPECTED[host]


def test_check_mode_predicted_the_real_changes(first_run):
    (check_proc, _, check_recap), (real_proc, _, real_recap), _ = first_run
    assert changed_tasks(check_proc.stdout) == changed_tasks(real_proc.stdout)
    assert {h: r["changed"] for h, r in check_recap.items()} == {h: r["changed"] for h, r in real_recap.items()}
    assert "iogpu.wired_limit_mb=507904" in check_proc.stdout  # the --diff of mac1


def test_launchdaemon_runs_sysctl_at_boot(first_run):
    for host in HOSTS:
        text = ssh(host, "/usr/bin/plutil -p '%s'" % PLIST).stdout
        assert "iogpu.wired_limit_mb=%d" % EXPECTED[host] in text and '"RunAtLoad" => true' in text


def test_second_run_changes_nothing(ansible, first_run):
    _, _, tmp = first_run
    proc, _, counts = converge(ansible, tmp, ["gpu_memory"])
    assert {h: c["changed"] for h, c in counts.items()} == {h: 0 for h in HOSTS}, changed_tasks(proc.stdout)


def test_impossible_limit_fails_naming_the_host_and_changes_nothing(ansible, first_run):
    _, _, tmp = first_run
    proc, _, counts = converge(ansible, tmp, ["gpu_memory"], {"gpu_memory_wired_limit_mb": 600000}, check=False)
    assert proc.returncode != 0 and counts["mac3"]["failed"] == 1
    assert "600000 MB does not fit a Mac with 262144 MB" in proc.stdout
    assert all(live_limit(h) == EXPECTED[h] for h in HOSTS)


def test_bad_type_is_rejected_by_the_argument_spec(ansible, first_run):
    _, _, tmp = first_run
    proc, _, _ = converge(ansible, tmp, ["gpu_memory"], {"gpu_memory_reserve_mb": "lots"}, check=False)
    assert proc.returncode != 0 and "gpu_memory_reserve_mb" in proc.stdout


def test_reboot_sets_the_limit_again(ansible, first_run):
    before = read_json("hosts", "mac3", "volatile.json")["boot_session_uuid"]
    ansible("mac3", "ansible.builtin.reboot",
            "boot_time_command='/usr/sbin/sysctl -n kern.bootsessionuuid' reboot_timeout=180", become=True)
    assert read_json("hosts", "mac3", "volatile.json")["boot_session_uuid"] != before
    # launchd runs RunAtLoad jobs while the node boots; SSH may answer a moment earlier.
    wait_until(lambda: live_limit("mac3") == EXPECTED["mac3"], 30, 1, "the LaunchDaemon to set the limit")
