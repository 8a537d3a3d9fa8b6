"""sudoers on the lab: a visudo-checked drop-in, sudo -n runs exactly the command lines the
cluster's tools run (mlx.distributed_config --auto-setup's shapes, with the lab's 198.19.0.0/16
addresses; the tool itself is never run here, it assigns 192.168.x addresses) and refuses the rest,
wildcard abuse included; the verify step fails on a broad rule unless the owner accepted it, and
the report then lists the exception; idempotent; bad input stopped before anything lands; removal
on request."""
import json
import os
import stat
import tempfile

from access_helpers import CONVERGE, WITHOUT_FIREWALL, changed_tasks, converge, recap, run_playbook
from labtools import HOSTS, ROOT, log_lines, read_json, ssh, sudo, wait_until

TEMPLATE_TASK = ("macops.cluster.sudoers : Install or remove the NOPASSWD rules, checked by visudo, and check they give no "
                 "shell or arbitrary code")
PASSWORD_ASKED = "a password is required"
# A Thunderbolt port of mac1 (a 6-port Mac Studio: en2..en7) and a /30 of the lab's pool that no
# plan uses; the management Ethernet is en0.
TB_PORT, ADDRESS, PEER, MASK = "en2", "198.19.251.1", "198.19.251.2", "255.255.255.252"


def dropin(host):
    return os.path.join(ROOT, "hosts", host, "fs", "etc", "sudoers.d", "macops")


def root_calls(host, since):
    """The shim calls made as root on `host` after the first `since` log lines: [argv[1:]]."""
    return [entry["argv"][1:] for entry in log_lines(host, "shim.log")[since:] if entry["uid"] == 0]


def boot_count(host):
    return read_json("hosts", host, "state.json")["boot"]["count"]


def test_check_then_install_then_idempotent(lab):
    predicted = converge("--tags", "sudoers", "--check")
    assert not any(os.path.exists(dropin(host)) for host in HOSTS)
    assert all(TEMPLATE_TASK in changed_tasks(predicted.stdout)[host] for host in HOSTS)

    applied = converge("--tags", "sudoers")
    for host in HOSTS:
        info = os.stat(dropin(host))
        assert stat.S_IMODE(info.st_mode) == 0o440 and info.st_uid == 0 and info.st_gid == 0
        # A fresh lab also gets preflight's state directory in this run: only this role's tasks count.
        assert [t for t in changed_tasks(applied.stdout)[host] if "sudoers :" in t] == [TEMPLATE_TASK]
    listing = ssh("mac1", "/usr/bin/sudo -n -l").stdout
    # The rules name command lines, and the interfaces are mac1's own Thunderbolt ports.
    assert "(root) NOPASSWD: /bin/ls \"\", /sbin/ifconfig bridge0 down, " \
           "/sbin/ifconfig ^(en2|en3|en4|en5|en6|en7) inet " in listing
    assert "/bin/launchctl kickstart -k system/org.macops.exo" in listing and "/usr/bin/pmset -a sleep 0" in listing
    assert "/bin/launchctl," not in listing and not listing.rstrip().endswith("/bin/launchctl")
    assert ssh("mac1", "/usr/bin/sudo -n /usr/sbin/sysctl -n iogpu.wired_limit_mb").stdout.strip().isdigit()
    refused = ssh("mac1", "/usr/bin/sudo -n /bin/cat /etc/sudoers", check=False)
    assert refused.returncode != 0 and PASSWORD_ASKED in refused.stderr

    again = converge("--tags", "sudoers")
    assert all(result["changed"] == 0 for result in recap(again.stdout).values())


# What mlx.distributed_config --auto-setup sends to a node (IPConfigurator.setup: `sudo` and a bare
# command name, resolved through PATH), what the collection's launchd jobs and the power role need,
# and the reads; each checked to reach the command as root.
ALLOWED = [
    ("ifconfig bridge0 down", ["bridge0", "down"]),
    ("ifconfig %s inet %s netmask %s" % (TB_PORT, ADDRESS, MASK), [TB_PORT, "inet", ADDRESS, "netmask", MASK]),
    ("route change %s -interface %s" % (PEER, TB_PORT), ["change", PEER, "-interface", TB_PORT]),
    ("sysctl iogpu.wired_limit_mb=4096", ["iogpu.wired_limit_mb=4096"]),
    ("sysctl -w iogpu.wired_limit_mb=8192", ["-w", "iogpu.wired_limit_mb=8192"]),
    ("sysctl -n iogpu.wired_limit_mb", ["-n", "iogpu.wired_limit_mb"]),
    ("launchctl kickstart -k system/org.macops.gpu-memory", ["kickstart", "-k", "system/org.macops.gpu-memory"]),
    ("launchctl print system/org.macops.exo", ["print", "system/org.macops.exo"]),
    ("pmset -a sleep 0", ["-a", "sleep", "0"]),
    ("pmset -a disksleep 0", ["-a", "disksleep", "0"]),
    ("pmset -a displaysleep 10", ["-a", "displaysleep", "10"]),
    ("pmset -a autorestart 1", ["-a", "autorestart", "1"]),
    ("pmset -a womp 1", ["-a", "womp", "1"]),
]

