"""Acceptance 6: every `maclab fault` shows in what the host's macOS commands report (the shim)
and in the live links; `maclab fault clear` puts everything back."""
import json
import os
import subprocess
import time

import pytest

from labtools import LINK_RATE, ROOT, in_netns, maclab, read_json, ssh, tc_rate, wait_until
from macsim import topology


@pytest.fixture(autouse=True)
def cleared(lab):
    yield
    maclab("fault", "clear")
    maclab("wait", "--timeout", "60")


@pytest.fixture
def root_shell(ansible):
    def run(host, command):
        proc = ansible(host, "ansible.builtin.shell", command, become=True)
        return proc.stdout
    return run


def buses(host):
    data = json.loads(ssh(host, "system_profiler SPThunderboltDataType -json").stdout)
    return {int(b["receptacle_1_tag"]["receptacle_id_key"]): b for b in data["SPThunderboltDataType"]}


def cable(a, b):
    return next(c for c in read_json("lab.json")["cables"] if {c["a"], c["b"]} == {a, b})


def link(host, device):
    return json.loads(in_netns(host, "ip", "-j", "addr", "show", "dev", device))[0]


def bridge_members(host):
    return {l["ifname"] for l in json.loads(in_netns(host, "ip", "-j", "link", "show", "master", "bridge0"))}


def power(host):
    return read_json("hosts", host, "run", "power.json")["state"]


def test_cut_unplugs_and_clear_replugs_with_config_kept(lab):
    c = cable("mac1", "mac2")
    port, device = c["a_port"], c["a_device"]
    in_netns("mac1", "ip", "addr", "add", "198.19.0.1/30", "dev", device)
    assert buses("mac1")[port]["_items"]
    maclab("fault", "cut", "mac1", "mac2")
    bus = buses("mac1")[port]
    assert not bus.get("_items") and bus["receptacle_1_tag"]["current_speed_key"] == "Up to 120 Gb/s"
    assert "NO-CARRIER" in link("mac1", device)["flags"]
    assert "NO-CARRIER" in link("mac2", c["b_device"])["flags"]
    assert read_json("lab.json")["cables"][c["id"] - 1]["state"] == "cut"
    maclab("fault", "clear")
    restored = link("mac1", device)
    assert "LOWER_UP" in restored["flags"]
    assert "198.19.0.1" in [a["local"] for a in restored["addr_info"]]  # a replug keeps the config
    assert buses("mac1")[port]["_items"]
    in_netns("mac1", "ip", "addr", "del", "198.19.0.1/30", "dev", device)


def test_degrade_reports_tb4_and_lowers_the_rate(lab):
    c = cable("mac2", "mac3")
    maclab("fault", "degrade", "mac2", "mac3")
    assert buses("mac2")[c["a_port"]]["receptacle_1_tag"]["current_speed_key"] == "40 Gb/s"
    assert "rate %s" % tc_rate(topology.tb4_rate(LINK_RATE)) in in_netns("mac3", "tc", "qdisc", "show", "dev", c["b_device"])
    maclab("fault", "clear")
    assert buses("mac2")[c["a_port"]]["receptacle_1_tag"]["current_speed_key"] == "80 Gb/s"
    assert "rate %s" % tc_rate(LINK_RATE) in in_netns("mac3", "tc", "qdisc", "show", "dev", c["b_device"])


def _wait_booted(host, mode):
    path = os.path.join(ROOT, "hosts", host, "run", "booted")
    def booted():
        try:
            with open(path) as handle:
                return handle.read().strip() == mode
        except OSError:
            return False
    wait_until(booted, 60, message="%s booted in %s mode" % (host, mode))


