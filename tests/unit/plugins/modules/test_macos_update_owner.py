"""macops.cluster.macos_update_owner: main() against a mocked Mac: the owner found among the volume's owners by its
GeneratedUID, its password verified from stdin (never in argv), nothing changed."""
import pytest
from fixture_files import read_fixture
from module_harness import FakeMac, run_module

from ansible_collections.macops.cluster.plugins.modules import macos_update_owner

GUID = "5D1C7A3E-2F4B-4C9A-9E61-0B7F3D2A8C11"
DSCL = ["/usr/bin/dscl", ".", "-read", "/Users/admin", "GeneratedUID"]
LIST = ["/usr/sbin/diskutil", "apfs", "listUsers", "/"]
VERIFY = ["/usr/sbin/diskutil", "apfs", "unlockVolume", "/", "-user", GUID, "-stdinpassphrase", "-verify"]


class Mac(FakeMac):
    """FakeMac that also keeps what each command got on stdin."""

    def __init__(self, outputs):
        FakeMac.__init__(self, outputs)
        self.stdin = []

    def run_command(self, args, **kwargs):
        self.stdin.append(kwargs.get("data"))
        return FakeMac.run_command(self, args, **kwargs)


def mac(guid=GUID, verify=0):
    return Mac([(DSCL, (0, "GeneratedUID: %s\n" % guid, "")),
                (LIST, (0, read_fixture("diskutil_apfs/list_users_owner_and_recovery.txt"), "")),
                (VERIFY, (verify, "", "" if verify == 0 else "Error -69749\n"))])


@pytest.mark.parametrize("check_mode", [False, True])
def test_an_owner_whose_password_verifies(monkeypatch, capsys, check_mode):
    fake = mac()
    result, calls = run_module(monkeypatch, capsys, macos_update_owner.main,
                               {"owner": "admin", "password": "s3cret", "_ansible_check_mode": check_mode}, fake)
    assert (result["volume_owner"], result["password_ok"], result["guid"], result["changed"]) == (
        True, True, GUID, False)
    assert calls == [DSCL, LIST, VERIFY] and fake.stdin[-1] == "s3cret\n"
    assert not any("s3cret" in " ".join(call) for call in calls)


def test_a_wrong_password_and_an_account_that_owns_no_volume(monkeypatch, capsys):
    wrong, _calls = run_module(monkeypatch, capsys, macos_update_owner.main, {"owner": "admin", "password": "x"},
                               mac(verify=1))
    assert (wrong["volume_owner"], wrong["password_ok"]) == (True, False) and "refused" in wrong["why"]
    other, calls = run_module(monkeypatch, capsys, macos_update_owner.main, {"owner": "admin", "password": "x"},
                              mac(guid="9A7E44D2-63B1-4F0E-8D5C-77A1C2B3D4E5"))
    assert (other["volume_owner"], other["password_ok"]) == (False, None) and VERIFY not in calls
    missing = Mac([(DSCL, (56, "", "<dscl_cmd> DS Error: -14136 (eDSRecordNotFound)\n"))])
    none, _calls = run_module(monkeypatch, capsys, macos_update_owner.main, {"owner": "admin"}, missing)
    assert (none["guid"], none["volume_owner"]) == (None, False) and "eDSRecordNotFound" in none["why"]
