"""Issue 5, point 5: site.yml on a converged lab with faults injected. Each run fails or warns as
docs/site.md documents, names the host and the fix, and leaves the other hosts as they were
(changed=0 on a converged lab) or converged. Faults are combined where their runs do not
interfere, to keep the suite within its CI budget."""
import json

import pytest

from labtools import HOSTS, changed_tasks, log_lines, maclab, recap, ssh

STATE = "/Library/Application Support/macops"
# macOS commands that change a node; none of them may run when a run is meant to change nothing.
CHANGING = ("networksetup -set", "networksetup -create", "networksetup -remove", "networksetup -delete",
            "ifconfig bridge0 destroy", "sysctl -w", "pmset -a", "launchctl bootstrap", "launchctl bootout")


@pytest.fixture
def faults(converged):
    """Clears the lab's faults after the test. The tests whose run leaves every node converged
    (or changes nothing) need no more than that."""
    yield
    maclab("fault", "clear")


@pytest.fixture
def reconverge(converged, site):
    """Clears the lab's faults after the test and converges the whole lab again, so the next test
    starts from the converged lab."""
    yield
    maclab("fault", "clear")
    site(check=False)


def changing_commands(host, since):
    return [" ".join(e["argv"]) for e in log_lines(host, "shim.log")[since:]
            if any(c in " ".join(e["argv"]) for c in CHANGING)]


def report(site):
    with open("%s/artifacts/report/report.json" % site.workdir) as handle:
        return json.load(handle)


def problems_of(model, code):
    return [p for p in model["problems"] if p["code"] == code]


def test_bridge_back_addresses_reset_and_a_tb4_cable_warn_and_converge_with_no_rdma_over_it(site, faults):
    """Issue 5 and issue 11, acceptance 3: RDMA on everywhere, one cable of the full mesh degraded to TB4 (it gets
    no RDMA hostfile, the report says why), beside a bridge back and addresses reset on two other nodes."""
    maclab("fault", "bridge-on", "mac2")
    maclab("fault", "ip-reset", "mac3")
    maclab("fault", "degrade", "mac1", "mac4")
    proc = site(check=False)
    assert proc.returncode == 0, proc.stdout[-6000:]
    counts = recap(proc.stdout)
    assert counts["mac2"]["changed"] > 0 and counts["mac3"]["changed"] > 0
    model = report(site)
    bridge = problems_of(model, "tb_bridge_returned")
    assert [p["host"] for p in bridge] == ["mac2"] and bridge[0]["fix"]
    reset = problems_of(model, "tb_address_reset")
    assert {p["host"] for p in reset} == {"mac3"} and all("io.exo.networksetup" in p["fix"] for p in reset)
    # exo's guard disabled and booted out that daemon before the network step: its plist is still
    # there (it explains the reset above), but it will not reset anything again, so no warning.
    assert problems_of(model, "tb_exo_networksetup_daemon") == []
    slow = problems_of(model, "tb_link_tb4_speed")
    assert len(slow) == 1 and {slow[0]["host"], slow[0]["peer"]} == {"mac1", "mac4"} and slow[0]["fix"]
    # and the people reading the run see them at its end
    assert "mac2: " in proc.stdout and "mac3: " in proc.stdout
    # converged: the bridge is gone, the planned addresses are back, exo's daemon is off
    assert ssh("mac2", "/sbin/ifconfig bridge0", check=False).returncode != 0
    plan = json.loads(ssh("mac3", "cat '%s/thunderbolt-plan.json'" % STATE).stdout)
    for device, end in plan["hosts"]["mac3"].items():
        assert "inet %s netmask 0xfffffffc" % end["ip"] in ssh("mac3", "/sbin/ifconfig %s" % device).stdout
    assert ssh("mac3", "/bin/launchctl print system/io.exo.networksetup", check=False).returncode != 0
    tb4_cable_gets_no_rdma_hostfile(proc, model)


