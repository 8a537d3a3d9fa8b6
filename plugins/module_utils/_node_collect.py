# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: macops.cluster.node_facts' run. Stdlib only, Python 3.9.
"""node_facts' run: plan the reads of the groups asked, run each macOS command at most once (the slow
checks beside them), then parse each group's answers into the node's facts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import pwd

from ansible_collections.macops.cluster.plugins.module_utils import _df, _fdesetup, _softwareupdate
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._exo_health import node_verdict
from ansible_collections.macops.cluster.plugins.module_utils._model_deploy import deployed_models
from ansible_collections.macops.cluster.plugins.module_utils._node_reads import (
    FileReads,
    add_network_reads,
    exo_settings,
    plan_links,
    plan_network,
    plan_reads,
    plan_ssh,
    read_exo,
    read_files,
    read_launchd,
    read_launchd_disabled,
    read_one_command_groups,
    read_mac,
    read_macos,
    read_managed,
    read_network,
    read_packages,
    read_programs,
    read_rdma,
    read_settings,
    read_sudo,
    read_wired_limit,
)
from ansible_collections.macops.cluster.plugins.module_utils._ssh_check import check_all, mesh_problems
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import version_tuple
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_probe import judge_links, probe_links


# exo.app's daemon that resets Thunderbolt services to DHCP: C(network) names it as the cause when loaded.
EXO_NETWORKSETUP_LABEL = "io.exo.networksetup"


def read_user():
    """The connecting user's name and home, as setup's user subset reports them."""
    entry = pwd.getpwuid(os.getuid())
    return {"user_id": entry.pw_name, "user_dir": entry.pw_dir}


def read_supports_authrestart(module, state):
    """Whether `fdesetup authrestart` works here: asked only where FileVault is on (the one case a restart needs it,
    so a Mac without FileVault runs one command less); None when not asked, or where fdesetup answers neither true
    nor false (only a plan that needs it decides)."""
    if state != "on":
        return None
    rc, stdout = commands.result_of([commands.require_command(module, "fdesetup"), "supportsauthrestart"])[:2]
    return _fdesetup.parse_supports_authrestart(stdout) if rc == 0 else None


def collect(module):
    """The module's result for module.params: the facts of every group in params["gather"]."""
    groups = module.params["gather"]
    if "rdma" in groups:
        try:
            version_tuple(module.params["min_macos"])
        except ValueError as exc:
            module.fail_json(msg="min_macos: %s" % exc)
    exo_found = exo_settings(module) if "exo" in groups else None
    # exo's own job, when the exo read runs and launchd is asked about it too: its one `launchctl print` is the exo
    # read's (which runs beside the other reads), not a second one.
    shared_label = None
    if exo_found is not None and "launchd" in groups and exo_found["label"] in module.params["launchd_labels"]:
        shared_label = exo_found["label"]
    reads = plan_reads(module, groups, printed_elsewhere=shared_label)
    # One read of each file per run: the applied plan serves files, links, network and ssh.
    files = FileReads()
    jobs = {}
    if "links" in groups:
        link_plan, wanted_links = plan_links(module, files)
        link_options = module.params["links"]
        jobs["links"] = lambda: probe_links(module, wanted_links, link_options["count"], link_options["timeout"],
                                            link_options.get("interval"))
    if exo_found is not None:
        launchctl = commands.require_command(module, "launchctl")
        jobs["exo"] = lambda: read_exo(module, launchctl, exo_found, wanted_links if "links" in groups else None,
                                       reads if shared_label else None)
    if "ssh" in groups:
        ssh_targets = plan_ssh(module, files)
        ssh_options = module.params["ssh"]
        jobs["ssh"] = lambda: check_all(ssh_targets, ssh_options["ssh"], ssh_options["connect_timeout"],
                                        ssh_options["parallel"])
    network_wanted = None
    if "network" in groups:
        network_wanted = plan_network(module, files)
        if network_wanted is not None:
            add_network_reads(module, reads, network_wanted)
    answers = commands.run_beside(module, reads.run, jobs)
    node = {}
    mac = read_mac(module, reads) if "mac" in groups else None
    macos = None
    if "macos" in groups:
        macos = node["macos"] = read_macos(module, reads, mac)
    if "disk" in groups:
        node["volumes"] = {}
        for path in module.params["volumes"]:
            argv_text = "df -k " + path
            volume = commands.parse(module, _df.parse, reads.output(("df", path)), argv_text)
            node["volumes"][path] = {"path": path, "size_kib": volume["size_kib"], "free_kib": volume["free_kib"],
                                     "free_gb": _df.gib(volume["free_kib"]), "mounted_on": volume["mounted_on"]}
    if "filevault" in groups:
        node["filevault"] = commands.parse(module, _fdesetup.parse_status, reads.output("fdesetup"))
        node["filevault"]["supports_authrestart"] = read_supports_authrestart(module, node["filevault"]["state"])
    if "launchd" in groups:
        node["launchd"] = read_launchd(module, reads)
    if "launchd_disabled" in groups:
        node["launchd_disabled"] = read_launchd_disabled(module, reads)
    if "boot" in groups:
        node["boot_session"] = reads.output("boot").strip()
        if not node["boot_session"]:
            module.fail_json(msg="sysctl -n kern.bootsessionuuid printed nothing")
    if "wired_limit" in groups:
        node["wired_limit"] = read_wired_limit(module, reads)
    if "rdma" in groups:
        node["rdma"] = read_rdma(module, reads, mac, macos)
    if "files" in groups:
        node["files"] = read_files(module, files)
    if "models" in groups:
        node["models"] = deployed_models(module.params["models_dirs"])
    if "programs" in groups:
        node["programs"] = read_programs(module.params["programs"])
    if "links" in groups:
        judged, default_route, problems = judge_links(
            module, wanted_links, answers["links"], mac["hardware_ports"] if mac and "hardware_ports" in mac else None)
        node["links"] = dict(link_plan, links=judged, default_route=default_route, problems=problems)
    if "exo" in groups:
        node["exo"] = node_verdict(module.params["exo"], exo_found, answers.get("exo"))
    if "settings" in groups:
        node["settings"] = read_settings(module, reads)
    if "managed" in groups:
        node["managed"] = read_managed(module, reads)
    if "packages" in groups:
        node["packages"] = read_packages(reads, module.params["packages"])
    if "ssh" in groups:
        node["ssh"] = {"results": answers["ssh"], "problems": mesh_problems(ssh_targets, answers["ssh"])}
    if "sudo" in groups:
        node["sudo"] = read_sudo(module, reads)
    node.update(read_one_command_groups(module, reads, groups))
    if "network" in groups:
        daemon_loaded = bool((node.get("launchd") or {}).get(EXO_NETWORKSETUP_LABEL))
        node["network"] = read_network(module, reads, network_wanted, daemon_loaded)
    if "updates" in groups:
        # "No new software available." goes to stderr with exit status 0.
        node["updates"] = commands.parse(module, _softwareupdate.parse_list, reads.output("updates"))
    if "installers" in groups:
        console = reads.output("console").strip()  # root owns the console at the login window
        # Needed only where a node is not offered the asked version: a listing that fails (no network to Apple) is
        # said, not fatal to the read.
        rc, listing, stderr = reads.results["installers"]
        node["installers"] = {
            "offered": commands.parse(module, _softwareupdate.parse_full_installers, listing) if rc == 0 else [],
            "error": None if rc == 0 else "softwareupdate --list-full-installers failed with exit status %d: %s" % (
                rc, (stderr or listing).strip()),
            "console_user": console if console and console != "root" else None}

    result = dict(node, changed=False)
    facts = read_user() if "user" in groups else {}
    if mac is not None:
        result["mac"] = mac
    if module.params["set_facts"]:
        if mac is not None:
            facts["macops_mac"] = mac
        facts["macops_node"] = node
    if facts:
        result["ansible_facts"] = facts
    return result