def _rdma_ctl_in_recovery(host, verb):
    """What an owner does by hand: boot into Recovery, `rdma_ctl <verb>`, restart."""
    maclab("recovery", host)
    _wait_booted(host, "recovery")
    assert ssh(host, "true", check=False, timeout=10).returncode != 0  # no Remote Login in recoveryOS
    before = read_json("hosts", host, "state.json")["rdma"]["enabled"]
    maclab("ssh", host, "--", "rdma_ctl", verb)
    assert read_json("hosts", host, "state.json")["rdma"]["enabled"] is before  # applied at next boot
    maclab("ssh", host, "--", "shutdown", "-r", "now")
    _wait_booted(host, "normal")
    maclab("wait", "--timeout", "30")


def test_rdma_changes_only_through_recovery_and_rdma_off_fault_disables_it(lab):
    assert ssh("mac3", "rdma_ctl status").stdout.strip() == "enabled"  # the reference cluster
    assert ssh("mac3", "rdma_ctl disable", check=False).returncode != 0  # not outside Recovery
    _rdma_ctl_in_recovery("mac3", "disable")
    assert ssh("mac3", "rdma_ctl status").stdout.strip() == "disabled"
    _rdma_ctl_in_recovery("mac3", "enable")
    assert ssh("mac3", "rdma_ctl status").stdout.strip() == "enabled"
    maclab("fault", "rdma-off", "mac3")
    assert ssh("mac3", "rdma_ctl status").stdout.strip() == "disabled"
    maclab("fault", "clear")
    assert ssh("mac3", "rdma_ctl status").stdout.strip() == "enabled"


def test_build_mismatch(lab):
    maclab("fault", "build", "mac4", "25C57")
    assert ssh("mac4", "sw_vers -buildVersion").stdout.strip() == "25C57"
    assert ssh("mac1", "sw_vers -buildVersion").stdout.strip() == "25C56"
    maclab("fault", "clear")
    assert ssh("mac4", "sw_vers -buildVersion").stdout.strip() == "25C56"


def test_bridge_on_brings_the_bridge_back(lab, root_shell):
    root_shell("mac4", "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off")
    assert bridge_members("mac4") == set()
    maclab("fault", "bridge-on", "mac4")
    assert bridge_members("mac4") == {"en2", "en3", "en4", "en5", "en6", "en7"}
    assert ssh("mac4", "networksetup -getnetworkserviceenabled 'Thunderbolt Bridge'").stdout.strip() == "Enabled"
    maclab("fault", "clear")
    assert ssh("mac4", "networksetup -getnetworkserviceenabled 'Thunderbolt Bridge'").stdout.strip() == "Disabled"
    assert bridge_members("mac4") == set()
    root_shell("mac4", "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' on")


def test_ip_reset_daemon_keeps_resetting_thunderbolt_services(lab, root_shell):
    c = cable("mac1", "mac3")
    service = "Thunderbolt %d" % c["a_port"]
    root_shell("mac1", "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off && "
                       "networksetup -setmanual '%s' 198.19.0.5 255.255.255.252" % service)
    assert "198.19.0.5" in [a["local"] for a in link("mac1", c["a_device"])["addr_info"]]
    maclab("fault", "ip-reset", "mac1")
    assert "state = running" in ssh("mac1", "launchctl print system/io.exo.networksetup").stdout

    def reset():
        services = read_json("hosts", "mac1", "state.json")["network"]["services"]
        method = next(s for s in services if s["name"] == service)["ipv4"]["method"]
        return method == "dhcp" and "198.19.0.5" not in [a["local"] for a in link("mac1", c["a_device"])["addr_info"]]
    wait_until(reset, 20, message="the exo-style daemon to reset %s" % service)
    maclab("fault", "clear")
    assert ssh("mac1", "launchctl print system/io.exo.networksetup", check=False).returncode == 113
    assert not os.path.exists(os.path.join(ROOT, "hosts", "mac1", "fs", "Library", "LaunchDaemons",
                                           "io.exo.networksetup.plist"))
    root_shell("mac1", "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' on")