# Everything else: other plists, keys, labels, values and power actions, and for every rule with
# a pattern or fixed arguments, options smuggled after an allowed prefix.
REFUSED = [
    "launchctl bootstrap system /Library/LaunchDaemons/org.macops.other.plist",
    "launchctl load -w /tmp/job.plist",
    "launchctl submit -l x -- /bin/sh",
    "launchctl kickstart -k system/com.apple.sshd",
    "launchctl kickstart -k system/org.macops.exo -p",
    "sysctl -w kern.maxfiles=1",
    "sysctl kern.maxfiles=1",
    "sysctl iogpu.wired_limit_mb=4096 kern.maxfiles=1",
    "sysctl -w iogpu.wired_limit_mb=4096 -w kern.maxfiles=1",
    "sysctl -n iogpu.wired_limit_mb kern.maxfiles=1",
    "shutdown -h now",
    "shutdown -r +5",
    "shutdown -r now -h",
    "ifconfig en0 inet %s netmask %s" % (ADDRESS, MASK),
    "ifconfig %s inet %s netmask %s mtu 1280" % (TB_PORT, ADDRESS, MASK),
    "ifconfig %s inet %s netmask %s en0 down" % (TB_PORT, ADDRESS, MASK),
    "ifconfig %s inet %s netmask 255.255.255.0" % (TB_PORT, ADDRESS),
    "ifconfig bridge0 down destroy",
    "ifconfig bridge0 destroy",
    "route change %s -interface en0" % PEER,
    "route change %s -interface %s -ifscope en0" % (PEER, TB_PORT),
    "route add %s -interface %s" % (PEER, TB_PORT),
    "route change default -interface %s" % TB_PORT,
    "pmset -a sleep 5",
    "pmset -a sleep 0 womp 0",
    "ls -la /var/root",
    "networksetup -setv4off Ethernet",
    "/bin/sh -c id",
]


def test_sudo_runs_the_tools_command_lines_and_refuses_the_rest(lab):
    converge("--tags", "sudoers")
    pmset_before = read_json("hosts", "mac1", "state.json")["pmset"]
    try:
        probe = ssh("mac1", "sudo -n ls", check=False)  # mlx.distributed_config's passwordless-sudo test
        assert probe.returncode == 0 and PASSWORD_ASKED not in probe.stderr, probe.stderr
        for command, argv in ALLOWED:
            since = len(log_lines("mac1", "shim.log"))
            ran = ssh("mac1", "sudo -n " + command, check=False)
            assert PASSWORD_ASKED not in ran.stderr, (command, ran.stderr)
            assert argv in root_calls("mac1", since), (command, root_calls("mac1", since))
        assert "inet %s netmask 0xfffffffc" % ADDRESS in ssh("mac1", "/sbin/ifconfig %s" % TB_PORT).stdout
        assert "interface: %s" % TB_PORT in ssh("mac1", "/sbin/route -n get %s" % PEER).stdout
        assert ssh("mac1", "/usr/sbin/sysctl -n iogpu.wired_limit_mb").stdout.strip() == "8192"

        for command in REFUSED:
            since = len(log_lines("mac1", "shim.log"))
            refused = ssh("mac1", "sudo -n " + command, check=False)
            assert refused.returncode == 1 and PASSWORD_ASKED in refused.stderr, (command, refused.stderr)
            assert root_calls("mac1", since) == [], command

        # Last, the reboot the rules allow; it also undoes the addresses, route and sysctl above.
        count = boot_count("mac1")
        since = len(log_lines("mac1", "shim.log"))
        assert ssh("mac1", "sudo -n shutdown -r now", check=False).returncode == 0
        assert ["-r", "now"] in root_calls("mac1", since)
        wait_until(lambda: boot_count("mac1") > count and ssh("mac1", "true", check=False).returncode == 0, 90,
                   interval=0.5, message="mac1 back after sudo -n shutdown -r now")
        assert "inet %s " % ADDRESS not in ssh("mac1", "/sbin/ifconfig %s" % TB_PORT).stdout
        assert ssh("mac1", "/usr/sbin/sysctl -n iogpu.wired_limit_mb").stdout.strip() == "0"
    finally:
        # pmset settings persist: give mac1 back the ones it had, for the tests that follow.
        sudo("mac1", "/usr/bin/pmset -a " + " ".join("%s %s" % (k, int(v)) for k, v in sorted(pmset_before.items())
                                                     if k in ("sleep", "disksleep", "displaysleep", "autorestart", "womp")))


