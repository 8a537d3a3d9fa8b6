# -*- coding: utf-8 -*-
# PRIVATE to the collection: the RDMA reads shared by the modules rdma_status and node_facts.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""RDMA readiness from ``rdma_ctl status``, ``ibv_devices`` and ``ibv_devinfo -v``.

The caller starts :func:`argvs` together with its other reads (``run_parallel``) and hands the
results to :func:`readiness` with the Thunderbolt ports it already has (from its own
``system_profiler`` run, or from the ``macops_mac`` fact), so that no module runs
``system_profiler`` a second time for RDMA.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils import _ibv_devices, _ibv_devinfo, _rdma_ctl, _rdma_readiness
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

DEVINFO_TAIL = ["-v"]


def argvs(module):
    """[rdma_ctl status, ibv_devices, ibv_devinfo -v]; None for a tool that is not installed. All
    three start together: ibv_devinfo's answer is only used when ibv_devices lists devices, but
    waiting for that would cost a second round of commands on every node."""
    rdma_ctl = commands.find_command(module, "rdma_ctl")
    ibv_devices = commands.find_command(module, "ibv_devices")
    ibv_devinfo = commands.find_command(module, "ibv_devinfo")
    return [[rdma_ctl, "status"] if rdma_ctl else None, [ibv_devices] if ibv_devices else None,
            [ibv_devinfo] + DEVINFO_TAIL if ibv_devinfo else None]


def rdma_ctl_status(result):
    """rdma_ctl's state from its (rc, stdout, stderr); None when it is not installed."""
    if result is None:
        return None
    rc, stdout, _stderr = result
    try:
        return _rdma_ctl.status_from_result(rc, stdout)
    except ParseError:
        return _rdma_ctl.UNKNOWN


def ibv_result(name, argv_tail, result, parser, tool_problems):
    """An ibv tool's output, leniently: a failure is a warning, never a failed task."""
    if result is None:
        return []
    rc, stdout, stderr = result
    try:
        if rc != 0:
            raise ParseError(" ".join([name] + argv_tail), "exit status %d: %s" % (rc, (stderr or stdout).strip()))
        return parser(stdout)
    except ParseError as exc:
        tool_problems.append(_rdma_readiness.problem(
            "rdma_tool_failed", _rdma_readiness.WARNING, str(exc),
            "Run `%s` on the Mac by hand; reboot if RDMA was just enabled." % " ".join([name] + argv_tail),
        ))
        return []


def readiness(module, results, macos_version, macos_build, min_macos, thunderbolt_ports):
    """The rdma_status result (enabled, macos_version, macos_build, ports, ready, problems) from
    the results of :func:`argvs`; ``ibv_devinfo -v``'s only when ``ibv_devices`` found devices (a
    caller without its result, two entries, has it run then).
    ``thunderbolt_ports``: ``_mac_facts.thunderbolt_ports`` entries (with ``device_name``)."""
    tool_problems = []
    devices = ibv_result("ibv_devices", [], results[1], _ibv_devices.parse, tool_problems)
    devinfo = []
    if devices:
        if len(results) > 2:
            answer = results[2]
        else:
            path = commands.find_command(module, "ibv_devinfo")
            answer = path and commands.result_of([path] + DEVINFO_TAIL)
        devinfo = ibv_result("ibv_devinfo", DEVINFO_TAIL, answer,
                             lambda text: _ibv_devinfo.parse(text, _ibv_devinfo.VERBOSE_COMMAND), tool_problems)
    assessed = _rdma_readiness.assess(rdma_ctl_status(results[0]), macos_version, min_macos, devices, devinfo,
                                      thunderbolt_ports)
    return {
        "enabled": assessed["enabled"],
        "macos_version": macos_version,
        "macos_build": macos_build,
        "ports": assessed["ports"],
        "ready": assessed["ready"],
        "problems": assessed["problems"] + tool_problems,
    }
