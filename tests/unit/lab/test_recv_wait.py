"""The preload every simulated Mac loads (lab/macsim/recv_wait.c): a non-blocking recv() that would block waits up
to a millisecond for data first, so MLX's socket loop no longer spins on the shared cores, and returns just what the
real call returns: EAGAIN when nothing came, the data when it did, at once."""
import os
import subprocess
import sys
import textwrap
import types

import pytest
from shimlab import LAB_DIR  # noqa: F401 - puts macsim on sys.path

from macsim import hostfs

LOOP = textwrap.dedent("""
    import socket, sys, time
    a, b = socket.socketpair()
    a.setblocking(False)
    spins, started = 0, time.monotonic()
    while time.monotonic() - started < 0.3:
        try:
            a.recv(16)
        except BlockingIOError:
            spins += 1
    b.send(b"ready")
    time.sleep(0.01)
    started = time.monotonic()
    got = a.recv(16)
    print(spins, got.decode(), round(time.monotonic() - started, 4))
""")


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    paths = types.SimpleNamespace(code=str(tmp_path_factory.mktemp("code")))
    built = hostfs.build_recv_wait(paths)
    if built is None:
        pytest.skip("no C compiler")
    return built


def spin(preload=None):
    env = dict(os.environ, **({"LD_PRELOAD": preload} if preload else {}))
    out = subprocess.run([sys.executable, "-c", LOOP], env=env, stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout.split()
    return int(out[0]), out[1], float(out[2])


def test_a_waiting_recv_loop_no_longer_spins_and_data_still_comes_at_once(library):
    spins, got, seconds = spin(library)
    assert spins <= 300, spins  # at most one try per millisecond over 0.3 s
    assert got == "ready" and seconds < 0.005
    free, _got, _seconds = spin()
    assert free > 10 * spins, (free, spins)  # without it the same loop spins freely
