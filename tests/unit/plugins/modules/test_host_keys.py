"""macops.cluster.host_keys' reading of ssh-keyscan and `ssh-keygen -F` (known-hosts.yml): each scanned key with its
known_hosts line, and whether the file pins it, pins another of its type, or nothing; a port off 22 in brackets."""
from ansible_collections.macops.cluster.plugins.modules.host_keys import known_name, pinned_keys, pinned_state, scanned_keys

SCAN = ("# 192.168.1.11:22 SSH-2.0-OpenSSH_9.9\n"
        "192.168.1.11 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK1\n"
        "192.168.1.11 ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAA2\n")
FOUND = "# Host 192.168.1.11 found: line 3\n192.168.1.11 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOLD\n"


def test_scanned_keys_and_what_the_file_pins():
    keys = scanned_keys(SCAN)
    assert [(t, line) for t, _key, line in keys] == [
        ("ssh-ed25519", "192.168.1.11 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK1"),
        ("ecdsa-sha2-nistp256", "192.168.1.11 ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAA2")]
    pinned = pinned_keys(FOUND)
    assert pinned == {"ssh-ed25519": ["AAAAC3NzaC1lZDI1NTE5AAAAIOLD"]}
    assert pinned_state("ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5AAAAIK1", pinned) == "changed"
    assert pinned_state("ssh-ed25519", "AAAAC3NzaC1lZDI1NTE5AAAAIOLD", pinned) == "same"
    assert pinned_state("ecdsa-sha2-nistp256", "AAAAE2", pinned) == "absent"
    assert (known_name("192.168.1.11", 22), known_name("192.168.1.11", 2222)) == ("192.168.1.11", "[192.168.1.11]:2222")