def test_down_and_up_power_the_host(lab):
    c = cable("mac1", "mac3")
    maclab("fault", "down", "mac3")
    wait_until(lambda: power("mac3") == "off", 15, message="mac3 off")
    assert "NO-CARRIER" in link("mac1", c["a_device"])["flags"]  # the peer sees the cable go dark
    assert ssh("mac3", "true", check=False, timeout=10).returncode != 0
    maclab("fault", "up", "mac3")
    wait_until(lambda: power("mac3") == "on", 15, message="mac3 on")
    maclab("wait", "--timeout", "30")
    assert "LOWER_UP" in link("mac1", c["a_device"])["flags"]


def end_of(c, host):
    """(port, device) of ``host``'s end of the cable ``c``."""
    side = "a" if c["a"] == host else "b"
    return int(c[side + "_port"]), c[side + "_device"]


def test_hang_stops_the_host_with_its_cables_lit_and_clear_resumes_it(lab):
    port, device = end_of(cable("mac1", "mac3"), "mac1")
    peer_bus = buses("mac1")[port]
    maclab("fault", "hang", "mac3")
    # No banner: a new connection times out (ConnectTimeout covers the banner exchange).
    proc = subprocess.run(["ssh", "-F", os.path.join(ROOT, "controller", "ssh_config"), "-o", "ControlPath=none",
                           "-o", "ConnectTimeout=3", "mac3", "--", "true"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode == 255 and "banner" in proc.stderr.lower(), proc.stderr
    # Powered and hung: the cable stays lit, and mac1 still reports mac3 on that port.
    assert "LOWER_UP" in link("mac1", device)["flags"]
    assert buses("mac1")[port] == peer_bus
    assert power("mac3") == "on"
    maclab("fault", "clear")
    assert ssh("mac3", "true", timeout=30).returncode == 0


def test_no_return_keeps_the_host_dark_until_clear(lab, root_shell):
    maclab("fault", "no-return", "mac4")
    boots = read_json("hosts", "mac4", "state.json")["boot"]["count"]
    root_shell("mac4", "shutdown -r now")
    wait_until(lambda: power("mac4") == "no-return", 20, message="mac4 dark")
    time.sleep(read_json("lab.json")["boot_seconds"] + 1)
    assert power("mac4") == "no-return"
    assert read_json("hosts", "mac4", "state.json")["boot"]["count"] == boots
    maclab("fault", "clear")
    wait_until(lambda: power("mac4") == "on", 15, message="mac4 back")
    maclab("wait", "--timeout", "30")
    assert read_json("hosts", "mac4", "state.json")["boot"]["count"] == boots + 1


def test_disk_full_shows_in_df(lab):
    maclab("fault", "disk-full", "mac2", "500M")
    available_kib = int(ssh("mac2", "df -k /").stdout.splitlines()[1].split()[3])
    assert available_kib == 500 * 1000 ** 2 // 1024
    maclab("fault", "clear")
    assert int(ssh("mac2", "df -k /").stdout.splitlines()[1].split()[3]) > 10 ** 8


def test_wired_reset(lab, root_shell):
    root_shell("mac1", "sysctl -w iogpu.wired_limit_mb=400000")
    assert ssh("mac1", "sysctl -n iogpu.wired_limit_mb").stdout.strip() == "400000"
    maclab("fault", "wired-reset", "mac1")
    assert ssh("mac1", "sysctl -n iogpu.wired_limit_mb").stdout.strip() == "0"


def test_power_and_update_settings_faults_show_in_pmset_the_plist_and_softwareupdate(lab):
    def pmset(host):
        return dict(line.split() for line in ssh(host, "pmset -g").stdout.splitlines()[2:])

    before = pmset("mac2")
    maclab("fault", "sleep-on", "mac2")
    maclab("fault", "autorestart-off", "mac2")
    assert (pmset("mac2")["sleep"], pmset("mac2")["autorestart"]) == ("10", "0")
    maclab("fault", "auto-update-on", "mac3")
    prefs = "/Library/Preferences/com.apple.SoftwareUpdate.plist"
    assert ssh("mac3", "head -c 8 %s" % prefs).stdout == "bplist00"
    maclab("fault", "update-pending", "mac4")
    listed = ssh("mac4", "softwareupdate --list")
    assert "* Label: macOS Tahoe " in listed.stdout and "Action: restart" in listed.stdout
    maclab("fault", "clear")
    assert pmset("mac2") == before
    assert ssh("mac3", "test -e %s" % prefs, check=False).returncode == 1
    assert "No new software available." in ssh("mac4", "softwareupdate --list").stderr


def test_an_offered_macos_update_installs_over_ssh_and_the_host_restarts_into_its_build(lab):
    """`maclab offer-update`, then softwareupdate --install ... --stdinpass as update-macos.yml runs it: the password
    of the volume owner (the lab's admin) on stdin, the `Downloading:` lines, the restart into the new build.
    update-hang stops after `Downloaded:`; a restart boots the staged build."""
    from macsim import statefile
    label = "macOS Tahoe 26.3-25D60"
    maclab("offer-update", "26.3", "25D60", "mac2", "mac3", "--seconds", "2")
    maclab("fault", "update-hang", "mac3")
    with open(os.path.join(ROOT, "controller", "become_password")) as handle:
        password = handle.read().strip()
    ssh_argv = ["ssh", "-F", os.path.join(ROOT, "controller", "ssh_config")]
    install = ("sudo -S -p '' /usr/sbin/softwareupdate --install '%s' --restart --agree-to-license --user admin "
               "--stdinpass" % label)
    try:
        assert "* Label: %s\n" % label in ssh("mac2", "softwareupdate --list").stdout
        # The password on stdin only (sudo's line, then softwareupdate's): never in a command line.
        done = subprocess.run(ssh_argv + ["mac2", "--", install], input="%s\n%s\n" % (password, password),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        assert "Downloading: 100.00%" in done.stdout and "Downloaded: macOS Tahoe 26.3" in done.stdout, done
        wait_until(lambda: ssh("mac2", "sw_vers -buildVersion", check=False).stdout.strip() == "25D60", 60,
                   interval=1, message="mac2 back on 25D60")
        assert "No new software available." in ssh("mac2", "softwareupdate --list").stderr
        hung = subprocess.Popen(ssh_argv + ["mac3", "--", install], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, universal_newlines=True)
        hung.stdin.write("%s\n%s\n" % (password, password))
        hung.stdin.close()
        wait_until(lambda: "staged_update" in read_json("hosts", "mac3", "state.json"), 30, interval=0.5,
                   message="mac3's update staged")
        time.sleep(2)
        assert hung.poll() is None and ssh("mac3", "sw_vers -buildVersion").stdout.strip() == "25C56"
        subprocess.run(ssh_argv + ["mac3", "--", "sudo -S -p '' /sbin/shutdown -r now"], input=password + "\n",
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, universal_newlines=True, timeout=60)
        hung.wait(60)
        wait_until(lambda: ssh("mac3", "sw_vers -buildVersion", check=False).stdout.strip() == "25D60", 60,
                   interval=1, message="mac3 back on 25D60")
    finally:
        for host in ("mac2", "mac3"):  # back to the lab's build for the tests after this one
            with statefile.editing(os.path.join(ROOT, "hosts", host, "state.json"), os.path.join(ROOT, "hosts", host)) \
                    as state:
                state["os"] = {"version": "26.2", "build": "25C56", "darwin": "25.2.0"}
                state["pending_updates"] = []
                state.pop("staged_update", None)


def test_unknown_host_is_refused(lab):
    proc = maclab("fault", "cut", "mac1", "mac9", check=False)
    assert proc.returncode == 1 and "mac9" in proc.stderr
