"""Issue 5, point 3: after site.yml, rebooting every node keeps the Thunderbolt addresses, the
wired limit, the exo service and the SSH mesh, and a re-run of site.yml changes nothing."""
import json

from labtools import HOSTS, recap, ssh

STATE = "/Library/Application Support/macops"


def boot_sessions():
    return {h: ssh(h, "/usr/sbin/sysctl -n kern.bootsessionuuid").stdout.strip() for h in HOSTS}


def test_reboot_of_every_node_keeps_what_site_set_up(site, converged, ansible):
    plans = {h: json.loads(ssh(h, "cat '%s/thunderbolt-plan.json'" % STATE).stdout) for h in HOSTS}
    limits = {h: ssh(h, "/usr/sbin/sysctl -n iogpu.wired_limit_mb").stdout.strip() for h in HOSTS}
    assert all(int(v) > 0 for v in limits.values()), limits
    before = boot_sessions()

    # A plain reboot of every node at once, as a person or a power cut would do it: not through
    # reboot-cluster.yml, which re-applies nothing but would hide nothing either.
    ansible("macs", "ansible.builtin.reboot",
            "boot_time_command='/usr/sbin/sysctl -n kern.bootsessionuuid' test_command=/usr/bin/whoami",
            become=True)
    after = boot_sessions()
    assert all(after[h] != before[h] for h in HOSTS), (before, after)

    for host in HOSTS:
        # addresses: every planned port has its /30 again and the peer answers over that cable
        for device, end in plans[host]["hosts"][host].items():
            assert "inet %s netmask 0xfffffffc" % end["ip"] in ssh(host, "/sbin/ifconfig %s" % device).stdout
            assert ssh(host, "/sbin/ping -c 1 -t 3 %s" % end["peer_ip"], check=False).returncode == 0, \
                (host, device, end["peer_ip"])
        # the wired limit, set again at boot by the gpu_memory LaunchDaemon
        assert ssh(host, "/usr/sbin/sysctl -n iogpu.wired_limit_mb").stdout.strip() == limits[host]
        # exo: the LaunchDaemon runs without anyone logging in, and its API sees every node
        assert "state = running" in ssh(host, "sudo -n /bin/launchctl print system/org.macops.exo").stdout
        # the SSH mesh: BatchMode to every peer over every cable, no prompt, no unknown host key
        for end in plans[host]["hosts"][host].values():
            proc = ssh(host, "/usr/bin/ssh -o BatchMode=yes -o ConnectTimeout=5 %s /usr/bin/true" % end["peer_ip"],
                       check=False)
            assert proc.returncode == 0, (host, end["peer_ip"], proc.stderr)

    proc = site()
    assert {h: c["changed"] for h, c in recap(proc.stdout).items()} == {h: 0 for h in HOSTS}, proc.stdout[-4000:]
