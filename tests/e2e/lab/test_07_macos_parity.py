"""Acceptance 7: what role authors found missing in the lab (issue 3): host keys in /etc/ssh,
Remote Login on every address (SSH over Thunderbolt), per-host pf files and pfctl, xcode-select,
`brew install uv`, FileVault with `fdesetup authrestart`, and slow boots."""
import hashlib
import os
import shutil
import time

import pytest

from labtools import ROOT, maclab, read_json, ssh, sudo, wait_until

TB_SUBNET_ENDS = ("198.19.250.1", "198.19.250.2")
TB_MASK = "255.255.255.252"


def power(host):
    return read_json("hosts", host, "run", "power.json")["state"]


def boot_count(host):
    return read_json("hosts", host, "state.json")["boot"]["count"]


def wait_booted(host, after_count, timeout=60):
    wait_until(lambda: boot_count(host) > after_count and power(host) == "on"
               and ssh(host, "true", check=False).returncode == 0, timeout, interval=0.5,
               message="%s back after a reboot" % host)


def digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def service_of(host, device):
    state = read_json("hosts", host, "state.json")
    return next(s["name"] for s in state["network"]["services"] if s["device"] == device)


@pytest.fixture
def cleared(lab):
    yield
    maclab("fault", "clear")
    maclab("wait", "--timeout", "60")


def test_host_keys_live_in_etc_ssh(lab):
    machine_keys = {name: digest(os.path.join("/etc/ssh", name)) for name in os.listdir("/etc/ssh")
                    if os.path.isfile(os.path.join("/etc/ssh", name))}
    with open(os.path.join(ROOT, "controller", "known_hosts")) as handle:
        pinned = {line.split()[0].split(",")[0]: " ".join(line.split()[1:3]) for line in handle if line.strip()}
    for host in ("mac1", "mac3"):
        served = ssh(host, "cat /etc/ssh/ssh_host_ed25519_key.pub").stdout.split()
        assert " ".join(served[:2]) == pinned[host]
        listing = ssh(host, "ls /etc/ssh").stdout.split()
        assert "sshd_config" in listing and "ssh_host_rsa_key" not in listing  # only the host's own
    # The machine's own /etc/ssh is neither changed nor shown to the hosts.
    assert {name: digest(os.path.join("/etc/ssh", name)) for name in machine_keys} == machine_keys


def test_remote_login_answers_over_thunderbolt(lab):
    cable = next(c for c in read_json("lab.json")["cables"] if {c["a"], c["b"]} == {"mac1", "mac2"})
    ends = {cable["a"]: cable["a_device"], cable["b"]: cable["b_device"]}
    addresses = dict(zip(("mac1", "mac2"), TB_SUBNET_ENDS))
    key = "/Users/admin/.ssh/id_tb_probe"
    try:
        for host in ("mac1", "mac2"):
            sudo(host, "networksetup -setnetworkserviceenabled 'Thunderbolt Bridge' off && "
                       "networksetup -setmanual '%s' %s %s" % (service_of(host, ends[host]), addresses[host], TB_MASK))
        ssh("mac1", "ssh-keygen -q -t ed25519 -N '' -C tb-probe -f %s" % key)
        public = ssh("mac1", "cat %s.pub" % key).stdout.strip()
        ssh("mac2", "echo '%s' >> ~/.ssh/authorized_keys" % public)
        proc = ssh("mac1", "ssh -i %s -o BatchMode=yes -o StrictHostKeyChecking=accept-new "
                           "-o UserKnownHostsFile=/tmp/tb-known-hosts admin@%s hostname; "
                           "cat /tmp/tb-known-hosts" % (key, addresses["mac2"]))
        lines = proc.stdout.splitlines()
        assert lines[0] == "mac2"
        served = ssh("mac2", "cat /etc/ssh/ssh_host_ed25519_key.pub").stdout.split()[1]
        assert served in lines[1]  # the Thunderbolt address serves mac2's own host key
    finally:
        ssh("mac2", "grep -v ' tb-probe$' ~/.ssh/authorized_keys > ~/.ssh/ak.tmp; "
                    "mv ~/.ssh/ak.tmp ~/.ssh/authorized_keys; chmod 600 ~/.ssh/authorized_keys", check=False)
        ssh("mac1", "rm -f %s %s.pub /tmp/tb-known-hosts" % (key, key), check=False)
        for host in ("mac1", "mac2"):
            sudo(host, "networksetup -setdhcp '%s'; networksetup -setnetworkserviceenabled "
                       "'Thunderbolt Bridge' on" % service_of(host, ends[host]), check=False)
    # The lab's controller key still works after the cleanup.
    assert ssh("mac2", "hostname").stdout.strip() == "mac2"


