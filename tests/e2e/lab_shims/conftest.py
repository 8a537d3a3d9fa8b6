"""A running lab for the shim acceptance tests (acceptance 3 and 4 of issue 3).

The lab is the e2e session's shared one (`lab` in tests/e2e/conftest.py: `maclab up` of the
default 4-Studio mesh, `maclab down` at the end); these fixtures add host helpers and undo their
own changes. Needs root, iproute2, iperf3 and ping.
"""
import ipaddress
import os
import shlex
import shutil
import sys

import pytest

from labtools import ROOT, read_json, ssh
from macsim import layout

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(REPO, "tests", "unit", "lab"))
# Thunderbolt addresses of these tests: the top of the lab's 198.19.0.0/16 pool, away from what
# the collection's address plan hands out from its start.
TEST_POOL = ipaddress.IPv4Network("198.19.240.0/20")


class RunningLab(object):
    def __init__(self):
        self.hosts = [h["name"] for h in read_json("lab.json")["hosts"]]

    @staticmethod
    def lab_json():
        return read_json("lab.json")

    def cables(self):
        return [c for c in self.lab_json()["cables"] if c.get("state") != "cut"]

    @staticmethod
    def become_password():
        with open(os.path.join(ROOT, "controller", "become_password")) as fh:
            return fh.read().strip()

    @staticmethod
    def ssh(host, command, check=True):
        """A shell command on the host as its admin user, over the lab's SSH."""
        return ssh(host, command, check=check, timeout=120)

    def sudo(self, host, argv, check=True):
        """argv as root through sudo, the way become does it (password on stdin)."""
        command = "printf '%%s\\n' %s | sudo -S -p '' %s" % (
            shlex.quote(self.become_password()), " ".join(shlex.quote(a) for a in argv))
        return self.ssh(host, command, check=check)

    @staticmethod
    def netns(host, argv):
        """A Linux command in the host's network namespace (ping, iperf3, MLX ranks)."""
        return ["ip", "netns", "exec", layout.netns(host)] + list(argv)


@pytest.fixture(scope="session")
def running_lab(lab):
    for tool in ("ip", "iperf3", "ping"):
        if shutil.which(tool) is None:
            pytest.skip("%s is not installed" % tool)
    return RunningLab()


def address_plan(cables):
    """One /30 per cable from TEST_POOL: {(host, device): (address, peer address)}."""
    plan = {}
    subnets = TEST_POOL.subnets(new_prefix=30)
    for cable in cables:
        net = next(subnets)
        a, b = [str(ip) for ip in list(net.hosts())[:2]]
        plan[(cable["a"], cable["a_device"])] = (a, b)
        plan[(cable["b"], cable["b_device"])] = (b, a)
    return plan


@pytest.fixture(scope="module")
def tb_addressed(running_lab):
    """Every cable's ends get a /30 with `sudo networksetup -setmanual` after the Thunderbolt
    Bridge service is turned off (bridged ports carry no IP); undone afterwards."""
    cables = running_lab.cables()
    plan = address_plan(cables)
    receptacle = {}
    for cable in cables:
        receptacle[(cable["a"], cable["a_device"])] = cable["a_port"]
        receptacle[(cable["b"], cable["b_device"])] = cable["b_port"]
    bridge_was = {}
    for host in running_lab.hosts:
        state = running_lab.ssh(host, "networksetup -getnetworkserviceenabled 'Thunderbolt Bridge'",
                                check=False).stdout.strip()
        bridge_was[host] = state
        if state == "Enabled":
            running_lab.sudo(host, ["networksetup", "-setnetworkserviceenabled",
                                    "Thunderbolt Bridge", "off"])
    for (host, device), (address, _) in sorted(plan.items()):
        running_lab.sudo(host, ["networksetup", "-setmanual",
                                "Thunderbolt %d" % receptacle[(host, device)], address,
                                "255.255.255.252"])
    try:
        yield plan
    finally:
        for (host, device) in sorted(plan):
            running_lab.sudo(host, ["networksetup", "-setdhcp",
                                    "Thunderbolt %d" % receptacle[(host, device)]], check=False)
        for host, state in bridge_was.items():
            if state == "Enabled":
                running_lab.sudo(host, ["networksetup", "-setnetworkserviceenabled",
                                        "Thunderbolt Bridge", "on"], check=False)