REPORTED = """---
- name: Check every node
  hosts: macs
  gather_facts: false
  roles:
    - role: macops.cluster.preflight

- name: Install the rules, a broad one accepted
  hosts: macs
  gather_facts: false
  roles:
    - role: macops.cluster.sudoers
      vars:
        sudoers_extra_commands: [/bin/launchctl]
        sudoers_accepted_unsafe_rules: [/bin/launchctl]

- name: Report what the sudoers role found
  hosts: macs
  gather_facts: false
  tasks:
    - name: Write the report
      ansible.builtin.import_role:
        name: macops.cluster.report
      vars:
        report_dir: %s
        report_problems: "{{ ansible_play_hosts | map('extract', hostvars, 'macops_sudoers') | map(attribute='problems') | flatten }}"
"""


def test_a_broad_rule_fails_verify_naming_it_unless_accepted_and_then_the_report_lists_it(lab):
    # Through sudoers_extra_commands, the first step refuses it, naming the rule, before it is written.
    before = open(dropin("mac1")).read() if os.path.exists(dropin("mac1")) else None
    broad = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + ("--tags", "sudoers", "--limit", "mac1", "-e",
                                                        '{"sudoers_extra_commands": ["/bin/launchctl"]}')))
    assert broad.returncode != 0
    flat = " ".join(broad.stdout.split())
    assert "sudoers_extra_commands = '/bin/launchctl' is refused" in flat and "sudoers_accepted_unsafe_rules" in flat
    assert (open(dropin("mac1")).read() if os.path.exists(dropin("mac1")) else None) == before
    # A broad rule that arrives another way (a drop-in of someone else's) fails the verify step.
    other = "/etc/sudoers.d/zz-broad"
    sudo("mac1", "echo 'admin ALL=(root) NOPASSWD: /bin/launchctl' > %s && chmod 0440 %s" % (other, other))
    try:
        broad = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + ("--tags", "sudoers", "--limit", "mac1")))
        assert broad.returncode != 0
        flat = " ".join(broad.stdout.split())
        assert "sudoers: [sudo_rule_unsafe]" in flat
        assert "sudo rule '(root) NOPASSWD: /bin/launchctl' lets admin run code as root without a password" in flat
        assert "`sudo /bin/launchctl bootstrap system /tmp/x.plist`" in flat
    finally:
        sudo("mac1", "rm -f %s" % other)
    try:
        with tempfile.TemporaryDirectory(prefix="sudoers-report-") as tmp_dir:
            playbook = os.path.join(tmp_dir, "reported.yml")
            with open(playbook, "w") as handle:
                handle.write(REPORTED % os.path.join(tmp_dir, "report"))
            accepted = run_playbook(playbook, "--limit", "mac1")
            assert accepted.returncode == 0, accepted.stdout[-4000:]
            with open(os.path.join(tmp_dir, "report", "report.json")) as handle:
                report = json.load(handle)
        listed = [p for p in report["problems"] if p["code"] == "sudo_rule_unsafe_accepted"]
        assert [(p["host"], p["severity"]) for p in listed] == [("mac1", "info")], report["problems"]
        assert "/bin/launchctl" in listed[0]["message"] and "sudoers_accepted_unsafe_rules" in listed[0]["message"]
    finally:
        converge("--tags", "sudoers", "--limit", "mac1")
    assert "/bin/launchctl," not in ssh("mac1", "/usr/bin/sudo -n -l").stdout


def test_bad_command_is_refused_before_anything_lands(lab):
    before = dict((host, open(dropin(host)).read() if os.path.exists(dropin(host)) else None) for host in HOSTS)
    proc = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + ("--tags", "sudoers", "-e",
                                                        '{"sudoers_extra_commands": ["pfctl", "/bin/sh, ALL"]}')))
    assert proc.returncode != 0
    flat = " ".join(proc.stdout.split())
    assert "sudoers_extra_commands = 'pfctl' is refused" in flat
    assert "sudoers_extra_commands = '/bin/sh, ALL' is refused" in flat
    assert dict((host, open(dropin(host)).read() if os.path.exists(dropin(host)) else None) for host in HOSTS) == before


def test_absent_removes_the_rules(lab):
    converge("--tags", "sudoers")
    removed = converge("--tags", "sudoers", "-e", "sudoers_state=absent", "--limit", "mac2")
    assert not os.path.exists(dropin("mac2"))
    assert os.path.exists(dropin("mac1"))
    assert recap(removed.stdout)["mac2"]["changed"] == 1
    assert ssh("mac2", "/usr/bin/sudo -n -l", check=False).returncode != 0
