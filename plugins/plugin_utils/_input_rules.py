# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what an argument spec cannot say, one function per role.
# Names and behaviour may change without notice. Stdlib only.
"""Input rules beyond the argument specs: ranges, address formats, cross-variable rules.

Each rule gets the role's values after ``_inputs.check_options`` validated and coerced them
(``Params``; a value its spec refused is absent, so it is never refused twice) and the run's
``Context`` (the host, the inventory, other hosts' values), and returns problems. Rules are fact
free: they read the inventory and the controller only, before anything connects.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.module_utils._sudo_rules import unsafe_entries
from ansible_collections.macops.cluster.plugins.plugin_utils._input_rule_base import (
    LAUNCHD_LABEL, absolute_path, at_least, bad, ipv4_networks, launchd_label)
# The operations' rules, in RULES below.
from ansible_collections.macops.cluster.plugins.plugin_utils._operation_input_rules import (
    benchmark, deploy_model, macos_update, serve)
from ansible_collections.macops.cluster.plugins.plugin_utils._tb_addressing import pool_problem

ACCOUNT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
# One version pinned with == (or ===): every node must run the same build.
EXACT_PIN = re.compile(r"^[A-Za-z0-9._-]+(\[[A-Za-z0-9_,-]+\])?\s*===?\s*\S+$")
VERSION = re.compile(r"^\d+(\.\d+)*$")


def _ports(params, context, name):
    value = params.get(name)
    if value is None:
        return []
    if not value or any(port < 1 or port > 65535 for port in value):
        return [bad(context, name, value, "it must list at least one port, each from 1 to 65535",
                    "Set %s to the ports exo uses (the defaults are exo's own)." % name)]
    return []


def macops(params, context):
    """Cluster-wide settings: the Thunderbolt address pool and the exact MLX pins."""
    found = []
    if params.has("macops_tb_address_pool"):
        reason = pool_problem(params["macops_tb_address_pool"], len(context.macs), context.management.values())
        if reason:
            found.append(bad(context, "macops_tb_address_pool", params["macops_tb_address_pool"], reason,
                             "Set macops_tb_address_pool in group_vars/macs to an unused IPv4 network with one /30 "
                             "per possible cable, for example 192.168.200.0/22."))
    for name, example in (("macops_mlx_package_spec", "mlx==0.32.4"), ("macops_mlx_lm_package_spec", "mlx-lm==0.32.2")):
        if params.has(name) and not EXACT_PIN.match(params[name]):
            found.append(bad(context, name, params[name], "it must pin one version with == so every node runs the same",
                             "Set %s to an exact pin such as %s." % (name, example)))
        elif params.has(name):
            # Mismatched MLX versions fail in confusing ways: one pin for the whole group.
            others = dict((host, value) for host, value in context.values_on(name).items()
                          if value is not None and value != params[name])
            if others:
                found.append(bad(context, name, params[name], "every node must run the same version, and %s differ"
                                 % ", ".join("%s has %s" % (host, others[host]) for host in sorted(others)),
                                 "Set %s once, in group_vars for the macs group (not per host)." % name))
    found += absolute_path(params, context, "macops_venv_path")
    found += absolute_path(params, context, "macops_state_dir")
    return found


def preflight(params, context):
    """The inventory: how many Macs, and one management address each."""
    found = []
    maximum = params.get("preflight_max_nodes", 16)
    if not 1 <= len(context.macs) <= maximum:
        found.append(problem(
            "input_inventory", "The group 'macs' must hold between 1 and %d hosts; it holds %d." % (maximum, len(context.macs)),
            "Put every node of the cluster in the group 'macs' (or raise preflight_max_nodes).", host=context.host))
    addresses = [address for address in context.management.values() if address]
    shared = sorted(set(address for address in addresses if addresses.count(address) > 1))
    if shared:
        owners = sorted(host for host, address in context.management.items() if address in shared)
        found.append(problem(
            "input_inventory", "Hosts %s share the management address(es) %s." % (", ".join(owners), ", ".join(shared)),
            "Give every Mac its own ansible_host.", host=context.host))
    for name in ("preflight_min_macos_version", "preflight_min_python_version"):
        if params.has(name) and not VERSION.match(params[name]):
            found.append(bad(context, name, params[name], "it must be a version such as 26.2",
                             "Set %s to dotted numbers." % name))
    found += at_least(params, context, [("preflight_max_nodes", 1, "a cluster has nodes"),
                                        ("preflight_min_memory_gb", 0, "GiB"),
                                        ("preflight_min_free_disk_gb", 0, "GiB")])
    return found


# A sudoers command entry: an absolute path and fixed arguments, or one ^...$ regular expression
# over all the arguments (sudo >= 1.9.10). None of sudo's special characters (, : = \ unescaped
# would end or change the rule), no comment sign, and no $ before a regular expression's end.
_SUDO_COMMAND = re.compile(r"^/[^,:=\\\n#]+$")
_SUDO_ALL = re.compile(r"(^|\s)ALL(\s|$)")


def _sudo_entry_problem(entry):
    if not _SUDO_COMMAND.match(entry) or _SUDO_ALL.search(entry):
        return "each entry must be an absolute path with optional fixed arguments, without , : = \\ # or ALL"
    arguments = entry.split(None, 1)[1] if len(entry.split(None, 1)) > 1 else ""
    if arguments.startswith("^") and "$" in arguments[:-1]:
        return "a regular expression's $ may only end the arguments (sudo anchors it there)"
    return None


def sudoers(params, context):
    """The account, the file's name, every command entry and every generated rule's inputs; and no
    entry that gives a shell or runs arbitrary code as root (the verify step would find it only
    after it was written), unless the owner accepts it by name."""
    if params.get("sudoers_state") != "present":
        return []
    found = []
    if params.has("sudoers_user") and not ACCOUNT_NAME.match(params["sudoers_user"]):
        found.append(bad(context, "sudoers_user", params["sudoers_user"], "it must be an account name",
                         "Set ansible_user or sudoers_user to the admin account's short name."))
    if params.has("sudoers_file"):
        path = params["sudoers_file"]
        if not path.startswith("/") or not re.match(r"^[^.]*[^.~]$", os.path.basename(path)):
            found.append(bad(context, "sudoers_file", path,
                             "it must be an absolute path whose name has no dot and no trailing ~ (sudo skips those)",
                             "Set sudoers_file to a path such as /etc/sudoers.d/macops."))
    accepted = params.get("sudoers_accepted_unsafe_rules") or []
    for name in ("sudoers_commands", "sudoers_extra_commands"):
        for entry in params.get(name) or []:
            reason = _sudo_entry_problem(entry)
            if reason:
                found.append(bad(context, name, entry, reason, "Fix or remove that entry of %s." % name))
                continue
            for unsafe in unsafe_entries([entry], accepted=accepted):
                reason = "as a passwordless rule it %s (e.g. `%s`)" % (unsafe["gives"], unsafe["example"])
                found.append(bad(context, name, entry, reason, "Remove it, or name it in sudoers_accepted_unsafe_rules "
                                 "if you accept that risk (docs/sudo.md)."))
    if params.has("sudoers_commands", "sudoers_extra_commands") and not params["sudoers_commands"] \
            and not params["sudoers_extra_commands"]:
        found.append(bad(context, "sudoers_commands", [], "sudoers_commands and sudoers_extra_commands are both empty",
                         "Keep the default sudoers_commands, or set sudoers_state: absent."))
    for interface in params.get("sudoers_thunderbolt_interfaces") or []:
        if not re.match(r"^en[0-9]+$", interface):
            found.append(bad(context, "sudoers_thunderbolt_interfaces", interface, "it is not a BSD interface name",
                             "List Thunderbolt interfaces such as en2, or leave the default (preflight's facts)."))
    for label in params.get("sudoers_launchd_labels") or []:
        if not LAUNCHD_LABEL.match(label):
            found.append(bad(context, "sudoers_launchd_labels", label, "it is not a launchd label",
                             "List labels such as org.macops.exo in sudoers_launchd_labels."))
    for setting, value in sorted((params.get("sudoers_pmset_settings") or {}).items()):
        if not re.match(r"^[a-z]+$", str(setting)) or isinstance(value, (list, dict)) or not re.match(
                r"^[0-9]+$", str(int(value) if isinstance(value, bool) else value)):
            found.append(bad(context, "sudoers_pmset_settings", {setting: value},
                             "pmset settings are lower-case names with a whole number or a boolean",
                             "Set sudoers_pmset_settings like {sleep: 0, autorestart: true}."))
    return found


def power(params, context):
    return at_least(params, context, [(name, 0, "0 means never") for name in (
        "power_sleep_minutes", "power_disk_sleep_minutes", "power_display_sleep_minutes")])


def ssh_mesh(params, context):
    found = at_least(params, context, [("ssh_mesh_verify_throttle", 1, "nodes checked at once"),
                                       ("ssh_mesh_verify_parallel", 1, "connections at once"),
                                       ("ssh_mesh_connect_timeout", 1, "seconds")])
    key = params.get("ssh_mesh_host_key_file")
    if key is not None and not re.match(r"^/.+\.pub$", key):
        found.append(bad(context, "ssh_mesh_host_key_file", key, "it must be the absolute path of a .pub file",
                         "Set ssh_mesh_host_key_file to a path such as /etc/ssh/ssh_host_ed25519_key.pub."))
    return found


def python_env(params, context):
    found = []
    source = params.get("python_env_interpreter_source")
    if source == "path":
        found += absolute_path(params, context, "python_env_interpreter_path", "an absolute interpreter path")
    formula = params.get("python_env_homebrew_formula")
    if source == "homebrew" and formula is not None and not re.match(r"^python@\d+\.\d+$", formula):
        found.append(bad(context, "python_env_homebrew_formula", formula, "it must look like python@3.12",
                         "Set python_env_homebrew_formula to a Homebrew Python formula such as python@3.12."))
    if params.has("python_env_python_version", "python_env_min_python_version"):
        wanted, least = params["python_env_python_version"], params["python_env_min_python_version"]
        if not VERSION.match(wanted) or not VERSION.match(least):
            found.append(bad(context, "python_env_python_version", wanted, "versions must be dotted numbers",
                             "Set python_env_python_version and python_env_min_python_version such as 3.12."))
        elif _version(wanted) < _version(least):
            found.append(bad(context, "python_env_python_version", wanted,
                             "it is older than python_env_min_python_version (%s)" % least,
                             "Set python_env_python_version to %s or later." % least))
    wheelhouse = params.get("python_env_wheelhouse_dir")
    if wheelhouse and not os.path.isdir(wheelhouse):
        found.append(bad(context, "python_env_wheelhouse_dir", wheelhouse, "it is not a directory on the controller",
                         "Fill it with `pip download --only-binary=:all: -d DIR <requirements>` on a machine with "
                         "the nodes' platform (macOS arm64, same Python), or leave it empty."))
    return found


def _version(text):
    return tuple(int(part) for part in text.split("."))


def gpu_memory(params, context):
    found = at_least(params, context, [("gpu_memory_wired_limit_mb", 0, "0 means automatic"),
                                       ("gpu_memory_reserve_mb", 0, "0 means from the table")])
    table = params.get("gpu_memory_reserve_table_mb")
    if table is not None:
        rows_ok = bool(table) and all(
            isinstance(row, dict) and _whole(row.get("reserve_mb")) and _whole(row.get("max_ram_mb")) for row in table)
        if not rows_ok:
            found.append(bad(context, "gpu_memory_reserve_table_mb", table,
                             "it needs at least one row, each with max_ram_mb and a reserve_mb of 0 or more",
                             "Keep the default table or give rows such as {max_ram_mb: 98304, reserve_mb: 8192}."))
    return found + launchd_label(params, context, "gpu_memory_launchd_label", "org.macops.gpu-memory")


def _whole(value):
    try:
        return int(value) >= 0 and not isinstance(value, bool)
    except (TypeError, ValueError):
        return False


def exo(params, context):
    found = []
    program = params.get("exo_program")
    if program is not None:
        if not program and (params.get("exo_install") is False or params.get("exo_install_method") == "app"):
            found.append(bad(context, "exo_program", program,
                             "exo_install false and exo_install_method app (whose headless command is not "
                             "documented) need the argv that runs exo in the foreground",
                             "Set exo_program to that argv, starting with an absolute path."))
        elif program and not str(program[0]).startswith("/"):
            found.append(bad(context, "exo_program", program, "it must start with an absolute path",
                             "Set exo_program's first element to the program's absolute path."))
    if params.has("exo_api_port") and not 1 <= params["exo_api_port"] <= 65535:
        found.append(bad(context, "exo_api_port", params["exo_api_port"], "it must be a TCP port from 1 to 65535",
                         "Set exo_api_port to exo's API port (52415 by default)."))
    found += absolute_path(params, context, "exo_home", empty_ok=True)
    return found + launchd_label(params, context, "exo_launchd_label", "org.macops.exo")


def firewall(params, context):
    found = launchd_label(params, context, "firewall_launchd_label", "org.macops.pf")
    if params.get("firewall_state") != "present":
        return found
    found += _ports(params, context, "firewall_exo_tcp_ports") + _ports(params, context, "firewall_exo_udp_ports")
    if params.has("firewall_mlx_first_port", "firewall_mlx_port_count"):
        first, count = params["firewall_mlx_first_port"], params["firewall_mlx_port_count"]
        if first < 1 or count < 1 or first + count - 1 > 65535:
            found.append(bad(context, "firewall_mlx_first_port", first,
                             "with firewall_mlx_port_count %d the MLX ports must lie within 1..65535" % count,
                             "Set firewall_mlx_first_port and firewall_mlx_port_count to a range inside 1..65535."))
    return found + ipv4_networks(params, context, "firewall_management_networks") \
        + ipv4_networks(params, context, "firewall_extra_allowed_networks")


def thunderbolt_network(params, context):
    found = []
    mode = params.get("thunderbolt_network_bridge_mode")
    if mode is not None and mode != "remove" and (params.get("macops_rdma_required") or len(context.macs) > 2):
        found.append(bad(context, "thunderbolt_network_bridge_mode", mode,
                         "keep only works for two Macs joined by one cable without RDMA (here: %d Macs, "
                         "macops_rdma_required %s): a bridge over several cables loops traffic, and RDMA fails on "
                         "bridged ports" % (len(context.macs), params.get("macops_rdma_required")),
                         "Set thunderbolt_network_bridge_mode: remove."))
    mtu = params.get("thunderbolt_network_mtu")
    if mtu is not None:
        if not 1280 <= mtu <= 9000:
            found.append(bad(context, "thunderbolt_network_mtu", mtu,
                             "it must be between 1280 and 9000 (networksetup -listValidMTURange)",
                             "Set thunderbolt_network_mtu once, in group_vars for the macs group."))
        others = dict((host, value) for host, value in context.values_on("thunderbolt_network_mtu").items()
                      if value is not None and _int_or_none(value) != mtu)
        if others:
            differ = ", ".join("%s has %s" % (host, others[host]) for host in sorted(others))
            found.append(bad(context, "thunderbolt_network_mtu", mtu,
                             "both ends of a cable need the same MTU, and %s differ" % differ,
                             "Set thunderbolt_network_mtu once, in group_vars for the macs group."))
    interval = params.get("thunderbolt_network_ping_interval")
    if interval is not None and interval < 0.1:
        found.append(bad(context, "thunderbolt_network_ping_interval", interval,
                         "macOS ping allows less than 0.1 s only to root", "Set it to 0.1 or more."))
    return found + at_least(params, context, [("thunderbolt_network_ping_count", 1, "pings per cable"),
                                              ("thunderbolt_network_ping_timeout", 1, "seconds")])


def _int_or_none(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def reboot_cluster(params, context):
    found = at_least(params, context, [
        ("reboot_cluster_batch_size", 1, "nodes per batch"), ("reboot_cluster_timeout", 30, "seconds to come back"),
        ("reboot_cluster_connect_timeout", 1, "seconds"), ("reboot_cluster_ssh_connection_attempts", 1, "attempts"),
        ("reboot_cluster_stop_timeout", 1, "seconds"), ("reboot_cluster_post_reboot_delay", 0, "seconds"),
        ("reboot_cluster_poll_interval", 0.2, "seconds between checks")])
    command = params.get("reboot_cluster_test_command")
    if command is not None and not command.startswith("/"):
        found.append(bad(context, "reboot_cluster_test_command", command,
                         "it must start with an absolute path (a non-interactive SSH session has a minimal PATH)",
                         "Set reboot_cluster_test_command to a command such as /usr/bin/whoami."))
    for label in params.get("reboot_cluster_stop_labels") or []:
        if not LAUNCHD_LABEL.match(label):
            found.append(bad(context, "reboot_cluster_stop_labels", label, "it is not a launchd label",
                             "List labels such as org.macops.exo in reboot_cluster_stop_labels."))
    if params.get("reboot_cluster_filevault") == "authrestart" and not (
            params.get("reboot_cluster_filevault_user") and params.get("reboot_cluster_filevault_password")):
        found.append(problem(
            "input_invalid", "reboot_cluster_filevault = 'authrestart' is refused: it needs "
            "reboot_cluster_filevault_user and reboot_cluster_filevault_password (a FileVault-enabled account).",
            "Set both, the password from a vault or an AWX credential, or choose refuse or allow.",
            host=context.host, details={"variable": "reboot_cluster_filevault"}))
    hook = params.get("reboot_cluster_power_hook")
    if params.given("reboot_cluster_power_hook") and not re.match(r"^https?://", str(hook.get("url") or "")):
        # The hook's headers and body may hold tokens: only the url is named.
        found.append(problem(
            "input_invalid", "reboot_cluster_power_hook.url is refused: it must start with http:// or https:// "
            "(the hook's headers and body are not shown).",
            "Set reboot_cluster_power_hook.url to the endpoint that power-cycles this node.",
            host=context.host, details={"variable": "reboot_cluster_power_hook.url"}))
    # The play's serial is computed from extra vars only (a play keyword cannot see inventory
    # variables), so a mode set in group_vars would silently not apply.
    play_mode = context.variable("_reboot_cluster_play_mode")
    play_batch = context.variable("_reboot_cluster_play_batch_size")
    if play_mode is not None and params.has("reboot_cluster_mode", "reboot_cluster_batch_size") and (
            str(play_mode) != params["reboot_cluster_mode"] or _int_or_none(play_batch) != params["reboot_cluster_batch_size"]):
        found.append(bad(context, "reboot_cluster_mode", params["reboot_cluster_mode"],
                         "this host asks for %s (batch size %s), but the play runs %s (batch size %s): the play's "
                         "serial cannot read inventory variables" % (
                             params["reboot_cluster_mode"], params["reboot_cluster_batch_size"], play_mode, play_batch),
                         "Pass reboot_cluster_mode and reboot_cluster_batch_size as extra vars "
                         "(-e reboot_cluster_mode=rolling) and remove them from group_vars/host_vars."))
    return found


def mlx(params, context):
    return at_least(params, context, [("mlx_smoke_test_port", 1, "a TCP port"), ("mlx_smoke_test_timeout", 1, "seconds")])


def topology(params, context):
    return at_least(params, context, [("topology_min_link_gbps", 1, "Gb/s")])


RULES = {
    "macops": macops,
    "preflight": preflight,
    "sudoers": sudoers,
    "power": power,
    "ssh_mesh": ssh_mesh,
    "python_env": python_env,
    "gpu_memory": gpu_memory,
    "exo": exo,
    "firewall": firewall,
    "thunderbolt_network": thunderbolt_network,
    "reboot_cluster": reboot_cluster,
    "mlx": mlx,
    "topology": topology,
    "benchmark": benchmark,
    "deploy_model": deploy_model,
    "serve": serve,
    "macos_update": macos_update,
}
