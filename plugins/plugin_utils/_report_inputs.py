# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The report's inputs read from what the roles publish (docs/architecture.md, the facts table):
each node's entry and the roles' problems, from the hosts' variables, so that no playbook
assembles them in Jinja. The cluster_report action calls these with task_vars['hostvars']."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections.abc import Mapping

SMOKE_CHECK_NAME = "MLX all_sum over Thunderbolt"
# The roles whose published result carries a `problems` list for the report, in report order.
PROBLEM_FACTS = ("macops_preflight", "macops_tb_network", "macops_sudoers", "macops_mlx", "macops_doctor")


def plain(value):
    """A copy made of plain dicts and lists (hostvars hand out Ansible's lazy containers)."""
    if isinstance(value, Mapping):
        return dict((key, plain(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


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


def node_entry(host, host_vars, play_hosts):
    """One host's report entry ({reachable, mac, rdma, software, gpu, services, checks, models})."""
    mac = _mac(host_vars)
    rdma, gpu = (plain(host_vars.get(name)) if host_vars is not None else None
                 for name in ("macops_rdma", "macops_gpu"))
    python_env, mlx, exo, preflight, doctor = (_fact(host_vars, name) for name in (
        "macops_python_env", "macops_mlx", "macops_exo", "macops_preflight", "macops_doctor"))
    checks = list(preflight.get("checks") or []) + list(doctor.get("checks") or [])
    # doctor.yml's sweep read RDMA, the wired limit and exo itself: shown where the roles' results are.
    rdma = rdma if rdma is not None else doctor.get("rdma")
    gpu = gpu if gpu is not None else doctor.get("gpu")
    exo = exo or doctor.get("exo") or {}
    smoke = mlx.get("smoke")
    if "smoke" in mlx:
        checks.append({"name": SMOKE_CHECK_NAME, "ok": (smoke or {}).get("ok"),
                       "detail": (smoke or {}).get("detail", "")})
    return {
        # A node that failed a step after its facts were gathered was reached all the same.
        "reachable": doctor.get("reachable", True) is not False and (host in play_hosts or mac is not None),
        "mac": mac,
        "rdma": rdma,
        "software": {"python": python_env.get("version"), "mlx": mlx.get("mlx"), "mlx_lm": mlx.get("mlx_lm"),
                     "exo": exo.get("version")},
        "gpu": gpu,
        "services": {"exo": {"running": exo.get("running"), "detail": exo.get("detail", "")}},
        "checks": checks,
        "models": _models(host_vars),
    }


def nodes_from_hostvars(hosts, hostvars, play_hosts):
    """{host: entry} for every host, in the order given (the inventory's group)."""
    return dict((host, node_entry(host, hostvars.get(host), play_hosts)) for host in hosts)


def problems_from_hostvars(hosts, hostvars):
    """Every role's published problems, host by host, each with its host (a problem that names
    one keeps it)."""
    found = []
    for host in hosts:
        host_vars = hostvars.get(host)
        for name in PROBLEM_FACTS:
            for finding in _fact(host_vars, name).get("problems") or []:
                entry = {"host": host}
                entry.update(finding)
                found.append(entry)
    return found
