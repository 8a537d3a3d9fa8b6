"""Acceptance 1 (second half): `maclab down` leaves nothing behind, even when the supervisors
died first (a crashed run), and a second `down` is harmless. Runs after the other lab tests, on the
session's lab before anything converged it, and brings that lab up again for the suites after it.

Another lab may be up beside this one (make test runs the end-to-end streams on labs 0 and 1): then
this lab's own namespaces, links, mounts, root, inventory and processes must be gone, and the mount
points both share stay for the other; with no other lab up, they must be gone too."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from labtools import HOSTS, INVENTORY, LAB_UP, ROOT, maclab, wait_until
from macsim import layout


@pytest.fixture(scope="module", autouse=True)
def lab_again(lab):
    """The session's lab, up again after these tests took it down (a fresh one, as `maclab up`
    leaves it, in the suites' shape: the suites after these converge it themselves)."""
    yield
    maclab("up", *LAB_UP)


def _other_labs():
    """The namespaces of the other labs up on this machine."""
    netns = subprocess.run(["ip", "-j", "netns", "list"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    return [n["name"] for n in (json.loads(netns) if netns.strip() else [])
            if n["name"].startswith("maclab") and not n["name"].startswith(layout.NETNS_PREFIX)]


def _mentions_root(text):
    """True when `text` names this lab's root (not another lab's root that starts the same)."""
    return re.search(re.escape(ROOT) + r"(/|\s|$)", text) is not None


def _our_processes(alone):
    """Live (non-zombie) processes of the lab: namespace members and our own helpers. With another
    lab up, only those naming this lab's root (its supervisors, its hosts' launchd)."""
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
        ours = _mentions_root(cmdline) or (alone and ("/var/db/maclab" in cmdline or "macsim" in cmdline))
        if state != "Z" and ours:
            found.append((int(entry), cmdline))
    return found


def test_down_after_a_crash_leaves_nothing(lab):
    namespace_pids = subprocess.run(["ip", "netns", "pids", layout.netns("mac1")], stdout=subprocess.PIPE,
                                    universal_newlines=True).stdout.split()
    assert namespace_pids  # the hosts are running
    for host in HOSTS:  # the supervisors die, their hosts keep running (a crashed controller)
        with open(os.path.join(ROOT, "supervisor-%s.pid" % host)) as handle:
            os.kill(int(handle.read()), signal.SIGKILL)
    maclab("down")
    alone = not _other_labs()

    netns = subprocess.run(["ip", "-j", "netns", "list"], stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert not [n for n in (json.loads(netns) if netns.strip() else []) if n["name"].startswith(layout.NETNS_PREFIX)]
    links = json.loads(subprocess.run(["ip", "-j", "link", "show"], stdout=subprocess.PIPE,
                                      universal_newlines=True).stdout)
    assert not [l["ifname"] for l in links
                if l["ifname"] == layout.MGMT_BRIDGE or l["ifname"].startswith(layout.ROOT_VETH_PREFIX)]
    assert not any(l.get("ifname", "").startswith(("en", "bridge0")) for l in links)
    with open("/proc/self/mounts") as handle:
        assert not [line for line in handle if _mentions_root(line) or (alone and "/var/db/maclab" in line)]
    assert not os.path.exists(ROOT)
    assert not os.path.exists(INVENTORY)
    if layout.LAB_NUMBER == 0:  # lab 0's inventory README is in git and stays; lab n's directory goes
        assert os.path.exists(os.path.join(os.path.dirname(INVENTORY), "README.md"))
    else:
        assert not os.path.exists(os.path.dirname(INVENTORY))
    if alone:
        for path in ("/Users", "/Library", "/opt/homebrew", "/var/db/maclab", layout.MOUNTPOINT_REGISTRY):
            assert not os.path.exists(path), path
    elif os.path.exists(layout.MOUNTPOINT_REGISTRY):  # the other lab's hosts still mount over them
        with open(layout.MOUNTPOINT_REGISTRY) as handle:
            assert layout.LAB_NUMBER not in json.load(handle)["labs"]
    wait_until(lambda: not _our_processes(alone), 10,
               message="lab processes to be gone: %s" % _our_processes(alone))


def test_down_again_is_harmless(lab):
    started = time.time()
    proc = maclab("down")
    assert "lab down" in proc.stdout and time.time() - started < 10
