"""Acceptance 1 (second half): `maclab down` leaves nothing behind, even when the supervisors
died first (a crashed run), and a second `down` is harmless. Runs after the other lab tests, on the
session's lab before anything converged it, and brings that lab up again for the suites after it."""
import json
import os
import signal
import subprocess
import time

import pytest

from labtools import HOSTS, INVENTORY, ROOT, maclab, wait_until


@pytest.fixture(scope="module", autouse=True)
def lab_again(lab):
    """The session's lab, up again after these tests took it down (a fresh one, as `maclab up`
    leaves it: the suites after these converge it themselves)."""
    yield
    maclab("up", "--ssh-timeout", "30")


def _our_processes():
    """Live (non-zombie) processes of the lab: namespace members and our own helpers."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open("/proc/%s/stat" % entry) as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and (ROOT in cmdline or "/var/db/maclab" in cmdline or "macsim" in cmdline):
            found.append((int(entry), cmdline))
    return found


def test_down_after_a_crash_leaves_nothing(lab):
    namespace_pids = subprocess.run(["ip", "netns", "pids", "maclab-mac1"], stdout=subprocess.PIPE,
                                    universal_newlines=True).stdout.split()
    assert namespace_pids  # the hosts are running
    for host in HOSTS:  # the supervisors die, their hosts keep running (a crashed controller)
        with open(os.path.join(ROOT, "supervisor-%s.pid" % host)) as handle:
            os.kill(int(handle.read()), signal.SIGKILL)
    maclab("down")

    netns = subprocess.run(["ip", "-j", "netns", "list"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert not [n for n in (json.loads(netns) if netns.strip() else []) if n["name"].startswith("maclab-")]
    links = json.loads(subprocess.run(["ip", "-j", "link", "show"], stdout=subprocess.PIPE,
                                      universal_newlines=True).stdout)
    assert not [l["ifname"] for l in links if l["ifname"] == "maclab0" or l["ifname"].startswith("mlb-")]
    assert not any(l.get("ifname", "").startswith(("en", "bridge0")) for l in links)
    with open("/proc/self/mounts") as handle:
        assert not [line for line in handle if ROOT in line or "/var/db/maclab" in line]
    assert not os.path.exists(ROOT)
    assert not os.path.exists(INVENTORY)  # generated inventory gone, its README (in git) stays
    assert os.path.exists(os.path.join(os.path.dirname(INVENTORY), "README.md"))
    for path in ("/Users", "/Library", "/opt/homebrew", "/var/db/maclab"):
        assert not os.path.exists(path), path
    wait_until(lambda: not _our_processes(), 10, message="lab processes to be gone: %s" % _our_processes())


def test_down_again_is_harmless(lab):
    started = time.time()
    proc = maclab("down")
    assert "lab down" in proc.stdout and time.time() - started < 10
