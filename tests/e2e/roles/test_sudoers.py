"""sudoers on the lab: a visudo-checked drop-in, sudo -n works for exactly the listed commands,
idempotent, bad input stopped before anything lands, removal on request."""
import os
import stat

from access_helpers import CONVERGE, WITHOUT_FIREWALL, changed_tasks, converge, recap, run_playbook
from labtools import HOSTS, ROOT, ssh

TEMPLATE_TASK = "macops.cluster.sudoers : Install or remove the NOPASSWD rules, checked by visudo first"


def dropin(host):
    return os.path.join(ROOT, "hosts", host, "fs", "etc", "sudoers.d", "macops")


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
    assert "NOPASSWD" in listing and "/usr/sbin/networksetup" in listing and "/usr/bin/pmset" in listing
    # Exactly the listed commands run without a password; anything else still asks.
    assert ssh("mac1", "/usr/bin/sudo -n /usr/sbin/sysctl -n hw.memsize").stdout.strip().isdigit()
    refused = ssh("mac1", "/usr/bin/sudo -n /bin/cat /etc/sudoers", check=False)
    assert refused.returncode != 0 and "password" in refused.stderr

    again = converge("--tags", "sudoers")
    assert all(result["changed"] == 0 for result in recap(again.stdout).values())


def test_bad_command_is_refused_before_anything_lands(lab):
    before = dict((host, open(dropin(host)).read() if os.path.exists(dropin(host)) else None) for host in HOSTS)
    proc = run_playbook(CONVERGE, *(WITHOUT_FIREWALL + ("--tags", "sudoers", "-e",
                                                        '{"sudoers_extra_commands": ["pfctl", "/bin/sh, ALL"]}')))
    assert proc.returncode != 0
    flat = " ".join(proc.stdout.split())
    assert "each entry must be an absolute path" in flat and "fix pfctl, /bin/sh, ALL" in flat
    assert dict((host, open(dropin(host)).read() if os.path.exists(dropin(host)) else None) for host in HOSTS) == before


def test_absent_removes_the_rules(lab):
    converge("--tags", "sudoers")
    removed = converge("--tags", "sudoers", "-e", "sudoers_state=absent", "--limit", "mac2")
    assert not os.path.exists(dropin("mac2"))
    assert os.path.exists(dropin("mac1"))
    assert recap(removed.stdout)["mac2"]["changed"] == 1
    assert ssh("mac2", "/usr/bin/sudo -n -l", check=False).returncode != 0
