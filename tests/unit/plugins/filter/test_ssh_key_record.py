"""macops.cluster.ssh_key_record: a retired node's key is revoked everywhere, a rotated key replaced, a member a
limited run does not reach keeps its key, and the owner's own keys (never on the record) are not touched."""
import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.ssh_key_record import ssh_key_record

RECORD = "mac1 ssh-ed25519 K1\nmac2 ssh-ed25519 K2\nmac3 ssh-ed25519 K3\nmac5 ssh-ed25519 K5\n"
MEMBERS = ["mac1", "mac2", "mac3", "mac4"]


def test_a_node_no_longer_in_the_inventory_is_revoked_and_a_new_one_recorded():
    current = {"mac1": "ssh-ed25519 K1 macops.cluster mac1", "mac2": "ssh-ed25519 K2", "mac3": "ssh-ed25519 K3",
               "mac4": "ssh-ed25519 K4"}
    result = ssh_key_record(RECORD, current, MEMBERS)
    assert result["stale"] == ["ssh-ed25519 K5"]
    assert result["record"] == "mac1 ssh-ed25519 K1\nmac2 ssh-ed25519 K2\nmac3 ssh-ed25519 K3\nmac4 ssh-ed25519 K4\n"
    # The next run has nothing more to revoke.
    assert ssh_key_record(result["record"], current, MEMBERS)["stale"] == []


def test_a_rotated_key_is_replaced_and_a_member_the_run_does_not_reach_keeps_its_key():
    # --limit mac1,mac2: mac3 is a member this run does not reach; mac2 rotated its key.
    result = ssh_key_record(RECORD, {"mac1": "ssh-ed25519 K1", "mac2": "ssh-ed25519 K2b"}, MEMBERS + ["mac5"])
    assert result["stale"] == ["ssh-ed25519 K2"]
    assert "mac3 ssh-ed25519 K3\n" in result["record"] and "mac5 ssh-ed25519 K5\n" in result["record"]
    assert "mac2 ssh-ed25519 K2b\n" in result["record"]


def test_no_record_yet_revokes_nothing_and_a_node_without_a_key_is_left_out():
    result = ssh_key_record(None, {"mac1": "ssh-ed25519 K1", "mac2": ""}, MEMBERS)
    assert result == {"record": "mac1 ssh-ed25519 K1\n", "stale": []}
    assert ssh_key_record("garbage\n\n", {"mac1": "ssh-ed25519 K1"}, MEMBERS)["stale"] == []


def test_a_key_still_in_use_by_another_node_is_never_revoked():
    # A retired node's key that a member now uses (an image cloned with its key) stays.
    result = ssh_key_record("mac5 ssh-ed25519 K1\n", {"mac1": "ssh-ed25519 K1"}, MEMBERS)
    assert result["stale"] == []


def test_wrong_input_is_a_clear_error():
    with pytest.raises(AnsibleFilterError, match="current must map nodes to keys"):
        ssh_key_record("", ["mac1"], MEMBERS)
