"""diskutil apfs listUsers (plugins/module_utils/_apfs_users.py): volume owners matched by GUID, a listing
without users refused; on the fixtures in fixtures/diskutil_apfs (sources in its README.md)."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _apfs_users
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture as fixture


def test_volume_owners_are_matched_by_guid_not_by_the_owner_line():
    users = _apfs_users.parse_users(fixture("diskutil_apfs/list_users_owner_and_recovery.txt"))
    assert [u["type"] for u in users] == ["Local Open Directory User", "Personal Recovery User"]
    assert _apfs_users.is_volume_owner(users, "5d1c7a3e-2f4b-4c9a-9e61-0b7f3d2a8c11")
    assert not _apfs_users.is_volume_owner(users, "EBC6C064-0000-11AA-AA11-00306543ECAC")  # says Yes, not a user
    two = _apfs_users.parse_users(fixture("diskutil_apfs/list_users_two_accounts.txt"))
    assert not _apfs_users.is_volume_owner(two, "9A7E44D2-63B1-4F0E-8D5C-77A1C2B3D4E5")  # Volume Owner: No
    assert not _apfs_users.is_volume_owner(two, "00000000-0000-0000-0000-000000000000")
    crypto = "Cryptographic users for disk3s5 (1 found)\n|\n+-- 5D1C7A3E-2F4B-4C9A-9E61-0B7F3D2A8C11\n" \
             "    Type: Local Open Directory User\n"
    assert _apfs_users.is_volume_owner(_apfs_users.parse_users(crypto), "5D1C7A3E-2F4B-4C9A-9E61-0B7F3D2A8C11")


def test_a_listing_without_users_is_refused():
    with pytest.raises(ParseError):
        _apfs_users.parse_users("Cryptographic users for disk3s5 (1 found)\n|\n")
    assert _apfs_users.parse_users("") == []
