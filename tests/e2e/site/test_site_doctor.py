"""doctor.yml on the shared converged lab (issue 17): on a healthy lab it finds nothing, changes
nothing (changed=0, also under --check) and runs no changing command; with faults injected on
different nodes at once and one node down, one sweep finds each on its host and port with the fix,
sweeps the others, and doctor_fail_on decides the exit status while set_stats carries the counts."""
import json
import os
import subprocess

import pytest

from labtools import (HOSTS, INVENTORY, REPO, VENV_BIN, ansible_env, changed_tasks, log_lines, maclab, recap,
                      run_playbook, ssh, sudo, valid_report, wait_until)
from macsim import exo_dist

DOCTOR = os.path.join(REPO, "doctor.yml")
# macOS commands that change a node (as in test_site_faults); doctor.yml must run none of them.
CHANGING = ("networksetup -set", "networksetup -create", "networksetup -remove", "networksetup -delete",
            "ifconfig bridge0 destroy", "sysctl -w", "pmset -a", "launchctl bootstrap", "launchctl bootout",
            "launchctl kickstart", "launchctl enable", "launchctl disable", "softwareupdate -i",
            "softwareupdate --install", "shutdown", "fdesetup enable", "fdesetup disable")


@pytest.fixture(scope="module")
def doctor(converged, tmp_path_factory):
    tmp_dir = str(tmp_path_factory.mktemp("doctor"))
    report_dir = os.path.join(tmp_dir, "report")

    def run(*extra, json_callback=False):
        env = {"ANSIBLE_STDOUT_CALLBACK": "ansible.posix.json", "ANSIBLE_SHOW_CUSTOM_STATS": "true"} \
            if json_callback else {}
        return run_playbook(DOCTOR, "-e", "doctor_report_dir=%s" % report_dir, *extra, workdir=tmp_dir, env=env,
                            timeout=600, check=False)

    def report():
        # Every sweep's report.json follows the one schema (docs/report.schema.json; issue 31 acceptance 1).
        return valid_report(report_dir)

    def connect(host):
        """An SSH connection to host left open (ControlPersist) as the last doctor.yml run leaves it, so the
        next run's commands go over it: a node that hangs then never answers them (task timeouts)."""
        proc = subprocess.run([os.path.join(VENV_BIN, "ansible"), "-i", INVENTORY, host, "-m", "ansible.builtin.ping"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                              env=ansible_env(tmp_dir), timeout=120, cwd=tmp_dir)
        assert proc.returncode == 0, proc.stdout

    run.report = report
    run.connect = connect
    return run


def changing_commands(marks):
    return dict((host, [" ".join(e["argv"]) for e in log_lines(host, "shim.log")[marks[host]:]
                        if any(c in " ".join(e["argv"]) for c in CHANGING)]) for host in HOSTS)


def found(report):
    return set((p["code"], p["host"], p["port"], p["peer"]) for p in report["problems"])


# The applied plan every node's sweep reads (macops_state_dir's default; doctor_plan_file).
PLAN_FILE = "/Library/Application Support/macops/thunderbolt-plan.json"


def plan_reads(read_marks):
    """{host: how many times a Python on it opened the applied plan for reading since the marks}: the
    lab's read.log (lab/macsim/darwin_site/sitecustomize.py); node_facts reads it with open(), no command."""
    return dict((host, len([e for e in log_lines(host, "read.log")[read_marks[host]:] if e["path"] == PLAN_FILE]))
                for host in HOSTS)


def test_a_healthy_lab_has_no_problem_and_the_sweep_changes_nothing(doctor):
    marks = dict((host, len(log_lines(host, "shim.log"))) for host in HOSTS)
    read_marks = dict((host, len(log_lines(host, "read.log"))) for host in HOSTS)
    # With the optional MLX all_sum smoke over the ring hostfile (doctor_mlx_smoke), judged on mac1.
    proc = doctor("-e", "doctor_mlx_smoke=true")
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    report = doctor.report()
    assert report["verdict"] == "healthy" and report["problems"] == [], report["problems"]
    assert report["run"]["playbook"] == "doctor.yml" and report["run"]["started"]
    assert all(recap(proc.stdout)[h]["changed"] == 0 for h in HOSTS), recap(proc.stdout)
    for host in HOSTS:
        assert "%s: healthy" % host in proc.stdout
    checks = dict((c["name"], c) for c in report["nodes"][0]["checks"])
    assert {"thunderbolt_links", "rdma", "wired_limit", "exo", "macos_updates", "macos_build"} <= set(checks)
    assert all(c["ok"] for c in checks.values()), checks
    assert checks["mlx_allsum"]["detail"] == "all_sum over 4 ranks = 10.0 (expected 10.0)", checks["mlx_allsum"]
    assert "exo_node_ids" in checks and checks["exo_node_ids"]["ok"]
    assert checks["firewall"]["detail"].startswith("pf enabled, ") and checks["exo_over_thunderbolt"]["ok"]
    # The doctor's section: every node swept, its one line as the run printed it.
    [section] = report["sections"]
    assert section["operation"] == "doctor" and section["summary"] == ["%s: healthy" % h for h in HOSTS]
    assert all(section["data"]["nodes"][h]["swept"] for h in HOSTS)
    # Every node was swept (its commands are in its shim log) and none of them changes anything.
    assert all(len(log_lines(h, "shim.log")) > marks[h] for h in HOSTS)
    assert changing_commands(marks) == dict((h, []) for h in HOSTS)
    # Issue 31, acceptance 4: the sweep's groups (files, links, network, ssh) share one read of the plan.
    assert plan_reads(read_marks) == dict((h, 1) for h in HOSTS)

    checked = doctor("--check", "--diff")
    assert checked.returncode == 0, checked.stdout[-4000:]
    assert all(recap(checked.stdout)[h]["changed"] == 0 for h in HOSTS), recap(checked.stdout)
    assert changing_commands(marks) == dict((h, []) for h in HOSTS)


@pytest.fixture
def faults(converged):
    """Faults cleared after the test by clear_faults, with the wired limits the test recorded in
    faults["wired"] ({host: limit}); every fault these tests inject is one clearing undoes (none in
    NEEDS_SITE), so no site.yml repair runs."""
    injected = {"wired": {}}
    yield injected
    clear_faults(injected["wired"])


def test_faults_on_different_nodes_and_a_down_node_are_found_in_one_sweep(doctor, faults):
    maclab("fault", "cut", "mac1", "mac3")
    faults["wired"]["mac2"] = wired_limit("mac2")
    maclab("fault", "wired-reset", "mac2")
    maclab("fault", "build", "mac2", "25C99")
    maclab("fault", "autorestart-off", "mac3")
    maclab("fault", "filevault-on", "mac3")
    maclab("fault", "disk-full", "mac1", "2G")
    maclab("fault", "down", "mac4")

    proc = doctor(json_callback=True)
    assert proc.returncode == 2, proc.stdout[-4000:] + proc.stderr[-2000:]
    output = json.loads(proc.stdout)
    report = doctor.report()
    codes = found(report)
    ports = dict(((p["host"], p["code"], p["peer"]), p["port"]) for p in report["problems"])
    # The cut cable, seen from both of its ends, each on its own port toward the other node.
    assert ("tb_link_no_reply", "mac1", ports[("mac1", "tb_link_no_reply", "mac3")], "mac3") in codes
    assert ("tb_link_no_reply", "mac3", ports[("mac3", "tb_link_no_reply", "mac1")], "mac1") in codes
    assert ports[("mac1", "tb_link_no_reply", "mac3")] and ports[("mac3", "tb_link_no_reply", "mac1")]
    assert {("gpu_wired_limit_differs", "mac2", None, None), ("macos_build_mismatch", "mac2", None, None),
            ("power_autorestart_off", "mac3", None, None), ("filevault_on", "mac3", None, None),
            ("disk_space_low", "mac1", None, None), ("node_unreachable", "mac4", None, None)} <= codes
    # No cable to the node that is down is blamed: that node is its own finding.
    assert not [p for p in report["problems"] if p["peer"] == "mac4"]
    assert all(p["fix"] and p["message"] for p in report["problems"])

    stats = output["global_custom_stats"]["doctor"]
    assert stats["healthy"] is False and stats["unreachable"] == ["mac4"]
    # The artifact is the report's own stats: one verdict, the sweep's time (issue 31).
    assert stats["verdict"] == report["verdict"] == "failed" and stats["started"] == report["run"]["started"]
    assert stats["errors"] == len([p for p in report["problems"] if p["severity"] == "error"])
    assert stats["warnings"] == len([p for p in report["problems"] if p["severity"] == "warning"])
    assert set(stats["codes"]) == set(p["code"] for p in report["problems"])
    assert {"gpu_wired_limit_differs", "macos_build_mismatch"} <= set(stats["hosts"]["mac2"]["codes"])
    summaries = [m for play in output["plays"] for task in play["tasks"]
                 if task["task"]["name"].endswith("Show one line per node")
                 for m in task["hosts"]["mac1"]["msg"]]
    assert summaries[3] == "mac4: NOT SWEPT (unreachable)" and summaries[1].startswith("mac2: ")

    # doctor_fail_on: never ends well with the same findings; warning fails on them too.
    never = doctor("-e", "doctor_fail_on=never")
    assert never.returncode == 0, never.stdout[-4000:]
    assert "gpu_wired_limit_differs" in never.stdout and all(recap(never.stdout)[h]["changed"] == 0 for h in HOSTS)


def reboot_now(host):
    """Reboot a node as a person would over SSH; the session ends with it."""
    sudo(host, "/sbin/shutdown -r now", check=False, timeout=30)
    wait_until(lambda: ssh(host, "true", check=False, timeout=10).returncode != 0, 30, message="%s going down" % host)


# The lab's exo distributions (lab/macsim/exo_dist.py): the pin and the release before it.
PINNED_EXO = exo_dist.pinned_version()
OLDER_EXO = exo_dist.other_version(PINNED_EXO)
EXO_VERSION = "/opt/macops/exo-venv/bin/python -c 'import importlib.metadata as m; print(m.version(\"exo\"))'"


def test_exo_is_installed_at_its_pin_and_site_upgrades_a_node_left_behind(doctor, site, faults):
    # The exo role's pinned install, from the lab's index (the stand-in's distribution, as a
    # cluster's own index would serve exo), on every node.
    assert dict((h, ssh(h, EXO_VERSION).stdout.strip()) for h in HOSTS) == dict((h, PINNED_EXO) for h in HOSTS)
    maclab("fault", "exo-version", "mac4", OLDER_EXO)
    assert ssh("mac4", EXO_VERSION).stdout.strip() == OLDER_EXO
    doctor()
    report = doctor.report()
    assert {("software_pin_mismatch", "mac4", None, None), ("software_version_mismatch", "mac4", None, None),
            ("service_not_running", "mac4", None, None)} <= found(report)
    assert set(p["host"] for p in report["problems"]) == {"mac4"}, report["problems"]
    assert all(p["fix"] and p["message"] for p in report["problems"])
    # The split is real: mac4's exo, in its own version's namespace, lists only itself.
    mac4 = [p for p in report["problems"] if p["code"] == "service_not_running" and p["host"] == "mac4"][0]
    assert mac4["details"]["nodes_seen"] == 1, mac4

    # site.yml --tags exo alone would have pip ask PyPI, not the lab's index (python_env, which writes pip's settings
    # for it, does not run): the install refuses and says what to run, and mac4 keeps its exo.
    alone = site("--tags", "exo", check=False)
    assert alone.returncode != 0 and "site.yml --tags python_env,exo" in " ".join(alone.stdout.split()), \
        alone.stdout[-4000:]
    assert ssh("mac4", EXO_VERSION).stdout.strip() == OLDER_EXO
    # site.yml --tags python_env,exo, the fix the finding names, upgrades mac4 to the pin (pip, then exo restarted)
    # and changes nothing elsewhere.
    proc = site("--tags", "python_env,exo", check=False)
    assert proc.returncode == 0, proc.stdout[-6000:]
    changed = changed_tasks(proc.stdout)
    assert "macops.cluster.exo : Install the pinned exo into its own environment" in changed["mac4"], changed
    # mac1 also writes the cluster report (run once), which now tells another story.
    assert [t for h in ("mac1", "mac2", "mac3") for t in changed.get(h, []) if "report :" not in t] == [], changed
    assert ssh("mac4", EXO_VERSION).stdout.strip() == PINNED_EXO
    healthy = doctor()
    assert healthy.returncode == 0 and doctor.report()["problems"] == [], doctor.report()["problems"]


# Each lab fault: (fault arguments, what doctor.yml must find as (code, host, peer), the hosts any
# problem may be on: the fault's node and, where it breaks cables, its peers). Every fault is its
# own test; faults whose hosts do not overlap share one sweep (SWEEPS), so each problem the sweep
# finds belongs to the one fault whose hosts hold it, and one sweep judges four faults at once.
ALL = set(HOSTS)
FAULTS = [
    (("cut", "mac1", "mac3"), {("tb_link_no_reply", "mac1", "mac3"), ("tb_link_no_reply", "mac3", "mac1")},
     {"mac1", "mac3"}),
    (("degrade", "mac2", "mac4"), {("tb_link_tb4_speed", "mac2", "mac4")}, {"mac2", "mac4"}),
    # The jaccl hostfiles promise RDMA, so it is checked though macops_rdma_required is off; the
    # peers' RDMA ports toward mac2 go down with it, as on Macs.
    (("rdma-off", "mac2"), {("rdma_disabled", "mac2", None)}, ALL),
    (("build", "mac2", "25C99"), {("macos_build_mismatch", "mac2", None)}, {"mac2"}),
    # The bridge takes every port of mac2, so its peers' cables to it fail too.
    (("bridge-on", "mac2"), {("tb_bridge_on", "mac2", None)}, ALL),
    (("disk-full", "mac1", "2G"), {("disk_space_low", "mac1", None)}, {"mac1"}),
    (("wired-reset", "mac2"), {("gpu_wired_limit_differs", "mac2", None)}, {"mac2"}),
    (("filevault-on", "mac3"), {("filevault_on", "mac3", None)}, {"mac3"}),
    (("filevault-pending", "mac3"), {("filevault_on", "mac3", None)}, {"mac3"}),
    (("down", "mac4"), {("node_unreachable", "mac4", None)}, {"mac4"}),
    # Faults that show at the next boot: the node is rebooted, and doctor.yml sweeps it gone
    # (no-return) or still booting (slow-boot): unreachable either way, the others swept.
    (("no-return", "mac2"), {("node_unreachable", "mac2", None)}, {"mac2"}),
    # The sweep meets mac4 dark, or half booted with its cables already lit (its peers' ports then
    # report a Mac the planner cannot place): mac4's finding either way, none on its peers.
    (("slow-boot", "mac4", "20"), {("node_unreachable", "mac4", None)}, {"mac4"}),
    # mac2 hung with power on: its cables stay lit, SSH gets no banner (or an open connection never
    # answers, to the sweep's time limit). mac2 is not answering; its peers' ports toward it are not theirs.
    (("hang", "mac2"), {("node_unreachable", "mac2", None), ("node_not_answering", "mac2", None)}, {"mac2"}),
    (("sleep-on", "mac2"), {("power_sleep_on", "mac2", None)}, {"mac2"}),
    (("autorestart-off", "mac3"), {("power_autorestart_off", "mac3", None)}, {"mac3"}),
    (("auto-update-on", "mac1"), {("macos_auto_update_on", "mac1", None)}, {"mac1"}),
    # macOS's default: security responses install in the background, macOS updates do not.
    (("security-auto-on", "mac2"), {("macos_auto_update_on", "mac2", None)}, {"mac2"}),
    # ... and then one did: mac4 alone on 26.2 (a), a response's build: the cluster's builds split.
    (("security-response", "mac4"), {("macos_build_mismatch", "mac4", None)}, {"mac4"}),
    (("update-pending", "mac4"), {("macos_update_pending", "mac4", None)}, {"mac4"}),
    (("package-version", "mac2", "mlx", "0.32.3"),
     {("software_pin_mismatch", "mac2", None), ("software_version_mismatch", "mac2", None)}, {"mac2"}),
    # Debian's sudo 1.9.13 skips the broken line (error_recovery) and says so; an older sudo refuses
    # every rule (sudo_rules_inactive): either is found.
    (("sudoers-broken", "mac3"), {("sudoers_syntax_error", "mac3", None)}, {"mac3"}),
    # mac2's key is gone: every peer fails to reach it, by name and over its cable to mac2.
    (("ssh-key-lost", "mac2"), {("ssh_peer_unreachable", "mac1", "mac2"), ("ssh_peer_unreachable", "mac3", "mac2"),
                                ("ssh_peer_unreachable", "mac4", "mac2")}, {"mac1", "mac3", "mac4"}),
    # A drive on a free port is no problem: the report lists it on its port (test_site_devices).
    (("ssd", "mac1", "6"), set(), set()),
    # (exo-version, a node on the exo release before the pin, is the pin test's fault above: doctor.yml
    # finds it there, and site.yml, not `fault clear`, repairs it.)
    # mac2's exo comes back with a new id: every peer still lists the old one (exo #2194).
    (("exo-stale-id", "mac2"), {("exo_stale_node_id", "mac1", None), ("exo_stale_node_id", "mac3", None),
                                ("exo_stale_node_id", "mac4", None)}, {"mac1", "mac3", "mac4"}),
    (("pf-off", "mac1"), {("firewall_pf_disabled", "mac1", None)}, {"mac1"}),
    # exo's port dropped on mac2's cables: every peer's exo fails to reach it over its cable to mac2.
    (("exo-port-blocked", "mac2"), {("exo_port_unreachable", "mac1", "mac2"), ("exo_port_unreachable", "mac3", "mac2"),
                                    ("exo_port_unreachable", "mac4", "mac2")}, {"mac1", "mac3", "mac4"}),
    # `fault clear` stops the daemon but leaves the addresses it reset (their sweep's site.yml puts
    # them back), as on a Mac. exo gone from mac3, its networksetup daemon left behind: its peers
    # still list mac3's exo id.
    (("exo-removed", "mac3"), {("tb_exo_networksetup_daemon", "mac3", None), ("service_not_running", "mac3", None),
                               ("exo_stale_node_id", "mac1", None)}, ALL),
    (("ip-reset", "mac4"), {("tb_exo_networksetup_daemon", "mac4", None), ("tb_address_differs", "mac4", None)}, ALL),
]
FAULT = dict((f[0][0], f) for f in FAULTS)
# The sweeps, in order: faults on disjoint hosts that cannot interfere share one. Faults whose
# problems may be on every node share a sweep only with each other, and only where each expects its
# problems on hosts the others expect none on (exo's two daemon faults, which both need site.yml to
# repair: one repair for both). The boot faults reboot their nodes first (the nodes that
# stay up hold faults of their own meanwhile); the hung node is waited for at most doctor_node_timeout
# (a short one keeps its sweep short), so it shares its sweep with faults that leave every cable lit
# (its lit cables are asserted).
SWEEPS = [
    ("settings", ["disk-full", "wired-reset", "filevault-on", "update-pending"]),
    ("power", ["auto-update-on", "sleep-on", "autorestart-off", "down"]),
    ("hang", ["ssd", "hang", "filevault-pending", "security-response"]),
    ("cables", ["cut", "degrade"]),
    ("boots", ["no-return", "slow-boot", "pf-off", "sudoers-broken"]),
    ("ssh-key", ["ssh-key-lost", "security-auto-on"]),
    ("exo-stale-id", ["exo-stale-id", "package-version"]),
    ("exo-port", ["exo-port-blocked", "build"]),
    ("rdma-off", ["rdma-off"]),
    ("bridge-on", ["bridge-on"]),
    ("exo-daemons", ["exo-removed", "ip-reset"]),
]
# The sweeps set up so far: each must run once (its faults judged in one doctor.yml run).
SWEEPS_RUN = []
# Faults that `maclab fault clear` does not fully undo on a Mac either: site.yml converges after them.
NEEDS_SITE = {"exo-removed", "ip-reset"}
# What site.yml needs to undo them (a removed exo, installed with the package index python_env gives pip; reset
# Thunderbolt addresses): only those roles run, beside the steps every run takes (the checks, the plan, the report).
REPAIR_TAGS = "python_env,exo,thunderbolt_network"
WIRED = "/usr/sbin/sysctl -n iogpu.wired_limit_mb"


def wired_limit(host):
    return ssh(host, WIRED).stdout.strip()


def exo_sees_the_cluster():
    """Every node's exo lists exactly the ids the nodes have now (a fault's undo may have restarted
    exo with a new id, which its peers learn over a few seconds while still listing the old one): the
    next sweep starts from a settled cluster, with no stale id left from this one."""
    try:
        ids = set(json.loads(ssh(host, "curl -s --max-time 2 http://127.0.0.1:52415/node_id", check=False).stdout)
                  for host in HOSTS)
        listed = [set(json.loads(ssh(host, "curl -s --max-time 2 http://127.0.0.1:52415/state",
                                     check=False).stdout)["topology"]["nodes"]) for host in HOSTS]
    except (ValueError, KeyError, TypeError):
        return False
    return len(ids) == len(HOSTS) and all(nodes == ids for nodes in listed)


def clear_faults(wired, repair=None):
    """After a test's faults: clear them, wait for every powered-on node, put back the wired limits
    ({host: limit}) a wired-reset took (no recorded fault holds them), run repair (site.yml) where
    clearing does not undo a fault (NEEDS_SITE), then let exo settle: the next test starts from a
    settled cluster."""
    maclab("fault", "clear")
    maclab("wait", "--timeout", "120", timeout=180)
    for host, limit in wired.items():
        sudo(host, "/usr/sbin/sysctl -w iogpu.wired_limit_mb=%s" % limit)
    if repair is not None:
        repair()
    # Each look is eight SSH commands: once a second, not five times (the lanes share two cores).
    wait_until(exo_sees_the_cluster, 60, interval=1, message="every exo seeing the cluster again")


def test_the_sweeps_cover_every_fault_once_on_disjoint_hosts():
    """Every lab fault is in exactly one sweep, and a sweep's faults never share a host their
    problems may be on: what a sweep finds on a host belongs to one fault. Faults whose problems may
    be on every node share a sweep only with each other, each expecting its problems on its own hosts."""
    swept = [name for _, names in SWEEPS for name in names]
    assert sorted(swept) == sorted(FAULT) and len(swept) == len(set(swept))
    for sweep, names in SWEEPS:
        if all(FAULT[name][2] == ALL for name in names):
            hosts = [h for name in names for h in set(host for _, host, _ in FAULT[name][1])]
        else:
            hosts = [h for name in names for h in FAULT[name][2]]
        assert len(hosts) == len(set(hosts)), (sweep, names)


@pytest.fixture(scope="module")
def sweep(request, doctor, converged, site):
    """One doctor.yml sweep with the sweep's faults injected together (request.param names it);
    afterwards the faults are cleared and the cluster settled before the next sweep."""
    names = dict(SWEEPS)[request.param]
    assert request.param not in SWEEPS_RUN, "sweep %s set up twice: its tests are not consecutive" % request.param
    SWEEPS_RUN.append(request.param)
    wired = dict((FAULT[n][0][1], wired_limit(FAULT[n][0][1])) for n in names if n == "wired-reset")
    try:
        if "hang" in names:
            # The hung node over a connection the sweep already holds: its timed-out commands must not
            # drop it from the judgement (a stale exo id on every peer otherwise).
            doctor.connect(FAULT["hang"][0][1])
        for name in names:
            maclab("fault", *FAULT[name][0])
        for name in names:
            if name in ("no-return", "slow-boot"):
                reboot_now(FAULT[name][0][1])
        # A hung node is waited for at most doctor_node_timeout: a short one keeps this sweep short.
        proc = doctor(*(("-e", "doctor_node_timeout=25") if "hang" in names else ()))
        report = doctor.report()
        yield {"proc": proc, "report": report,
               "hosts": set().union(*(FAULT[n][2] for n in names)), "names": names}
    finally:
        repair = (lambda: site("--tags", REPAIR_TAGS, check=False)) if NEEDS_SITE & set(names) else None
        clear_faults(wired, repair=repair)


# Module-scoped parameters, in the order of SWEEPS: a function-scoped parametrization would set the
# module-scoped sweep up again for every test (each fault its own doctor.yml run); so each sweep runs once.
@pytest.mark.parametrize("sweep, name", [(sweep, name) for sweep, names in SWEEPS for name in names],
                         indirect=["sweep"], ids=[name for _, names in SWEEPS for name in names], scope="module")
def test_each_lab_fault_is_found_on_its_host_with_the_fix(sweep, name):
    fault, expected, hosts = FAULT[name]
    proc, report = sweep["proc"], sweep["report"]
    found = set((p["code"], p["host"], p["peer"]) for p in report["problems"])
    assert expected <= found, (fault, sweep["names"], found, proc.stdout[-3000:])
    # No problem off the hosts of the sweep's faults; this fault's hosts are its own in the sweep.
    assert set(p["host"] for p in report["problems"]) <= sweep["hosts"], "%s: problems off %s:\n%s" % (
        sweep["names"], sorted(sweep["hosts"]), "\n".join(
            "%s %s %s: %s" % (p["code"], p["host"], p["peer"], p["message"])
            for p in report["problems"] if p["host"] not in sweep["hosts"]))
    mine = [p for p in report["problems"] if p["host"] in hosts]
    assert all(p["fix"] and p["message"] for p in mine)
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    assert proc.returncode == (2 if errors else 0), proc.stdout[-3000:]
    if name == "ssd":
        devices = [node for node in report["nodes"] if node["name"] == "mac1"][0]["thunderbolt"]["devices"]
        assert [d["name"] for d in devices] == ["Envoy Ultra"]
    if name == "hang":
        # Each peer's cable to mac2 is named as lit, on its own port.
        hung = [p for p in report["problems"] if p["code"] == "node_not_answering"][0]
        assert sorted(c["peer"] for c in hung["details"]["lit_cables"]) == ["mac1", "mac3", "mac4"], hung
        assert all(c["port"] for c in hung["details"]["lit_cables"]), hung
    if name in ("cut", "degrade"):
        # The cable's own port on each end it is found from.
        assert all(p["port"] for p in mine if p["peer"])
