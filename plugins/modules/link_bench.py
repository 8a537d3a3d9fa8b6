#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: link_bench
short_description: Measure Thunderbolt cables with iperf3, bound to each cable's own addresses
version_added: 0.4.0
description:
  - Runs one round of the benchmark role's links suite on this node. For each entry of O(serve) it starts a
    one-off iperf3 server bound to that address (C(iperf3 -s -1 -B ADDRESS -D)); for each entry of O(tests) it
    runs the iperf3 client from this node's end of the cable to the peer's (C(-B) this end, so the traffic
    cannot take another route), both directions at once (C(--bidir)) unless O(bidir=false).
  - The peer's server starts in the same task on the peer, so the client tries again while the server is not
    listening yet, for up to O(connect_wait) seconds.
  - A server exits after its one test, or after O(idle_timeout) seconds without one (an interrupted run leaves
    no server behind). O(state=absent) stops the servers this module started on the node, by their pid files.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  tests:
    description: The cables this node measures as the client, in the shape of P(macops.cluster.benchmark_plan#filter)'s tests.
    type: list
    elements: dict
    default: []
    suboptions:
      link_id:
        description: The cable's id in the applied plan.
        type: str
        required: true
      round:
        description: The round of the plan this test belongs to (returned as it is).
        type: int
      repeat:
        description: Which repeat of the plan's rounds this test is (returned as it is).
        type: int
      client:
        description: This node's inventory name (returned as it is).
        type: str
      server:
        description: The peer's inventory name (returned as it is).
        type: str
      client_port:
        description: This node's interface on the cable (returned as it is).
        type: str
      server_port:
        description: The peer's interface on the cable (returned as it is).
        type: str
      client_ip:
        description: This node's address on the cable.
        type: str
        required: true
      server_ip:
        description: The peer's address on the cable.
        type: str
        required: true
  serve:
    description: Addresses of this node to serve one test each on.
    type: list
    elements: str
    default: []
  port:
    description: The TCP port of the servers.
    type: int
    default: 5201
  seconds:
    description: Seconds each test measures (C(iperf3 -t)).
    type: int
    default: 5
  omit_seconds:
    description: Warm-up seconds at the start of each test that do not count (C(iperf3 -O)), while TCP ramps up.
    type: int
    default: 1
  streams:
    description: Parallel TCP streams per test (C(iperf3 -P)).
    type: int
    default: 1
  bidir:
    description: Measure both directions at once (C(--bidir)); false measures from this node to the peer only.
    type: bool
    default: true
  connect_wait:
    description: Seconds the client tries again while the peer's server is not listening yet.
    type: float
    default: 15
  idle_timeout:
    description: Seconds a server waits for its test before it exits (C(iperf3 --idle-timeout)).
    type: int
    default: 120
  pid_dir:
    description: Where the servers' pid files go.
    type: path
    default: /tmp
  state:
    description: C(present) runs the round; C(absent) stops the servers this module started on the node.
    type: str
    choices: [present, absent]
    default: present
notes:
  - Check mode starts no server and sends no traffic; it returns the tests it would run, without results.
  - iperf3 is Homebrew's (C(/opt/homebrew/bin/iperf3)), found before any other on PATH.
seealso:
  - module: macops.cluster.tb_link_check
"""

EXAMPLES = r"""
- name: Measure one round of cables
  macops.cluster.link_bench:
    tests: "{{ _round | selectattr('client', 'equalto', inventory_hostname) | list }}"
    serve: "{{ _round | selectattr('server', 'equalto', inventory_hostname) | map(attribute='server_ip') | list }}"
    seconds: 5

- name: Stop every iperf3 server a benchmark started here
  macops.cluster.link_bench:
    state: absent
"""

RETURN = r"""
tests:
  description:
    - One entry per cable of O(tests), its fields from O(tests) plus C(error)
      (iperf3's message when the test did not run, else null), C(attempts) and C(forward) and C(backward)
      (client to server and back, each C(bits_per_second) at the receiver, C(sender_bits_per_second),
      C(bytes), C(seconds), C(retransmits); C(backward) null without O(bidir)).
  returned: always
  type: list
  elements: dict
servers:
  description: The pid files of the servers started (O(state=present)) or stopped (O(state=absent)).
  returned: always
  type: list
  elements: str
"""

import glob
import os
import signal
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _iperf3
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands

PID_PREFIX = "macops-iperf3-"
# iperf3's words when nothing listens yet: try again (the peer starts its server in the same task).
NOT_LISTENING = ("Connection refused", "unable to connect to server")
RETRY_SECONDS = 0.25


def pid_file(module, address):
    return os.path.join(module.params["pid_dir"], "%s%s-%d.pid" % (PID_PREFIX, address, module.params["port"]))


def start_servers(module, iperf3):
    started = []
    for address in module.params["serve"]:
        path = pid_file(module, address)
        argv = [iperf3, "-s", "-1", "-B", address, "-p", str(module.params["port"]), "-D", "--pidfile", path,
                "--idle-timeout", str(module.params["idle_timeout"])]
        commands.run(module, argv)
        started.append(path)
    return started


def client_argv(module, iperf3, test):
    params = module.params
    argv = [iperf3, "-c", test["server_ip"], "-B", test["client_ip"], "-p", str(params["port"]),
            "-t", str(params["seconds"]), "-O", str(params["omit_seconds"]), "-P", str(params["streams"]), "-J"]
    return argv + (["--bidir"] if params["bidir"] else [])


def run_test(module, iperf3, test):
    """One client run, tried again while the peer's server is not listening; its parsed result."""
    argv = client_argv(module, iperf3, test)
    deadline = time.time() + module.params["connect_wait"]
    attempts = 0
    while True:
        attempts += 1
        rc, stdout, stderr = module.run_command(argv)
        parsed = commands.parse(module, _iperf3.parse, stdout) if stdout.strip() else {
            "error": (stderr or "iperf3 exited %d with no output" % rc).strip(), "forward": None, "backward": None}
        # Not listening yet, or a run that printed nothing (seen once on a busy machine): try again.
        waiting = not stdout.strip() or (parsed["error"] and any(words in parsed["error"] for words in NOT_LISTENING))
        if not waiting or time.time() >= deadline:
            break
        time.sleep(RETRY_SECONDS)
    return dict(test, attempts=attempts, error=parsed["error"], forward=parsed["forward"],
                backward=parsed["backward"], iperf3_version=parsed.get("version"))


def is_iperf3(module, pid):
    """Whether the pid is still an iperf3 process (a pid file can outlive its server, and the pid be reused)."""
    rc, stdout, _stderr = module.run_command(["ps", "-p", str(pid), "-o", "comm="])
    return rc == 0 and os.path.basename(stdout.strip()) == "iperf3"


def stop_servers(module):
    """SIGTERM to each server of a pid file this module wrote, if it is still iperf3; the files go."""
    stopped = []
    for path in sorted(glob.glob(os.path.join(module.params["pid_dir"], PID_PREFIX + "*.pid"))):
        try:
            with open(path) as handle:
                pid = int(handle.read().strip() or 0)
        except (OSError, ValueError):
            pid = 0
        if pid > 0 and not module.check_mode and is_iperf3(module, pid):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass  # gone meanwhile: it ran its one test
        if not module.check_mode:
            try:
                os.unlink(path)
            except OSError:
                pass
        stopped.append(path)
    return stopped


def main():
    module = AnsibleModule(
        argument_spec=dict(
            tests=dict(type="list", elements="dict", default=[], options=dict(
                link_id=dict(type="str", required=True), client_ip=dict(type="str", required=True),
                server_ip=dict(type="str", required=True), round=dict(type="int"), client=dict(type="str"),
                server=dict(type="str"), client_port=dict(type="str"), server_port=dict(type="str"),
                repeat=dict(type="int"))),
            serve=dict(type="list", elements="str", default=[]),
            port=dict(type="int", default=5201),
            seconds=dict(type="int", default=5),
            omit_seconds=dict(type="int", default=1),
            streams=dict(type="int", default=1),
            bidir=dict(type="bool", default=True),
            connect_wait=dict(type="float", default=15),
            idle_timeout=dict(type="int", default=120),
            pid_dir=dict(type="path", default="/tmp"),
            state=dict(type="str", choices=["present", "absent"], default="present"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["state"] == "absent":
        stopped = stop_servers(module)
        module.exit_json(changed=bool(stopped), servers=stopped, tests=[])
    for name in ("seconds", "streams"):
        if params[name] < 1:
            module.fail_json(msg="%s = %d is refused: it must be 1 or more" % (name, params[name]))
    if module.check_mode:
        module.exit_json(changed=False, servers=[], tests=[dict(t, error=None, forward=None, backward=None)
                                                           for t in params["tests"]])
    iperf3 = commands.require_command(module, "iperf3")
    started = start_servers(module, iperf3)
    results = [run_test(module, iperf3, test) for test in params["tests"]]
    # Measuring changes nothing on the node: the servers are gone after their one test.
    module.exit_json(changed=False, servers=started, tests=results)


if __name__ == "__main__":
    main()
