"""Issue 5 on the 4-node lab: site.yml from a fresh lab converges, is idempotent, is predicted by
--check --diff, survives a reboot of every node, rejects bad input before any change, and never
prints the become password."""
import json
import os

import pytest

from labtools import HOSTS, ROOT, changed_tasks, log_lines, recap, ssh

# Tasks whose change --check cannot predict, because they depend on an earlier change in the same
# run (docs/site.md lists each with the reason). Keep this list short and explained.
UNPREDICTABLE = {
    # On a fresh node --check only predicts the LaunchDaemon plist, so there is no job to restart.
    "macops.cluster.exo : Restart exo",
}


def test_site_converges_then_changes_nothing(converged):
    first, second = recap(converged["first"].stdout), recap(converged["second"].stdout)
    assert sorted(first) == HOSTS and sorted(second) == HOSTS
    assert all(c["failed"] == 0 and c["unreachable"] == 0 for c in first.values()), first
    assert all(c["changed"] > 0 for c in first.values())  # a fresh lab really needed the work
    assert {h: c["changed"] for h, c in second.items()} == {h: 0 for h in HOSTS}


@pytest.mark.wip(reason="--check on a fresh lab and the real run differ in tasks that depend on an earlier change "
                        "(ssh_mesh authorize after keygen, exo start, firewall load, mlx hostfile written by rdma "
                        "first): each must be fixed in its role or listed in UNPREDICTABLE with its reason (issue 5)")
def test_check_mode_predicts_the_real_run(converged):
    assert all(c["failed"] == 0 for c in recap(converged["check"].stdout).values())
    predicted, applied = changed_tasks(converged["check"].stdout), changed_tasks(converged["first"].stdout)
    for host in HOSTS:
        assert [t for t in predicted.get(host, []) if t not in UNPREDICTABLE] == \
            [t for t in applied.get(host, []) if t not in UNPREDICTABLE], host


def test_report_is_written_for_people_and_machines(site, converged):
    # The report lands under the directory ansible-playbook ran in (the fixture's workdir).
    report_dir = os.path.join(site.workdir, "artifacts", "report")
    with open(os.path.join(report_dir, "report.json")) as handle:
        report = json.load(handle)
    assert sorted(report["nodes"]) == HOSTS if isinstance(report["nodes"], dict) else \
        sorted(n["name"] for n in report["nodes"]) == HOSTS
    assert report["verdict"] in ("healthy", "degraded")
    with open(os.path.join(report_dir, "index.html")) as handle:
        html = handle.read()
    assert "<svg" in html and all(host in html for host in HOSTS)


def test_every_cable_carries_its_planned_address(converged):
    cables = [c for c in json.load(open(os.path.join(ROOT, "lab.json")))["cables"]]
    for host in HOSTS:
        plan = json.loads(ssh(host, "cat '/Library/Application Support/macops/thunderbolt-plan.json'").stdout)
        ends = plan["hosts"][host]
        assert len(ends) == len([c for c in cables if host in (c["a"], c["b"])])
        for device, end in ends.items():
            assert "inet %s netmask 0xfffffffc" % end["ip"] in ssh(host, "/sbin/ifconfig %s" % device).stdout
            assert ssh(host, "/sbin/ping -c 1 -t 3 %s" % end["peer_ip"]).returncode == 0


def test_bad_input_is_rejected_before_anything_connects(site, converged):
    cases = [
        ('{"macops_rdma_required": "yes"}', "macops_rdma_required"),
        ('{"macops_tb_adress_pool": "198.19.0.0/16"}', "macops_tb_adress_pool"),
        ('{"macops_tb_address_pool": "198.19.0.0/33"}', "macops_tb_address_pool"),
    ]
    for extra, variable in cases:
        before = {h: len(log_lines(h, "shim.log")) for h in HOSTS}
        proc = site("-e", extra, check=False)
        assert proc.returncode != 0, extra
        assert variable in proc.stdout, (extra, proc.stdout[-3000:])
        assert "changed:" not in proc.stdout
        # Fact-free: no macOS command ran on any node.
        assert {h: len(log_lines(h, "shim.log")) for h in HOSTS} == before, extra


def test_become_password_never_appears_even_with_vvv(site, converged):
    with open(os.path.join(ROOT, "controller", "become_password")) as handle:
        password = handle.read().strip()
    proc = site("-vvv", "--tags", "sudoers,power,gpu_memory", check=False)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert password and password not in proc.stdout and password not in proc.stderr


@pytest.mark.wip(reason="under the e2e fixture's ansible.cfg the report written by the idempotence run lists no "
                        "MLX smoke check (a run with the repository's ansible.cfg does): find which setting drops it")
def test_mlx_launch_runs_a_4_rank_all_sum_over_the_generated_ring_hostfile(site, converged):
    """Issue 4, point 4: the ring hostfile the planner generated is accepted by mlx.launch (run
    from the first node by the mlx role's smoke test) and an all_sum over the Thunderbolt links
    returns the right sum on every rank."""
    assert "Run the smoke test from the first node of the ring with mlx.launch" in converged["first"].stdout
    with open(os.path.join(site.workdir, "artifacts", "report", "report.json")) as handle:
        report = json.load(handle)
    nodes = report["nodes"]
    for name, node in (nodes.items() if isinstance(nodes, dict) else ((n["name"], n) for n in nodes)):
        smoke = [c for c in node["checks"] if c["name"] == "MLX all_sum over Thunderbolt"]
        assert len(smoke) == 1 and smoke[0]["ok"] is True, name
        assert "over 4 ranks = 10.0 (expected 10.0)" in smoke[0]["detail"], name
    hostfile = json.loads(ssh("mac1", "cat '/Library/Application Support/macops/hostfile-ring.json'").stdout)
    assert hostfile["backend"] == "ring" and [h["ssh"] for h in hostfile["hosts"]] == HOSTS
