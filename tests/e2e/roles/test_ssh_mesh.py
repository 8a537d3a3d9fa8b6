"""ssh_mesh on the lab: every node reaches every other with BatchMode and checked host keys,
idempotent, and key rotation replaces the old keys everywhere."""
import os

from access_helpers import changed_tasks, converge, recap
from labtools import HOSTS, ROOT, ssh
from macsim import layout

# The lab's sshd serves the key under its state dir, while /etc/ssh inside a host is the Linux
# machine's: until the lab binds its keys at /etc/ssh, point the role at the key sshd serves.
LAB_HOST_KEY = ["-e", "ssh_mesh_host_key_file=/var/db/maclab/fs/ssh/ssh_host_ed25519_key.pub"]
# This playbook does not configure the Thunderbolt network (the thunderbolt_network role does, in
# site.yml), and the lab's sshd listens on the management address only: verify by name here.
LAB_HOST_KEY += ["-e", '{"ssh_mesh_verify_thunderbolt": false}']


def home(host, *parts):
    return os.path.join(ROOT, "hosts", host, "fs", "Users", "admin", *parts)


def node_keys():
    return dict((host, open(home(host, ".ssh", "id_ed25519.pub")).read().split()[1]) for host in HOSTS)


def authorized(host):
    return [line.split()[1] for line in open(home(host, ".ssh", "authorized_keys")) if line.strip()]


def test_mesh_converges_and_every_pair_connects(lab):
    first = converge(*(["--tags", "ssh_mesh"] + LAB_HOST_KEY))
    keys = node_keys()
    assert len(set(keys.values())) == 4
    for host in HOSTS:
        assert set(keys.values()) <= set(authorized(host)), host
        known = open(home(host, ".ssh", "known_hosts")).read()
        assert known.count("ssh-ed25519") >= 4
        assert "mac3,%s" % layout.mgmt_ip(3) in known
        assert "macops.cluster.ssh_mesh : Authorize every node's key and remove the keys that rotation replaced" \
            in changed_tasks(first.stdout)[host]
    # mlx.launch's own way in: plain ssh, no prompt, by inventory name, from every node.
    for source in HOSTS:
        for target in HOSTS:
            if source != target:
                proc = ssh(source, "/usr/bin/ssh -o BatchMode=yes %s /bin/hostname" % target)
                assert proc.stdout.strip() == target

    again = converge(*(["--tags", "ssh_mesh"] + LAB_HOST_KEY))
    assert all(result["changed"] == 0 for result in recap(again.stdout).values())


def test_rotation_replaces_every_key_everywhere(lab):
    converge(*(["--tags", "ssh_mesh"] + LAB_HOST_KEY))
    old = node_keys()
    converge(*(["--tags", "ssh_mesh", "-e", '{"ssh_mesh_rotate_keys": true}'] + LAB_HOST_KEY))
    new = node_keys()
    assert all(old[host] != new[host] for host in HOSTS)
    controller_key = open(os.path.join(ROOT, "controller", "id_ed25519.pub")).read().split()[1]
    for host in HOSTS:
        keys = authorized(host)
        assert set(new.values()) <= set(keys) and not set(old.values()) & set(keys), host
        assert controller_key in keys
    assert ssh("mac4", "/usr/bin/ssh -o BatchMode=yes mac1 /bin/hostname").stdout.strip() == "mac1"
