"""Acceptance 5: two `ansible.builtin.reboot` runs in a row on one host; volatile state is reset,
persistent state stays, a RunAtLoad LaunchDaemon runs again after each boot."""
import os
import time

from labtools import ROOT, read_json, ssh

HOST = "mac2"
LABEL = "io.maclab.test.sleeper"
PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
  <key>Label</key><string>%s</string>
  <key>ProgramArguments</key><array><string>/bin/sleep</string><string>86400</string></array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
</dict></plist>
""" % LABEL

PLAY = """
- hosts: %(host)s
  gather_facts: false
  become: true
  tasks:
    - name: Daemon that must come back after a reboot
      ansible.builtin.copy:
        dest: /Library/LaunchDaemons/%(label)s.plist
        content: |
%(plist)s
        mode: "0644"
    - ansible.builtin.command: launchctl bootstrap system /Library/LaunchDaemons/%(label)s.plist
    - ansible.builtin.command: sysctl -w iogpu.wired_limit_mb=4096
    - ansible.builtin.shell: echo volatile > /tmp/volatile-marker && echo kept > /Users/admin/persistent-marker
    - ansible.builtin.reboot:
        boot_time_command: sysctl -n kern.bootsessionuuid
        reboot_timeout: 90
    - ansible.builtin.reboot:
        boot_time_command: sysctl -n kern.bootsessionuuid
        reboot_timeout: 90
"""


def _daemon_pid():
    out = ssh(HOST, "launchctl print system/%s" % LABEL).stdout
    assert "state = running" in out, out
    return int(out.split("\tpid = ", 1)[1].split()[0])


def test_two_reboots_in_a_row(ansible):
    before = read_json("hosts", HOST, "state.json")["boot"]
    session_before = read_json("hosts", HOST, "volatile.json")["boot_session_uuid"]
    indented = "".join("          " + line + "\n" for line in PLIST.splitlines())
    ansible.playbook(PLAY % {"host": HOST, "label": LABEL, "plist": indented.rstrip("\n")})
    after = read_json("hosts", HOST, "state.json")["boot"]
    volatile = read_json("hosts", HOST, "volatile.json")
    assert after["count"] == before["count"] + 2
    assert after["boottime"] >= before["boottime"] + 120  # `who -b` moved at each boot
    assert volatile["boot_session_uuid"] != session_before
    with open(os.path.join(ROOT, "hosts", HOST, "log", "launchd.log")) as handle:
        log = handle.read()
    assert log.count("request=reboot") >= 2


def test_volatile_state_was_reset(ansible):
    out = ssh(HOST, "sysctl -n iogpu.wired_limit_mb; test -e /tmp/volatile-marker; echo tmp_rc=$?").stdout
    assert out.split() == ["0", "tmp_rc=1"]


def test_persistent_state_survived(ansible):
    assert ssh(HOST, "cat /Users/admin/persistent-marker").stdout.strip() == "kept"
    assert os.path.exists(os.path.join(ROOT, "hosts", HOST, "fs", "Library", "LaunchDaemons", LABEL + ".plist"))


def test_run_at_load_daemon_runs_again(ansible):
    pid = _daemon_pid()
    assert pid > 1
    processes = ssh(HOST, "ps -eo pid,args").stdout
    assert any(line.split(None, 1)[0] == str(pid) and "sleep 86400" in line for line in processes.splitlines())


def test_keepalive_restarts_a_killed_daemon(ansible):
    first = _daemon_pid()
    ansible(HOST, "ansible.builtin.command", "kill %d" % first, become=True)
    deadline = time.time() + 10
    while time.time() < deadline:
        out = ssh(HOST, "launchctl print system/%s" % LABEL).stdout
        if "state = running" in out and "pid = %d" % first not in out:
            break
        time.sleep(0.3)
    assert _daemon_pid() != first
    ansible(HOST, "ansible.builtin.command", "launchctl bootout system/%s" % LABEL, become=True)
    ansible(HOST, "ansible.builtin.file", "path=/Library/LaunchDaemons/%s.plist state=absent" % LABEL, become=True)
