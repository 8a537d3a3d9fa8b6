# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report's inputs read from what the roles publish (docs/architecture.md, the facts table):
each node's entry and the roles' problems, from the hosts' variables, so that no playbook
assembles them in Jinja. The cluster_report action calls these with task_vars['hostvars']."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

from ._report_sections import doctor_section, reboot_section

SMOKE_CHECK_NAME = "MLX all_sum over Thunderbolt"
# The roles whose published result carries a `problems` list for the report, in report order.
PROBLEM_FACTS = ("macops_preflight", "macops_tb_network", "macops_sudoers", "macops_mlx", "macops_doctor",
                 "macops_reboot")
# The operations whose per-node result is a section of the report (_report_sections), by published fact.
SECTION_FACTS = (("doctor", "macops_doctor"), ("reboot", "macops_reboot"))


def plain(value):
    """A copy made of plain dicts and lists (hostvars hand out Ansible's lazy containers)."""
    if isinstance(value, Mapping):
        return dict((key, plain(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def _host_vars(hostvars, host):
    """A host's variables, None for a host the inventory does not have (hostvars would raise)."""
    return hostvars.get(host) if host in hostvars else None


def _fact(host_vars, name):
    """A published fact as plain data, {} when the role did not run on the host."""
    value = host_vars.get(name) if host_vars is not None else None
    return plain(value) if isinstance(value, Mapping) else {}


def _mac(host_vars):
    facts = host_vars.get("ansible_facts") if host_vars is not None else None
    mac = facts.get("macops_mac") if isinstance(facts, Mapping) else None
    return plain(mac) if mac is not None else None


def _models(host_vars):
    """The deployed models node_facts' models group found (the preflight read), None when not read."""
    facts = host_vars.get("ansible_facts") if host_vars is not None else None
    node = facts.get("macops_node") if isinstance(facts, Mapping) else None
    models = node.get("models") if isinstance(node, Mapping) else None
    return plain(models) if isinstance(models, (list, tuple)) else None


def _number(value):
    """An int from a published number (templated values may arrive as text), None when there is none."""
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _reboot_gpu(reboot):
    """The wired limit reboot-cluster.yml read, None where the node has no target to compare with."""
    gpu = reboot.get("gpu") if isinstance(reboot.get("gpu"), Mapping) else {}
    target = _number(gpu.get("target_mb"))
    return None if target is None else {"wired_limit_mb": _number(gpu.get("wired_limit_mb")), "target_mb": target}


def node_entry(host, host_vars, play_hosts):
    """One host's report entry ({reachable, mac, rdma, software, gpu, services, checks, models})."""
    mac = _mac(host_vars)
    rdma, gpu = (plain(host_vars.get(name)) if host_vars is not None else None
                 for name in ("macops_rdma", "macops_gpu"))
    python_env, mlx, exo, preflight, doctor, reboot = (_fact(host_vars, name) for name in (
        "macops_python_env", "macops_mlx", "macops_exo", "macops_preflight", "macops_doctor", "macops_reboot"))
    checks = list(preflight.get("checks") or []) + list(doctor.get("checks") or []) + list(reboot.get("checks") or [])
    # doctor.yml's sweep and reboot-cluster.yml's reads saw RDMA and the wired limit (and the sweep exo)
    # themselves: shown where the roles' results are.
    rdma = next((found for found in (rdma, doctor.get("rdma"), reboot.get("rdma")) if found is not None), None)
    gpu = next((found for found in (gpu, doctor.get("gpu"), _reboot_gpu(reboot)) if found is not None), None)
    exo = exo or doctor.get("exo") or {}
    # The roles' versions where this run set them up, else those the doctor's sweep read (its exo read
    # fills exo above, so each version falls back on its own): the report judges them across nodes.
    swept = doctor.get("software") if isinstance(doctor.get("software"), Mapping) else {}
    software = dict((key, found if found is not None else swept.get(key)) for key, found in (
        ("python", python_env.get("version")), ("mlx", mlx.get("mlx")), ("mlx_lm", mlx.get("mlx_lm")),
        ("exo", exo.get("version"))))
    smoke = mlx.get("smoke")
    if "smoke" in mlx:
        checks.append({"name": SMOKE_CHECK_NAME, "ok": (smoke or {}).get("ok"),
                       "detail": (smoke or {}).get("detail", "")})
    return {
        # A node that failed a step after its facts were gathered was reached all the same; one that did not
        # come back from its reboot was not.
        "reachable": doctor.get("reachable", True) is not False and reboot.get("back", True) is not False
        and (host in play_hosts or mac is not None),
        "mac": mac,
        "rdma": rdma,
        "software": software,
        "gpu": gpu,
        "services": {"exo": {"running": exo.get("running"), "detail": exo.get("detail", "")}},
        "checks": checks,
        "models": _models(host_vars),
    }


def nodes_from_hostvars(hosts, hostvars, play_hosts):
    """{host: entry} for every host, in the order given (the inventory's group)."""
    return dict((host, node_entry(host, _host_vars(hostvars, host), play_hosts)) for host in hosts)


def problems_from_hostvars(hosts, hostvars):
    """Every role's published problems, host by host, each with its host (a problem that names
    one keeps it)."""
    found = []
    for host in hosts:
        host_vars = _host_vars(hostvars, host)
        for name in PROBLEM_FACTS:
            for finding in _fact(host_vars, name).get("problems") or []:
                entry = {"host": host}
                entry.update(finding)
                found.append(entry)
    return found


def sections_from_hostvars(hosts, hostvars, run=None):
    """The operations' sections (doctor, reboot) from what their roles published on these hosts; an
    operation none of them ran has none."""
    built = []
    for operation, name in SECTION_FACTS:
        results = dict((host, _fact(_host_vars(hostvars, host), name)) for host in hosts)
        results = dict((host, result) for host, result in results.items() if result)
        if results:
            built.append(doctor_section(results) if operation == "doctor" else reboot_section(results, run))
    return built