def tb4_cable_gets_no_rdma_hostfile(proc, model):
    (slow,) = [link for link in model["topology"]["links"] if "tb_link_tb4_speed" in link["problem_codes"]]
    ends = {(slow["a"]["host"], slow["a"]["interface"]), (slow["b"]["host"], slow["b"]["interface"])}
    assert {host for host, _ in ends} == {"mac1", "mac4"}
    choice = model["topology"]["mlx_backend"]
    assert choice["backend"] in ("jaccl-ring", "ring"), choice
    assert "No jaccl: " in choice["reason"] and "(tb_link_tb4_speed)" in choice["reason"], choice
    for host in HOSTS:
        listing = ssh(host, "ls '%s'" % STATE).stdout.split()
        # the converged lab had a jaccl hostfile: gone, with nothing in its place over that cable
        assert "hostfile-jaccl.json" not in listing, (host, listing)
        assert ("hostfile-%s.json" % choice["backend"]) in listing
    if choice["backend"] == "jaccl-ring":
        ring = json.loads(ssh("mac1", "cat '%s/hostfile-jaccl-ring.json'" % STATE).stdout)
        order = model["topology"]["ring_order"]
        assert [h["ssh"] for h in ring["hosts"]] == order
        named = {(order[i], device) for i, entry in enumerate(ring["hosts"]) for device in entry["rdma"] if device}
        assert not named & {(host, "rdma_" + iface) for host, iface in ends}
    # the people running it see the choice and why at the RDMA step
    # a warning, so on stderr
    assert "MLX backend: %s" % choice["backend"] in " ".join((proc.stdout + proc.stderr).split())


def test_exo_daemon_left_loaded_is_named_until_the_guard_disables_it(site, faults):
    maclab("fault", "ip-reset", "mac4")  # installs and starts exo's io.exo.networksetup daemon
    # Without exo's guard (tag exo skipped) the daemon stays loaded and will reset mac4's addresses
    # again; the network step names it, with the fix (a warning: whether the links already failed
    # when they were pinged, right after they were applied, is a race with the daemon).
    proc = site("--tags", "thunderbolt_network", "--skip-tags", "exo", check=False)
    flat = " ".join((proc.stdout + proc.stderr).split())
    assert "[tb_exo_networksetup_daemon] mac4: exo's io.exo.networksetup LaunchDaemon is loaded Fix: " in flat
    assert "launchctl disable system/io.exo.networksetup" in flat
    # With the guard, which disables and boots it out first (its plist stays): no more warning.
    site("--tags", "thunderbolt_network")
    assert problems_of(report(site), "tb_exo_networksetup_daemon") == []
    assert ssh("mac4", "/bin/launchctl print system/io.exo.networksetup", check=False).returncode != 0


def test_rdma_off_with_rdma_required_stops_every_node_before_any_change(site, faults):
    maclab("fault", "rdma-off", "mac2")
    since = {h: len(log_lines(h, "shim.log")) for h in HOSTS}
    proc = site("-e", '{"macops_rdma_required": true}', check=False)
    assert proc.returncode != 0
    assert "changed:" not in proc.stdout
    assert "mac2: rdma_disabled" in proc.stdout and "Recovery" in proc.stdout, proc.stdout[-4000:]
    assert {h: changing_commands(h, since[h]) for h in HOSTS} == {h: [] for h in HOSTS}


def test_odd_build_and_a_down_node_fail_alone_and_the_others_converge(site, reconverge):
    plans = {h: json.loads(ssh(h, "cat '%s/thunderbolt-plan.json'" % STATE).stdout) for h in ("mac1", "mac2")}
    maclab("fault", "build", "mac4", "25C57")
    maclab("fault", "down", "mac3")
    proc = site(check=False)
    assert proc.returncode != 0
    counts = recap(proc.stdout)
    assert counts["mac3"]["unreachable"] == 1
    assert counts["mac4"]["failed"] == 1 and counts["mac4"]["changed"] == 0, changed_tasks(proc.stdout)
    assert "macos_build_mismatch" in proc.stdout and "25C57" in proc.stdout and "Software Update" in proc.stdout
    # mac1 and mac2 go through every step: converged as the cluster that answered (their plan and
    # hostfiles cover the two of them), never half-done
    assert counts["mac1"]["failed"] == 0 and counts["mac2"]["failed"] == 0, proc.stdout[-6000:]
    ring = json.loads(ssh("mac1", "cat '%s/hostfile-ring.json'" % STATE).stdout)
    assert [h["ssh"] for h in ring["hosts"]] == ["mac1", "mac2"]
    # ... and the cables to the nodes that did not answer keep their addresses for their return
    for host, plan in plans.items():
        for device, end in plan["hosts"][host].items():
            assert "inet %s netmask 0xfffffffc" % end["ip"] in ssh(host, "/sbin/ifconfig %s" % device).stdout, \
                (host, device, changed_tasks(proc.stdout))
    model = report(site)
    nodes = {n["name"]: n for n in model["nodes"]}
    assert nodes["mac3"]["reachable"] is False
    assert nodes["mac4"]["reachable"] is True and nodes["mac4"]["status"] == "error"
    assert [p["host"] for p in problems_of(model, "macos_build_mismatch")] == ["mac4"]
    assert not problems_of(model, "check_failed")  # each failed check is reported once, with its own fix
