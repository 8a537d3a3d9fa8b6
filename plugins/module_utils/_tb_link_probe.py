# -*- coding: utf-8 -*-
# PRIVATE to the collection: the Thunderbolt link check tb_network and node_facts (links) run.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Route and ping every planned peer at once, and judge each link (the commands run through the
module, in threads; parsing, which may fail the module, happens in the calling thread)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._ping import parse_summary
from ansible_collections.macops.cluster.plugins.module_utils._route import parse_route_get
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_problems import link_problems


def _probe(module, route, ping, link, count, timeout, interval):
    """route and ping of one link, both at once (neither changes what the other sees)."""
    answers = {}

    def run(key, argv):
        answers[key] = commands.result_of(argv)

    threads = [threading.Thread(target=run, args=("route", [route, "-n", "get", link["peer_ip"]])),
               threading.Thread(target=run, args=("ping", [ping, "-c", str(count)]
                                                  + (["-i", "%g" % interval] if interval is not None else [])
                                                  + ["-t", str(timeout), link["peer_ip"]]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers["route"], answers["ping"]


def _judge(module, link, route_result, ping_result):
    found = commands.parse(module, parse_route_get, route_result[1]) if route_result[0] == 0 else None
    summary = parse_summary(ping_result[1]) or {"transmitted": 0, "received": 0}
    route_interface = found["interface"] if found else None
    return {
        "interface": link["interface"],
        "peer_ip": link["peer_ip"],
        "peer_host": link.get("peer_host"),
        "route_interface": route_interface,
        "transmitted": summary["transmitted"],
        "received": summary["received"],
        "ok": ping_result[0] == 0 and summary["received"] > 0 and route_interface == link["interface"],
    }


def probe_links(module, links, count=2, timeout=3, interval=None):
    """The raw answers (route and ping per link, and the default route) of every link at once:
    each ping waits about a second per packet, so one after another the check would take a second
    or more per cable. Only runs commands (no parsing, nothing that fails the module), so a caller
    may run it in a thread beside its other reads and judge afterwards (judge_links)."""
    route, ping = commands.require_command(module, "route"), commands.require_command(module, "ping")
    probes = [None] * len(links)
    default_answer = []

    def probe(index):
        probes[index] = _probe(module, route, ping, links[index], count, timeout, interval)

    threads = [threading.Thread(target=probe, args=(index,)) for index in range(len(links))]
    threads.append(threading.Thread(target=lambda: default_answer.append(
        commands.result_of([route, "-n", "get", "default"]))))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"links": probes, "default": default_answer[0]}


def judge_links(module, links, answers, hardware_ports=None):
    """(links judged, default route or None, problems) from probe_links' answers. The hardware
    ports (for judging a default route over Thunderbolt) are the caller's when it read them
    already, else read only when there is a default route."""
    rc, stdout, _stderr = answers["default"]
    default = commands.parse(module, parse_route_get, stdout) if rc == 0 else None
    default_route = {"interface": default["interface"], "gateway": default["gateway"]} if default else None
    thunderbolt = []
    if default_route:
        ports = hardware_ports if hardware_ports is not None else commands.parse(module, parse_hardware_ports, commands.run(
            module, [commands.require_command(module, "networksetup"), "-listallhardwareports"]))
        thunderbolt = sorted(port["device"] for port in ports if port["name"].startswith("Thunderbolt"))
    judged = [_judge(module, link, *answers["links"][index]) for index, link in enumerate(links)]
    return judged, default_route, link_problems(judged, default_route, thunderbolt + ["bridge0"])


def check_links(module, links, count=2, timeout=3, interval=None, hardware_ports=None):
    """(links judged, default route or None, problems): probe_links, then judge_links."""
    return judge_links(module, links, probe_links(module, links, count, timeout, interval), hardware_ports)
