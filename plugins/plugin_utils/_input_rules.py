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

import ipaddress
import os
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.module_utils._sudo_rules import unsafe_entries
from ansible_collections.macops.cluster.plugins.plugin_utils._tb_addressing import pool_problem

LAUNCHD_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
ACCOUNT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
# One version pinned with == (or ===): every node must run the same build.
EXACT_PIN = re.compile(r"^[A-Za-z0-9._-]+(\[[A-Za-z0-9_,-]+\])?\s*===?\s*\S+$")
VERSION = re.compile(r"^\d+(\.\d+)*$")


class Params(object):
    """A role's validated values: ``params["name"]``, and ``params.has(*names)`` before use."""

    def __init__(self, values, options=None, given=None):
        self._values = dict(values)
        self.options = options or {}
        # As given, before the spec filled in suboption defaults (an empty mapping stays empty).
        self._given = dict(values if given is None else given)

    def __getitem__(self, name):
        return self._values[name]

    def get(self, name, default=None):
        return self._values.get(name, default)

    def has(self, *names):
        return all(name in self._values for name in names)

    def given(self, name, default=None):
        """The value as the user gave it, for a rule that must tell "not set" from the defaults."""
        return self._given.get(name, default) if name in self._values else default


class Context(object):
    """What a rule may know besides its role's values: the host, the inventory, other hosts.

    host: the inventory host; macs: the hosts of the group 'macs'; management: {host: ansible_host
    or ''}; values_on(name): {host: that host's value} over 'macs'; variable(name, default): any
    other variable of this host (play variables such as the reboot play's mode).
    """

    def __init__(self, host, macs=(), management=None, values_on=None, variable=None):
        self.host = host
        self.macs = list(macs)
        self.management = dict(management or {})
        self._values_on = values_on or (lambda name: {})
        self._variable = variable or (lambda name, default=None: default)

    def values_on(self, name):
        return self._values_on(name)

    def variable(self, name, default=None):
        return self._variable(name, default)


def _bad(context, name, value, reason, fix, **details):
    """input_invalid for a rule: the variable, the value, why, and the fix."""
    shown = ("'%s'" % value) if isinstance(value, str) else repr(value)
    return problem("input_invalid", "%s = %s is refused: %s." % (name, shown, reason), fix,
                   host=context.host, details=dict({"variable": name}, **details))


def _at_least(params, context, minimums):
    """One problem per number option below its minimum: [(name, minimum, why)]."""
    found = []
    for name, minimum, why in minimums:
        if params.has(name) and params[name] < minimum:
            found.append(_bad(context, name, params[name], "it must be %g or more (%s)" % (minimum, why),
                              "Set %s to %g or more." % (name, minimum)))
    return found


def _label(params, context, name, example):
    if params.has(name) and not LAUNCHD_LABEL.match(params[name]):
        return [_bad(context, name, params[name], "it must be a reverse-DNS launchd label",
                     "Set %s to a label such as %s." % (name, example))]
    return []


def _absolute(params, context, name, what="an absolute path", empty_ok=False):
    value = params.get(name)
    if value is None or (empty_ok and value == ""):
        return []
    if not str(value).startswith("/"):
        return [_bad(context, name, value, "it must be %s" % what,
                     "Set %s to %s%s." % (name, what, " or leave it empty" if empty_ok else ""))]
    return []


def _ports(params, context, name):
    value = params.get(name)
    if value is None:
        return []
    if not value or any(port < 1 or port > 65535 for port in value):
        return [_bad(context, name, value, "it must list at least one port, each from 1 to 65535",
                     "Set %s to the ports exo uses (the defaults are exo's own)." % name)]
    return []


def _ipv4_networks(params, context, name):
    found = []
    for entry in params.get(name) or []:
        try:
            ipaddress.ip_network(str(entry).strip(), strict=False)
            if ":" in str(entry):
                raise ValueError("IPv6")
        except ValueError:
            found.append(_bad(context, name, entry, "'%s' is not an IPv4 address or network" % entry,
                              "List IPv4 networks in CIDR form, such as 192.0.2.0/24, in %s." % name))
    return found


