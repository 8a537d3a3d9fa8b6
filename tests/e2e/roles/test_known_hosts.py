"""known-hosts.yml (issue 49, first contact): every node's SSH host key fingerprint as the Mac's own key file gives it,
nothing written until the owner confirms; then pinned, so ssh with strict host key checking connects; a second run
changes nothing; a node showing another key than the one pinned is refused and its entry left alone."""
import json
import os
import subprocess

from labtools import HOSTS, REPO, ROOT, layout, run_playbook, ssh

PLAYBOOK = os.path.join(REPO, "known-hosts.yml")


def fingerprint(host):
    """The SHA256 fingerprint of the host's own ed25519 key, as `ssh-keygen -lf` shows it at the Mac (the owner's
    comparison; here over the lab's own access to the host)."""
    return ssh(host, "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub").stdout.split()[1]


def known_hosts(tmp_path, *extra, check=True):
    settings = {"known_hosts_file": str(tmp_path / "known_hosts")}
    return run_playbook(PLAYBOOK, "-e", json.dumps(settings), *extra, workdir=str(tmp_path), check=check)


def test_fingerprints_first_then_pinned_on_confirmation_and_a_changed_key_refused(lab, tmp_path):
    shown = known_hosts(tmp_path)
    for host in HOSTS:
        assert "%s ssh-ed25519 %s (not pinned yet)" % (layout.mgmt_ip(int(host[3:])), fingerprint(host)) in shown.stdout
    assert not (tmp_path / "known_hosts").exists()

    pinned = known_hosts(tmp_path, "-e", "known_hosts_confirm=true")
    assert "changed=1" in pinned.stdout
    key = os.path.join(ROOT, "controller", "id_ed25519")  # the lab's key for its admin
    connect = subprocess.run(["ssh", "-o", "UserKnownHostsFile=%s" % (tmp_path / "known_hosts"),
                              "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
                              "-i", key, "admin@%s" % layout.mgmt_ip(1), "true"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=30)
    assert connect.returncode == 0, connect.stderr
    again = known_hosts(tmp_path, "-e", "known_hosts_confirm=true")
    assert "changed=0" in again.stdout and "changed=1" not in again.stdout

    # mac2 pinned with another key (a reinstalled Mac, or something else at its address): refused, left as it is.
    other = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    address = layout.mgmt_ip(2)
    lines = [line for line in (tmp_path / "known_hosts").read_text().splitlines() if not line.startswith(address + " ")]
    tampered = "%s %s" % (address, " ".join((tmp_path / "other.pub").read_text().split()[:2]))
    (tmp_path / "known_hosts").write_text("\n".join(lines + [tampered]) + "\n")
    refused = known_hosts(tmp_path, "-e", "known_hosts_confirm=true", check=False)
    assert refused.returncode != 0 and "ssh_host_key_changed" in refused.stdout, refused.stdout[-3000:]
    assert "%s shows another ssh-ed25519 host key" % address in " ".join(refused.stdout.split())
    assert tampered in (tmp_path / "known_hosts").read_text().splitlines()
