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
version_added: 0.1.0
description:
  - Runs one round of the benchmark role's links suite on this node. For each entry of O(serve) it runs a
    one-off iperf3 server bound to this node's address on that cable (C(iperf3 -s -1 -B ADDRESS -J)); for each
    entry of O(tests) it runs the iperf3 client from this node's end of the cable to the peer's (C(-B) this end,
    so the traffic cannot take another route), both directions at once (C(--bidir)) unless O(bidir=false).
  - The peer's server starts in the same task on the peer, so a client run that ends without a measurement
    sooner than a test takes (the server is not listening yet, or the client died early) is tried again, for up
    to O(connect_wait) seconds. A server whose test did not complete starts again for that retry.
  - Both ends return their figures. A client that measured but printed nothing (iperf3 has been seen to die
    after a test) loses nothing, since M(macops.cluster.cluster_report) (its
    O(macops.cluster.cluster_report#module:benchmark) option) then takes the server's figures.
  - The servers run in the foreground of the module and end with it, after their one test or when no client
    came within O(connect_wait) plus the test's duration (C(--idle-timeout)). O(state=absent) stops any server
    left by an interrupted run, by the pid files the servers write.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  tests:
    description: The cables this node measures as the client, in the shape of P(macops.cluster.benchmark_plan#filter)'s tests.
    type: list
    elements: dict
    default: []
    suboptions: &test_fields
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
        description: The client end's inventory name (returned as it is).
        type: str
      server:
        description: The server end's inventory name (returned as it is).
        type: str
      client_port:
        description: The client end's interface on the cable (returned as it is).
        type: str
      server_port:
        description: The server end's interface on the cable (returned as it is).
        type: str
      client_ip:
        description: The client end's address on the cable.
        type: str
        required: true
      server_ip:
        description: The server end's address on the cable.
        type: str
        required: true
  serve:
    description:
      - The cables this node serves a test on, in the same shape as O(tests); the server binds to C(server_ip).
    type: list
    elements: dict
    default: []
    suboptions: *test_fields
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
  - module: macops.cluster.node_facts
"""

EXAMPLES = r"""
- name: Measure one round of cables
  macops.cluster.link_bench:
    tests: "{{ _round | selectattr('client', 'equalto', inventory_hostname) | list }}"
    serve: "{{ _round | selectattr('server', 'equalto', inventory_hostname) | list }}"
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
served:
  description:
    - One entry per cable of O(serve), its fields from O(serve) plus the server's own figures in the shape of
      RV(tests) (C(forward) at this end as the receiver, C(backward) at this end as the sender), C(error) and
      C(starts) (how many times the server started).
  returned: always
  type: list
  elements: dict
servers:
  description: The pid files of the servers run (O(state=present)) or stopped (O(state=absent)).
  returned: always
  type: list
  elements: str
"""

import glob
import os
import signal
import threading
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _iperf3
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands

PID_PREFIX = "macops-iperf3-"
RETRY_SECONDS = 0.25
# A server outlives its client's connect_wait by the test itself and this much slack.
SERVER_SLACK_SECONDS = 10


def pid_file(module, address):
    return os.path.join(module.params["pid_dir"], "%s%s-%d.pid" % (PID_PREFIX, address, module.params["port"]))


def server_argv(module, iperf3, address, idle_seconds):
    return [iperf3, "-s", "-1", "-B", address, "-p", str(module.params["port"]), "-J",
            "--pidfile", pid_file(module, address), "--idle-timeout", str(max(1, int(idle_seconds)))]


def serve_one(module, iperf3, entry, deadline, record):
    """Serve one cable's test in the foreground, one client connection per server start, and start
    again after a test that did not complete (a client that died mid-test tries again) until one
    completes or the deadline passes. The server's own figures are kept: a client that measured
    and then died before printing them loses nothing."""
    starts, parsed = 0, None
    while True:
        if starts:
            time.sleep(RETRY_SECONDS)
        starts += 1
        clear_stale_pid_file(module, pid_file(module, entry["server_ip"]))
        # No time limit of its own: the server's idle timeout ends it at the deadline.
        rc, stdout, stderr = commands.result_of(server_argv(module, iperf3, entry["server_ip"], deadline - time.time()),
                                                timeout=None)
        # A one-off server whose idle timeout passes without a client prints nothing.
        parsed = _parse_or_error(stdout, stderr or ("" if stdout.strip() else "no client connected in time"), rc)
        if parsed["forward"] or time.time() >= deadline - 1:
            break
    record.update(dict(entry, starts=starts, error=parsed["error"], forward=parsed["forward"],
                       backward=parsed["backward"], iperf3_version=parsed.get("version")))


def start_servers(module, iperf3):
    """One thread per cable this node serves; the caller joins them after its own tests."""
    params = module.params
    deadline = time.time() + params["connect_wait"] + params["seconds"] + params["omit_seconds"] + SERVER_SLACK_SECONDS
    served, threads = [], []
    for entry in params["serve"]:
        record = {}
        thread = threading.Thread(target=serve_one, args=(module, iperf3, entry, deadline, record))
        thread.start()
        served.append(record)
        threads.append(thread)
    return served, threads


def _parse_or_error(stdout, stderr, rc):
    """iperf3's JSON parsed; output that is empty or not iperf3's JSON becomes an error, never a crash:
    the other end's figures may still make the test count."""
    if stdout.strip():
        try:
            return _iperf3.parse(stdout)
        except ParseError as exc:
            return {"error": str(exc), "forward": None, "backward": None}
    return {"error": (stderr.strip() or "iperf3 exited %d and printed nothing" % rc), "forward": None,
            "backward": None}


def client_argv(module, iperf3, test):
    params = module.params
    argv = [iperf3, "-c", test["server_ip"], "-B", test["client_ip"], "-p", str(params["port"]),
            "-t", str(params["seconds"]), "-O", str(params["omit_seconds"]), "-P", str(params["streams"]), "-J"]
    return argv + (["--bidir"] if params["bidir"] else [])


def run_test(module, iperf3, test):
    """One client run, tried again while it ends without measuring sooner than a test takes (the
    peer's server is not listening yet, or is busy, or the client died early), for up to connect_wait."""
    argv = client_argv(module, iperf3, test)
    deadline = time.time() + module.params["connect_wait"]
    attempts = 0
    while True:
        attempts += 1
        began = time.time()
        rc, stdout, stderr = commands.result_of(argv, timeout=module.params["seconds"] + module.params["omit_seconds"]
                                                + module.params["connect_wait"] + SERVER_SLACK_SECONDS)
        parsed = _parse_or_error(stdout, stderr, rc)
        quick = time.time() - began < module.params["seconds"]
        if parsed["forward"] or not quick or time.time() >= deadline:
            break
        time.sleep(RETRY_SECONDS)
    return dict(test, attempts=attempts, error=parsed["error"], forward=parsed["forward"],
                backward=parsed["backward"], iperf3_version=parsed.get("version"))


def is_iperf3(pid):
    """Whether the pid is still an iperf3 process (a pid file can outlive its server, and the pid be reused)."""
    rc, stdout, _stderr = commands.result_of(["ps", "-p", str(pid), "-o", "comm="])
    return rc == 0 and os.path.basename(stdout.strip()) == "iperf3"


def read_pid(path):
    try:
        with open(path) as handle:
            return int(handle.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def clear_stale_pid_file(module, path):
    """A pid file left by a killed server: iperf3 refuses to start while its pid is alive, and
    after a while that pid is some other process. A live iperf3's file stays (absent stops it)."""
    pid = read_pid(path)
    if os.path.exists(path) and not (pid > 0 and is_iperf3(pid)):
        try:
            os.unlink(path)
        except OSError:
            pass


def stop_servers(module):
    """SIGTERM to each server of a pid file this module wrote, if it is still iperf3; the files go."""
    stopped = []
    for path in sorted(glob.glob(os.path.join(module.params["pid_dir"], PID_PREFIX + "*.pid"))):
        pid = read_pid(path)
        if pid > 0 and not module.check_mode and is_iperf3(pid):
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


TEST_OPTIONS = dict(
    link_id=dict(type="str", required=True), client_ip=dict(type="str", required=True),
    server_ip=dict(type="str", required=True), round=dict(type="int"), client=dict(type="str"),
    server=dict(type="str"), client_port=dict(type="str"), server_port=dict(type="str"), repeat=dict(type="int"))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            tests=dict(type="list", elements="dict", default=[], options=TEST_OPTIONS),
            serve=dict(type="list", elements="dict", default=[], options=TEST_OPTIONS),
            port=dict(type="int", default=5201),
            seconds=dict(type="int", default=5),
            omit_seconds=dict(type="int", default=1),
            streams=dict(type="int", default=1),
            bidir=dict(type="bool", default=True),
            connect_wait=dict(type="float", default=15),
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
        module.exit_json(changed=False, servers=[], served=[],
                         tests=[dict(t, error=None, forward=None, backward=None) for t in params["tests"]])
    iperf3 = commands.require_command(module, "iperf3")
    served, threads = start_servers(module, iperf3)
    results = [run_test(module, iperf3, test) for test in params["tests"]]
    for thread in threads:
        thread.join()
    # Measuring changes nothing on the node: the servers are gone after their one test.
    module.exit_json(changed=False, servers=[pid_file(module, entry["server_ip"]) for entry in params["serve"]],
                     served=served, tests=results)


if __name__ == "__main__":
    main()