def test_pf_files_are_per_host_and_pfctl_keeps_state(lab):
    assert not os.path.exists("/etc/pf.conf") and not os.path.exists("/etc/pf.anchors")
    assert 'load anchor "com.apple" from "/etc/pf.anchors/com.apple"' in ssh("mac3", "cat /etc/pf.conf").stdout
    assert ssh("mac3", "pfctl -s info", check=False).stderr == "pfctl: /dev/pf: Permission denied\n"
    assert sudo("mac3", "pfctl -s info").stdout.startswith("Status: Disabled")
    # A become task edits pf.conf the way the firewall role does (temp file + rename).
    sudo("mac3", "printf 'block drop in quick proto tcp from any to any port 9\\n' > /etc/pf.anchors/probe && "
                 "cp /etc/pf.conf /etc/.pf.tmp && printf 'anchor \"probe\"\\nload anchor \"probe\" from "
                 "\"/etc/pf.anchors/probe\"\\n' >> /etc/.pf.tmp && pfctl -nf /etc/.pf.tmp && "
                 "mv /etc/.pf.tmp /etc/pf.conf")
    enabled = sudo("mac3", "pfctl -E -f /etc/pf.conf").stdout.splitlines()
    assert enabled[0] == "pf enabled" and enabled[1].startswith("Token : ")
    assert sudo("mac3", "pfctl -a probe -s rules").stdout == \
        "block drop in quick proto tcp from any to any port = 9\n"
    assert "probe" not in ssh("mac4", "cat /etc/pf.conf").stdout
    assert not os.path.exists("/etc/pf.anchors/probe") and not os.path.exists("/etc/pf.conf")
    garbage = sudo("mac3", "echo 'pass inn all' > /tmp/bad.pf && pfctl -nf /tmp/bad.pf", check=False)
    assert garbage.returncode == 1 and "syntax error" in garbage.stderr
    assert sudo("mac3", "pfctl -a probe -F all && pfctl -a probe -s rules").stdout == ""
    assert sudo("mac3", "pfctl -d").returncode == 0


def test_xcode_select_and_brew_install_uv(lab):
    assert ssh("mac2", "xcode-select -p").stdout == "/Library/Developer/CommandLineTools\n"
    install = ssh("mac2", "xcode-select --install", check=False)
    assert install.returncode == 1 and "already installed" in install.stderr
    brew = ssh("mac2", "/opt/homebrew/bin/brew install uv", check=False)
    if shutil.which("uv") is None:
        assert brew.returncode == 1 and "uv is not available in the lab's package source" in brew.stderr
        assert ssh("mac2", "test -e /opt/homebrew/bin/uv", check=False).returncode == 1
    else:
        assert brew.returncode == 0, brew.stderr
        assert ssh("mac2", "/opt/homebrew/bin/uv --version").stdout.startswith("uv ")


def test_filevault_unlock_screen_and_authrestart(lab, cleared):
    off = sudo("mac3", "fdesetup authrestart", check=False)
    assert off.returncode == 1 and "FileVault is Off." in off.stderr
    maclab("fault", "filevault-on", "mac3")
    assert ssh("mac3", "fdesetup status").stdout == "FileVault is On.\n"
    count = boot_count("mac3")
    assert sudo("mac3", "fdesetup authrestart").returncode == 0
    wait_booted("mac3", count)  # authrestart skips the unlock screen
    count = boot_count("mac3")
    sudo("mac3", "shutdown -r now")
    wait_until(lambda: power("mac3") == "locked", 30, message="mac3 at the unlock screen")
    time.sleep(2)
    assert power("mac3") == "locked" and boot_count("mac3") == count
    maclab("fault", "clear")  # types the password and turns FileVault off again
    wait_booted("mac3", count)
    assert ssh("mac3", "fdesetup status").stdout == "FileVault is Off.\n"


def test_slow_boot_and_pf_off_after_boot(lab, cleared):
    default_seconds = read_json("hosts", "mac4", "state.json")["boot"]["boot_seconds"]
    maclab("fault", "slow-boot", "mac4", "9")
    assert read_json("hosts", "mac4", "state.json")["boot"]["boot_seconds"] == 9
    sudo("mac4", "pfctl -E")
    count = boot_count("mac4")
    sudo("mac4", "shutdown -r now")
    wait_until(lambda: power("mac4") == "rebooting", 20, interval=0.1, message="mac4 going down")
    dark_since = time.time()
    wait_until(lambda: power("mac4") != "rebooting", 30, interval=0.1, message="mac4 powering on")
    assert time.time() - dark_since >= 8.5
    wait_booted("mac4", count)
    # pf is kernel state: off after a boot, /etc/pf.conf's anchors loaded again.
    assert sudo("mac4", "pfctl -s info").stdout.startswith("Status: Disabled")
    assert 'anchor "com.apple/*" all' in sudo("mac4", "pfctl -s rules").stdout
    maclab("fault", "clear")
    assert read_json("hosts", "mac4", "state.json")["boot"]["boot_seconds"] == default_seconds
