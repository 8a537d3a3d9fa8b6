"""The lab's lsof (`-nP -iTCP -sTCP:LISTEN -Fpcn`) over Linux `ss`: a listener this test opens on loopback is
listed with its process in lsof's field format, which the collection's parser (_lsof.py) reads back; a user who
is not root does not see root's processes; any other option is refused."""
import os
import socket

import pytest
from shimlab import NOBODY

from ansible_collections.macops.cluster.plugins.module_utils._lsof import holders, parse


@pytest.fixture()
def listener():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    yield server.getsockname()[1]
    server.close()


def test_a_listener_is_listed_with_its_process_in_lsof_s_field_format(lab, listener):
    result = lab.run_process("lsof", "-nP", "-iTCP", "-sTCP:LISTEN", "-Fpcn")
    assert result.rc == 0, result
    assert "n127.0.0.1:%d\n" % listener in result.out
    [ours] = holders(parse(result.out), listener, "127.0.0.1")
    with open("/proc/self/comm") as handle:  # the process name as Linux has it (pytest's, here)
        assert ours["pid"] == os.getpid() and ours["command"] == handle.read().strip()


def test_a_user_who_is_not_root_sees_only_their_own_processes(lab, listener):
    result = lab.run_process("lsof", "-nP", "-iTCP", "-sTCP:LISTEN", "-Fpcn", uid=NOBODY)
    assert result.rc in (0, 1) and "n127.0.0.1:%d\n" % listener not in result.out
    assert parse(result.out, result.rc) == [] or all(e["pid"] != os.getpid() for e in parse(result.out))


def test_other_options_are_refused(lab):
    result = lab.run_process("lsof", "-i", ":8080")
    assert result.rc == 1 and "the lab knows only" in result.err