def macops(params, context):
    """Cluster-wide settings: the Thunderbolt address pool and the exact MLX pins."""
    found = []
    if params.has("macops_tb_address_pool"):
        reason = pool_problem(params["macops_tb_address_pool"], len(context.macs), context.management.values())
        if reason:
            found.append(_bad(context, "macops_tb_address_pool", params["macops_tb_address_pool"], reason,
                              "Set macops_tb_address_pool in group_vars/macs to an unused IPv4 network with one /30 "
                              "per possible cable, for example 192.168.200.0/22."))
    for name, example in (("macops_mlx_package_spec", "mlx==0.32.4"), ("macops_mlx_lm_package_spec", "mlx-lm==0.32.2")):
        if params.has(name) and not EXACT_PIN.match(params[name]):
            found.append(_bad(context, name, params[name], "it must pin one version with == so every node runs the same",
                              "Set %s to an exact pin such as %s." % (name, example)))
        elif params.has(name):
            # Mismatched MLX versions fail in confusing ways: one pin for the whole group.
            others = dict((host, value) for host, value in context.values_on(name).items()
                          if value is not None and value != params[name])
            if others:
                found.append(_bad(context, name, params[name], "every node must run the same version, and %s differ"
                                  % ", ".join("%s has %s" % (host, others[host]) for host in sorted(others)),
                                  "Set %s once, in group_vars for the macs group (not per host)." % name))
    found += _absolute(params, context, "macops_venv_path")
    found += _absolute(params, context, "macops_state_dir")
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
            found.append(_bad(context, name, params[name], "it must be a version such as 26.2",
                              "Set %s to dotted numbers." % name))
    found += _at_least(params, context, [("preflight_max_nodes", 1, "a cluster has nodes"),
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
        found.append(_bad(context, "sudoers_user", params["sudoers_user"], "it must be an account name",
                          "Set ansible_user or sudoers_user to the admin account's short name."))
    if params.has("sudoers_file"):
        path = params["sudoers_file"]
        if not path.startswith("/") or not re.match(r"^[^.]*[^.~]$", os.path.basename(path)):
            found.append(_bad(context, "sudoers_file", path,
                              "it must be an absolute path whose name has no dot and no trailing ~ (sudo skips those)",
                              "Set sudoers_file to a path such as /etc/sudoers.d/macops."))
    accepted = params.get("sudoers_accepted_unsafe_rules") or []
    for name in ("sudoers_commands", "sudoers_extra_commands"):
        for entry in params.get(name) or []:
            reason = _sudo_entry_problem(entry)
            if reason:
                found.append(_bad(context, name, entry, reason, "Fix or remove that entry of %s." % name))
                continue
            for unsafe in unsafe_entries([entry], accepted=accepted):
                found.append(_bad(context, name, entry, "as a passwordless rule it %s (e.g. `%s`)" % (
                    unsafe["gives"], unsafe["example"]),
                    "Remove it, or name it in sudoers_accepted_unsafe_rules if you accept that risk (docs/sudo.md)."))
    if params.has("sudoers_commands", "sudoers_extra_commands") and not params["sudoers_commands"] \
            and not params["sudoers_extra_commands"]:
        found.append(_bad(context, "sudoers_commands", [], "sudoers_commands and sudoers_extra_commands are both empty",
                          "Keep the default sudoers_commands, or set sudoers_state: absent."))
    for interface in params.get("sudoers_thunderbolt_interfaces") or []:
        if not re.match(r"^en[0-9]+$", interface):
            found.append(_bad(context, "sudoers_thunderbolt_interfaces", interface, "it is not a BSD interface name",
                              "List Thunderbolt interfaces such as en2, or leave the default (preflight's facts)."))
    for label in params.get("sudoers_launchd_labels") or []:
        if not LAUNCHD_LABEL.match(label):
            found.append(_bad(context, "sudoers_launchd_labels", label, "it is not a launchd label",
                              "List labels such as org.macops.exo in sudoers_launchd_labels."))
    for setting, value in sorted((params.get("sudoers_pmset_settings") or {}).items()):
        if not re.match(r"^[a-z]+$", str(setting)) or isinstance(value, (list, dict)) or not re.match(
                r"^[0-9]+$", str(int(value) if isinstance(value, bool) else value)):
            found.append(_bad(context, "sudoers_pmset_settings", {setting: value},
                              "pmset settings are lower-case names with a whole number or a boolean",
                              "Set sudoers_pmset_settings like {sleep: 0, autorestart: true}."))
    return found


def power(params, context):
    return _at_least(params, context, [(name, 0, "0 means never") for name in (
        "power_sleep_minutes", "power_disk_sleep_minutes", "power_display_sleep_minutes")])


def ssh_mesh(params, context):
    found = _at_least(params, context, [("ssh_mesh_verify_throttle", 1, "nodes checked at once"),
                                        ("ssh_mesh_verify_parallel", 1, "connections at once"),
                                        ("ssh_mesh_connect_timeout", 1, "seconds")])
    key = params.get("ssh_mesh_host_key_file")
    if key is not None and not re.match(r"^/.+\.pub$", key):
        found.append(_bad(context, "ssh_mesh_host_key_file", key, "it must be the absolute path of a .pub file",
                          "Set ssh_mesh_host_key_file to a path such as /etc/ssh/ssh_host_ed25519_key.pub."))
    return found


def python_env(params, context):
    found = []
    source = params.get("python_env_interpreter_source")
    if source == "path":
        found += _absolute(params, context, "python_env_interpreter_path", "an absolute interpreter path")
    formula = params.get("python_env_homebrew_formula")
    if source == "homebrew" and formula is not None and not re.match(r"^python@\d+\.\d+$", formula):
        found.append(_bad(context, "python_env_homebrew_formula", formula, "it must look like python@3.12",
                          "Set python_env_homebrew_formula to a Homebrew Python formula such as python@3.12."))
    if params.has("python_env_python_version", "python_env_min_python_version"):
        wanted, least = params["python_env_python_version"], params["python_env_min_python_version"]
        if not VERSION.match(wanted) or not VERSION.match(least):
            found.append(_bad(context, "python_env_python_version", wanted, "versions must be dotted numbers",
                              "Set python_env_python_version and python_env_min_python_version such as 3.12."))
        elif _version(wanted) < _version(least):
            found.append(_bad(context, "python_env_python_version", wanted,
                              "it is older than python_env_min_python_version (%s)" % least,
                              "Set python_env_python_version to %s or later." % least))
    wheelhouse = params.get("python_env_wheelhouse_dir")
    if wheelhouse and not os.path.isdir(wheelhouse):
        found.append(_bad(context, "python_env_wheelhouse_dir", wheelhouse, "it is not a directory on the controller",
                          "Fill it with `pip download --only-binary=:all: -d DIR <requirements>` on a machine with "
                          "the nodes' platform (macOS arm64, same Python), or leave it empty."))
    return found


def _version(text):
    return tuple(int(part) for part in text.split("."))


def gpu_memory(params, context):
    found = _at_least(params, context, [("gpu_memory_wired_limit_mb", 0, "0 means automatic"),
                                        ("gpu_memory_reserve_mb", 0, "0 means from the table")])
    table = params.get("gpu_memory_reserve_table_mb")
    if table is not None:
        rows_ok = bool(table) and all(
            isinstance(row, dict) and _whole(row.get("reserve_mb")) and _whole(row.get("max_ram_mb")) for row in table)
        if not rows_ok:
            found.append(_bad(context, "gpu_memory_reserve_table_mb", table,
                              "it needs at least one row, each with max_ram_mb and a reserve_mb of 0 or more",
                              "Keep the default table or give rows such as {max_ram_mb: 98304, reserve_mb: 8192}."))
    return found + _label(params, context, "gpu_memory_launchd_label", "org.macops.gpu-memory")


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
            found.append(_bad(context, "exo_program", program,
                              "exo_install false and exo_install_method app (whose headless command is not "
                              "documented) need the argv that runs exo in the foreground",
                              "Set exo_program to that argv, starting with an absolute path."))
        elif program and not str(program[0]).startswith("/"):
            found.append(_bad(context, "exo_program", program, "it must start with an absolute path",
                              "Set exo_program's first element to the program's absolute path."))
    if params.has("exo_api_port") and not 1 <= params["exo_api_port"] <= 65535:
        found.append(_bad(context, "exo_api_port", params["exo_api_port"], "it must be a TCP port from 1 to 65535",
                          "Set exo_api_port to exo's API port (52415 by default)."))
    found += _absolute(params, context, "exo_home", empty_ok=True)
    return found + _label(params, context, "exo_launchd_label", "org.macops.exo")


def firewall(params, context):
    found = _label(params, context, "firewall_launchd_label", "org.macops.pf")
    if params.get("firewall_state") != "present":
        return found
    found += _ports(params, context, "firewall_exo_tcp_ports") + _ports(params, context, "firewall_exo_udp_ports")
    if params.has("firewall_mlx_first_port", "firewall_mlx_port_count"):
        first, count = params["firewall_mlx_first_port"], params["firewall_mlx_port_count"]
        if first < 1 or count < 1 or first + count - 1 > 65535:
            found.append(_bad(context, "firewall_mlx_first_port", first,
                              "with firewall_mlx_port_count %d the MLX ports must lie within 1..65535" % count,
                              "Set firewall_mlx_first_port and firewall_mlx_port_count to a range inside 1..65535."))
    return found + _ipv4_networks(params, context, "firewall_management_networks") \
        + _ipv4_networks(params, context, "firewall_extra_allowed_networks")


def thunderbolt_network(params, context):
    found = []
    mode = params.get("thunderbolt_network_bridge_mode")
    if mode is not None and mode != "remove" and (params.get("macops_rdma_required") or len(context.macs) > 2):
        found.append(_bad(context, "thunderbolt_network_bridge_mode", mode,
                          "keep only works for two Macs joined by one cable without RDMA (here: %d Macs, "
                          "macops_rdma_required %s): a bridge over several cables loops traffic, and RDMA fails on "
                          "bridged ports" % (len(context.macs), params.get("macops_rdma_required")),
                          "Set thunderbolt_network_bridge_mode: remove."))
    mtu = params.get("thunderbolt_network_mtu")
    if mtu is not None:
        if not 1280 <= mtu <= 9000:
            found.append(_bad(context, "thunderbolt_network_mtu", mtu,
                              "it must be between 1280 and 9000 (networksetup -listValidMTURange)",
                              "Set thunderbolt_network_mtu once, in group_vars for the macs group."))
        others = dict((host, value) for host, value in context.values_on("thunderbolt_network_mtu").items()
                      if value is not None and _int_or_none(value) != mtu)
        if others:
            found.append(_bad(context, "thunderbolt_network_mtu", mtu,
                              "both ends of a cable need the same MTU, and %s differ" % ", ".join(
                                  "%s has %s" % (host, others[host]) for host in sorted(others)),
                              "Set thunderbolt_network_mtu once, in group_vars for the macs group."))
    interval = params.get("thunderbolt_network_ping_interval")
    if interval is not None and interval < 0.1:
        found.append(_bad(context, "thunderbolt_network_ping_interval", interval,
                          "macOS ping allows less than 0.1 s only to root", "Set it to 0.1 or more."))
    return found + _at_least(params, context, [("thunderbolt_network_ping_count", 1, "pings per cable"),
                                               ("thunderbolt_network_ping_timeout", 1, "seconds")])


def _int_or_none(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def reboot_cluster(params, context):
    found = _at_least(params, context, [
        ("reboot_cluster_batch_size", 1, "nodes per batch"), ("reboot_cluster_timeout", 30, "seconds to come back"),
        ("reboot_cluster_connect_timeout", 1, "seconds"), ("reboot_cluster_ssh_connection_attempts", 1, "attempts"),
        ("reboot_cluster_stop_timeout", 1, "seconds"), ("reboot_cluster_post_reboot_delay", 0, "seconds"),
        ("reboot_cluster_poll_interval", 0.2, "seconds between checks")])
    command = params.get("reboot_cluster_test_command")
    if command is not None and not command.startswith("/"):
        found.append(_bad(context, "reboot_cluster_test_command", command,
                          "it must start with an absolute path (a non-interactive SSH session has a minimal PATH)",
                          "Set reboot_cluster_test_command to a command such as /usr/bin/whoami."))
    for label in params.get("reboot_cluster_stop_labels") or []:
        if not LAUNCHD_LABEL.match(label):
            found.append(_bad(context, "reboot_cluster_stop_labels", label, "it is not a launchd label",
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
        found.append(_bad(context, "reboot_cluster_mode", params["reboot_cluster_mode"],
                          "this host asks for %s (batch size %s), but the play runs %s (batch size %s): the play's "
                          "serial cannot read inventory variables" % (
                              params["reboot_cluster_mode"], params["reboot_cluster_batch_size"], play_mode, play_batch),
                          "Pass reboot_cluster_mode and reboot_cluster_batch_size as extra vars "
                          "(-e reboot_cluster_mode=rolling) and remove them from group_vars/host_vars."))
    return found


def mlx(params, context):
    return _at_least(params, context, [("mlx_smoke_test_port", 1, "a TCP port"), ("mlx_smoke_test_timeout", 1, "seconds")])


def topology(params, context):
    return _at_least(params, context, [("topology_min_link_gbps", 1, "Gb/s")])


def benchmark(params, context):
    """Counts and the margin a spec cannot bound, the warm-up inside the test, and baselines that
    name a positive rate and where it comes from."""
    found = _at_least(params, context, [
        ("benchmark_links_seconds", 1, "seconds per test"), ("benchmark_links_omit_seconds", 0, "seconds"),
        ("benchmark_links_streams", 1, "streams"), ("benchmark_links_repeats", 1, "tests per cable"),
        ("benchmark_links_port", 1024, "an unprivileged TCP port"), ("benchmark_margin_percent", 0, "percent"),
        ("benchmark_allsum_min_bytes", 4, "bytes, one float32"), ("benchmark_allsum_iters", 1, "calls"),
        ("benchmark_allsum_chain", 1, "calls"), ("benchmark_allsum_warmup", 0, "calls"),
        ("benchmark_allsum_port", 1024, "an unprivileged TCP port"), ("benchmark_allsum_timeout", 10, "seconds"),
        ("benchmark_generate_prompt_tokens", 1, "tokens"), ("benchmark_generate_generation_tokens", 1, "tokens"),
        ("benchmark_generate_trials", 1, "trials"), ("benchmark_generate_port", 1024, "an unprivileged TCP port"),
        ("benchmark_generate_timeout", 10, "seconds"), ("benchmark_exo_repeat", 1, "repeats"),
        ("benchmark_exo_warmup", 0, "requests"), ("benchmark_exo_timeout", 10, "seconds"),
        ("benchmark_hpl_nb", 1, "the block size"), ("benchmark_hpl_n", 0, "0 sizes it from memory"),
        ("benchmark_hpl_ranks_per_node", 0, "0 is one per performance core"),
        ("benchmark_hpl_timeout", 10, "seconds"), ("benchmark_serve_requests", 1, "requests per client"),
        ("benchmark_serve_max_tokens", 2, "tokens (a rate needs two)"), ("benchmark_serve_prompt_words", 1, "words"),
        ("benchmark_serve_warmup", 0, "requests"), ("benchmark_serve_timeout", 10, "seconds")])
    if params.has("benchmark_serve_concurrency"):
        levels = params.get("benchmark_serve_concurrency") or []
        if not levels or any(level < 1 for level in levels if isinstance(level, int)):
            found.append(_bad(context, "benchmark_serve_concurrency", levels,
                              "it must list one or more concurrency levels, each 1 or more",
                              "Set benchmark_serve_concurrency to a list such as [1, 4, 8]."))
    fraction = params.get("benchmark_hpl_memory_fraction")
    if params.has("benchmark_hpl_memory_fraction") and not 0 < fraction <= 0.9:
        found.append(_bad(context, "benchmark_hpl_memory_fraction", fraction,
                          "it must be above 0 and at most 0.9 (the system and MLX need the rest)",
                          "Set benchmark_hpl_memory_fraction to 0.75, as the TOP500 runs do."))
    for name in [n for n in ("benchmark_exo_pp", "benchmark_exo_tg") if params.has(n)]:
        values = params.get(name) or []
        if not values or any(value < 1 for value in values if isinstance(value, int)):
            found.append(_bad(context, name, values, "it must list one or more token counts, each 1 or more",
                              "Set %s to a list such as [%d]." % (name, 512 if name.endswith("pp") else 128)))
    low, high = params.get("benchmark_allsum_min_bytes"), params.get("benchmark_allsum_max_bytes")
    if isinstance(low, int) and isinstance(high, int) and high < low:
        found.append(_bad(context, "benchmark_allsum_max_bytes", high,
                          "the size range is upside down: it is below benchmark_allsum_min_bytes (%d)" % low,
                          "Set benchmark_allsum_max_bytes to %d or more, or lower benchmark_allsum_min_bytes." % low))
    if params.has("benchmark_margin_percent") and params["benchmark_margin_percent"] >= 100:
        found.append(_bad(context, "benchmark_margin_percent", params["benchmark_margin_percent"],
                          "it must be below 100 (100 would accept a cable that carries nothing)",
                          "Set benchmark_margin_percent to a value such as 15."))
    for path in params.get("benchmark_generate_models") or []:
        if not isinstance(path, str) or not path.startswith("/"):
            found.append(_bad(context, "benchmark_generate_models", path,
                              "each entry must be an absolute path to a model directory, the same on every node",
                              "Give the directory's full path, such as /Users/admin/models/Qwen3-30B-A3B-4bit."))
    for name, example in (("benchmark_links_port", 5201), ("benchmark_allsum_port", 32400),
                          ("benchmark_generate_port", 32500)):
        if params.has(name) and params[name] > 65535:
            found.append(_bad(context, name, params[name], "it is not a TCP port",
                              "Set %s to a port from 1024 to 65535, such as %d." % (name, example)))
    links = (params.get("benchmark_baselines") or {}).get("links") or {}
    for kind, value in sorted(links.items() if isinstance(links, dict) else []):
        gbps = value.get("gbps") if isinstance(value, dict) else None
        if kind not in ("tb5", "tb4") or not isinstance(gbps, (int, float)) or isinstance(gbps, bool) or gbps <= 0:
            found.append(_bad(context, "benchmark_baselines", {"links": {kind: value}},
                              "each entry of links must be tb5 or tb4 with gbps, a rate above 0 in Gbit/s",
                              "Set benchmark_baselines.links.%s to {gbps: 25, source: where the figure comes "
                              "from}." % (kind if kind in ("tb5", "tb4") else "tb5")))
    return found


def deploy_model(params, context):
    """The model and the node that holds it must be named, the directories absolute, the counts sensible."""
    found = _at_least(params, context, [
        ("deploy_model_context_tokens", 0, "tokens"), ("deploy_model_overhead_mb", 0, "MB"),
        ("deploy_model_disk_margin_mb", 0, "MB"), ("deploy_model_stall_timeout", 5, "seconds"),
        ("deploy_model_timeout", 60, "seconds"),
        ("deploy_model_progress_interval", 1, "seconds")])
    hub_id = params.get("deploy_model_hub_id") or ""
    controller = params.get("deploy_model_controller_source") or ""
    # absent removes a model by its name: no source to name.
    absent = params.get("deploy_model_state") == "absent"
    if absent:
        if not (params.get("deploy_model_name") or hub_id):
            found.append(_bad(context, "deploy_model_name", params.get("deploy_model_name") or "",
                              "deploy_model_state absent removes a model by its name, and none is given",
                              "Set deploy_model_name to the model's directory name on the nodes, as the report's "
                              "models list it (-e deploy_model_name=DeepSeek-V3.1-4bit), or deploy_model_hub_id to "
                              "its Hugging Face id."))
    elif params.has("deploy_model_source") and not params["deploy_model_source"] and not hub_id and not controller:
        found.append(_bad(context, "deploy_model_source", "", "the model to deploy is not named",
                          "Set deploy_model_source to the model's directory on the node that holds it, such as "
                          "/Users/admin/staging/DeepSeek-V3.1-4bit (-e deploy_model_source=...), or "
                          "deploy_model_hub_id to its Hugging Face id to download it there first, or "
                          "deploy_model_controller_source to a directory on the controller to copy there first."))
    if controller and hub_id:
        found.append(_bad(context, "deploy_model_controller_source", controller, "the model comes either from the "
                          "controller or from the hub, not both", "Leave deploy_model_controller_source or "
                          "deploy_model_hub_id empty."))
    elif controller and not (controller.startswith("/") and os.path.isfile(os.path.join(controller, "config.json"))):
        found.append(_bad(context, "deploy_model_controller_source", controller, "it must be an absolute path on "
                          "the controller to a model directory (with its config.json)",
                          "Set deploy_model_controller_source to the model's directory on this machine, such as "
                          "/srv/models/DeepSeek-V3.1-4bit."))
    if hub_id and not re.match(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*$", hub_id):
        found.append(_bad(context, "deploy_model_hub_id", hub_id, "a Hugging Face id is org/name (letters, digits, "
                          "'-', '_', '.')", "Set deploy_model_hub_id to an id such as mlx-community/Qwen3-0.6B-4bit, "
                          "as the model's page on the hub shows it."))
    endpoint = params.get("deploy_model_hub_endpoint") or ""
    if endpoint and not re.match(r"^https?://[^\s/]+", endpoint):
        found.append(_bad(context, "deploy_model_hub_endpoint", endpoint, "it must be an http:// or https:// URL",
                          "Set deploy_model_hub_endpoint to the hub's URL, such as https://huggingface.co, or "
                          "leave it empty."))
    if hub_id and params.has("deploy_model_hub_revision") and not params["deploy_model_hub_revision"]:
        found.append(_bad(context, "deploy_model_hub_revision", "", "the revision is empty",
                          "Set deploy_model_hub_revision to a branch, tag or commit (main by default)."))
    found += _absolute(params, context, "deploy_model_source", "an absolute path on the source node", empty_ok=True)
    found += _absolute(params, context, "deploy_model_dir", "an absolute path on every node")
    host = params.get("deploy_model_source_host")
    if params.has("deploy_model_source_host") and host not in context.macs and not (absent and not host):
        found.append(_bad(context, "deploy_model_source_host", host or "",
                          "it must be a node of the group macs (%s)" % ", ".join(context.macs),
                          "Set deploy_model_source_host to the node that holds the model (-e "
                          "deploy_model_source_host=%s)." % (context.macs[0] if context.macs else "mac1")))
    name = params.get("deploy_model_name")
    parts = (name or "").split("/")
    if name and (len(parts) > 2 or not all(parts) or any(part.startswith(".") for part in parts)):
        found.append(_bad(context, "deploy_model_name", name, "it is a directory name or a Hugging Face id "
                          "(org/name), not a path nor a name with a leading dot (.hub and .controller hold the "
                          "sources)",
                          "Set deploy_model_name to a name such as DeepSeek-V3.1-4bit or an id such as "
                          "mlx-community/DeepSeek-V3.1-4bit, or leave it empty."))
    elif params.get("deploy_model_runtime") == "exo" and "--" not in model_directory_name(
            name or hub_id, controller or params.get("deploy_model_source") or ""):
        shown = name or model_directory_name("", controller or params.get("deploy_model_source") or "")
        found.append(_bad(context, "deploy_model_name", shown, "exo finds a model in its models directories only "
                          "as <org>--<name>, from its Hugging Face id org/name",
                          "Set deploy_model_name to the model's Hugging Face id, such as "
                          "mlx-community/Qwen3-0.6B-4bit: the nodes then get mlx-community--Qwen3-0.6B-4bit, "
                          "where exo looks."))
    return found


def model_directory_name(name, source):
    """The model's directory on the nodes: deploy_model_name (a Hugging Face id org/name becomes org--name,
    exo's layout), else the source directory's own name."""
    return (name or source.rstrip("/").rsplit("/", 1)[-1]).replace("/", "--")


def serve(params, context):
    """Ports that exist and differ, timeouts that leave a model time to load, networks and a label that parse."""
    found = _at_least(params, context, [("serve_ready_timeout", 10, "seconds"), ("serve_probe_interval", 5, "seconds"),
                                        ("serve_probe_timeout", 5, "seconds"), ("serve_heartbeat_timeout", 5, "seconds"),
                                        ("serve_restart_limit", 0, "failed starts"), ("serve_max_tokens", 1, "tokens"),
                                        ("serve_measure_tokens", 1, "tokens"),
                                        ("serve_memory_headroom_percent", 0, "percent of the weights")])
    ports = [name for name in ("serve_port", "serve_control_port", "serve_internal_port", "serve_mlx_port")
             if params.has(name)]
    for name in ports:
        if not 1024 <= params[name] <= 65535 - 16:
            found.append(_bad(context, name, params[name], "it must be a TCP port from 1024 to 65519",
                              "Set %s to a free port in that range." % name))
    taken = dict((params[name], name) for name in ports)
    if len(taken) < len(ports):
        found.append(_bad(context, ports[-1], params[ports[-1]], "serve_port, serve_control_port, "
                          "serve_internal_port and serve_mlx_port must differ", "Give each of them its own port."))
    return found + _ipv4_networks(params, context, "serve_allowed_networks") + \
        _label(params, context, "serve_launchd_label", "org.macops.serve") + _absolute(params, context, "serve_dir")


def macos_update(params, context):
    """A password to give, time for an install, a version that parses (the password itself is never shown)."""
    found = _at_least(params, context, [("macos_update_deadline", 10, "seconds"),
                                        ("macos_update_restart_timeout", 60, "seconds"),
                                        ("macos_update_stall_timeout", 10, "seconds"),
                                        ("macos_update_free_margin_gb", 0, "GB"),
                                        ("macos_update_poll_interval", 1, "seconds"),
                                        ("macos_update_serve_timeout", 10, "seconds")])
    if params.has("macos_update_version") and not re.match(r"^([0-9]+([.][0-9]+){0,2})?$", params["macos_update_version"]):
        found.append(_bad(context, "macos_update_version", params["macos_update_version"],
                          "it must be a macOS version such as 26.3, or empty", "Set macos_update_version to 26.3 (or "
                          "leave it empty for the newest minor update every node offers)."))
    if params.has("macos_update_owner_password") and not params["macos_update_owner_password"]:
        found.append(_bad(context, "macos_update_owner_password", "", "softwareupdate needs a volume owner's password "
                          "on Apple silicon", "Put it in the vault (macos_update_owner_password: "
                          "'{{ vault_macos_update_owner_password }}') or an AWX credential."))
    labels = params.get("macos_update_stop_labels") or []
    if any(not LAUNCHD_LABEL.match(str(label)) for label in labels):
        found.append(_bad(context, "macos_update_stop_labels", labels, "each must be a reverse-DNS launchd label",
                          "List labels such as org.macops.serve."))
    return found


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
