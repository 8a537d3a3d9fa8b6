# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the one problem shape and the registry of every problem code.
# Stdlib only, Python 3.9: node modules and controller plugins both import it.
"""Every finding of the collection, whoever finds it, is one `problem()` with a registered code.

A problem is a dict with exactly these keys (``PROBLEM_KEYS``):

- ``code``: a stable string from ``REGISTRY`` (CI and AWX gate on it: never rename one);
- ``severity``: ``error``, ``warning`` or ``info``; the registry's unless the finder says otherwise;
- ``host``, ``port``, ``peer``: where it is (None where it does not apply);
- ``message``: what is wrong, here, in one or two sentences;
- ``fix``: what to do about it (a command, or the Recovery or GUI steps where only a person can act);
- ``details``: a dict of machine-readable extras (``link_id``, sizes, versions), possibly empty.

``docs/problems.md`` is generated from ``REGISTRY`` (``scripts/problems_doc.py``); a unit test fails
when it is stale. ``problem()`` refuses a code the registry lacks, so an unregistered code fails
the unit or end-to-end run that emits it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problem_codes import (  # noqa: F401 - re-exported
    ERROR, INFO, SEVERITIES, WARNING, registry_entry as _code)
from ansible_collections.macops.cluster.plugins.module_utils._benchmark_problems import BENCHMARK_CODES
from ansible_collections.macops.cluster.plugins.module_utils._serve_problems import SERVE_CODES
from ansible_collections.macops.cluster.plugins.module_utils._shard_problems import SHARD_CODES
from ansible_collections.macops.cluster.plugins.module_utils._update_problems import UPDATE_CODES

PROBLEM_KEYS = ("code", "severity", "host", "port", "peer", "message", "fix", "details")


class UnknownProblemCode(ValueError):
    """A finder used a code that REGISTRY does not list (a bug in the collection, not in the cluster)."""


# code -> severity (the usual one), area (which part of the collection finds it), meaning (what it
# says about the cluster) and fix (the generic remedy; a finder's own fix is more specific).
REGISTRY = {
    # Inputs: found by the first step of every playbook, before anything connects.
    "input_invalid": _code(
        ERROR, "inputs",
        "A variable has a value its argument spec or its role's rules do not allow (wrong type, unknown "
        "choice, out of range, malformed address).",
        "Set the variable named in the message to an allowed value (group_vars, host_vars, -e or the AWX "
        "survey) and run again."),
    "input_unknown_variable": _code(
        ERROR, "inputs",
        "A variable is named like one of the collection's (macops_* or a role's prefix) but no role knows "
        "it: most often a typo, which would otherwise be ignored and the default used.",
        "Rename it to the variable the message suggests, or remove it."),
    "input_inventory": _code(
        ERROR, "inputs",
        "The inventory itself cannot describe a cluster: the group 'macs' is empty or too large, or two "
        "hosts share a management address.",
        "Put every node of the cluster, and nothing else, in the group 'macs', each with its own "
        "ansible_host."),
    # Preflight: the per-node checks before any change (roles/preflight/tasks/checks.yml).
    "macos_too_old": _code(
        ERROR, "preflight",
        "The Mac runs a macOS older than the cluster needs (RDMA over Thunderbolt arrived in macOS 26.2; "
        "rdma_status reports it too).",
        "Update the Mac in System Settings > General > Software Update (it needs the owner's password, not "
        "SSH), with the identical build on every node, then run again."),
    "macos_build_mismatch": _code(
        ERROR, "preflight",
        "The Mac's macOS build differs from the build most nodes run (tie: the newer); exo and RDMA need the "
        "identical build everywhere. Preflight and the topology planner both check it.",
        "Bring the Mac to the majority build named in the message (same version, same beta or Rapid "
        "Security Response), or update every node to one newer build."),
    "memory_too_small": _code(
        ERROR, "preflight",
        "The Mac has less unified memory than preflight_min_memory_gb.",
        "Take the Mac out of the group 'macs', or lower preflight_min_memory_gb if you accept that MLX may "
        "freeze it."),
    "disk_space_low": _code(
        ERROR, "preflight",
        "The boot volume has less free space than preflight_min_free_disk_gb.",
        "Free space (old models in ~/.exo/models or ~/.cache/huggingface, local Time Machine snapshots: "
        "`tmutil listlocalsnapshots /`), then run again."),
    "filevault_on": _code(
        ERROR, "preflight",
        "FileVault is on: after a plain reboot the Mac waits at the pre-boot unlock screen and does not come "
        "back on the network (a warning when preflight_filevault_allowed is true).",
        "Reboot only with `sudo fdesetup authrestart` (reboot-cluster.yml does), or turn FileVault off in "
        "System Settings > Privacy & Security > FileVault."),
    "remote_login_off": _code(
        ERROR, "preflight",
        "Remote Login (SSH) is off: the current connection may be the last one.",
        "Turn on System Settings > General > Sharing > Remote Login, or run "
        "`sudo systemsetup -setremotelogin on` on the Mac."),
    "homebrew_missing": _code(
        ERROR, "preflight",
        "Homebrew is not at its Apple silicon prefix (/opt/homebrew/bin/brew, python_env_homebrew_prefix), and a "
        "role of the run installs with it: python_env's interpreter (python_env_interpreter_source homebrew or uv) "
        "or exo's Python. No role installs Homebrew itself: its installer asks for the admin password at a terminal.",
        "Install Homebrew on the Mac as the admin user (the installer at https://brew.sh, in Terminal or over SSH "
        "with a terminal: ssh -t), or set python_env_interpreter_source path with python_env_interpreter_path, "
        "then run again."),
    "exo_build_tools_missing": _code(
        ERROR, "preflight",
        "exo is installed from its source (exo_install_method source, or pip from its git tag, the default), "
        "which builds its Rust bindings, and the Mac lacks a build tool: Rust's cargo (rustup's nightly "
        "toolchain), or for source also node (exo's dashboard). The install would fail after minutes of building.",
        "Install what the message names on the Mac as the admin user (rustup: curl https://sh.rustup.rs, then "
        "`rustup toolchain install nightly`; node: `brew install node`), or install exo without building it: "
        "exo_package_spec from your package index with built wheels, exo_install_method app, or exo_install "
        "false with exo_program; or run an MLX-only cluster without exo (macops_exo_enabled false)."),
    "node_python_unusable": _code(
        ERROR, "preflight",
        "The node answers SSH but has no Python Ansible can use (a fresh Mac without the Command Line Tools: "
        "/usr/bin/python3 is only their stub), so nothing else on it was checked. site.yml's preflight and "
        "doctor.yml find it.",
        "Install the Command Line Tools on the node (`xcode-select --install` at the Mac, or over SSH "
        "`softwareupdate --list` then `sudo softwareupdate --install` of the label that starts with "
        "\"Command Line Tools for Xcode\"), or set ansible_python_interpreter to another Python 3.9+, then run "
        "again."),
    # Topology: the controller's plan from every node's Thunderbolt facts (plugins/plugin_utils/_topology.py).
    "tb_peer_unknown": _code(
        WARNING, "topology",
        "A cabled Thunderbolt port's peer matches no port of any inventory host: a Mac outside the "
        "inventory, a hub or dock, or a non-Mac device.",
        "Add that Mac to the inventory and gather its facts, or cable the Macs directly with a Thunderbolt 5 "
        "cable, or unplug the device."),
    "tb_loopback_cable": _code(
        ERROR, "topology",
        "A cable joins two ports of the same Mac; a loop carries no cluster traffic.",
        "Unplug one end and connect it to another Mac."),
    "tb_link_asymmetric": _code(
        ERROR, "topology",
        "The two ends of a cable disagree about their peer (stale facts or a bad cable).",
        "Re-seat the cable at both ends and gather facts again; if it persists, replace the cable."),
    "tb_link_speed_unknown": _code(
        WARNING, "topology",
        "Neither end of a cable reports a link speed, so it cannot be checked for Thunderbolt 5.",
        "Gather facts again once the link is up; a live Thunderbolt 5 link shows 80 Gb/s."),
    "tb_link_tb4_speed": _code(
        ERROR, "topology",
        "A link runs below min_link_gbps (80 Gb/s): a Thunderbolt 4/3 cable or port is in the path and it "
        "cannot carry RDMA (it still serves TCP). The planner and rdma_status both find it.",
        "Use a Thunderbolt 5 cable between Thunderbolt 5 ports on both Macs (the link must show 80 Gb/s)."),
    "tb_port_next_to_ethernet": _code(
        ERROR, "topology",
        "A cable is on the Mac Studio's Thunderbolt 5 port next to the Ethernet port (receptacle 1, en2), "
        "which cannot do RDMA (exo: rdma_en2). The planner and rdma_status both find it.",
        "Move the cable to another Thunderbolt 5 port of the Mac Studio (receptacles 2-6, en3-en7)."),
    "tb_duplicate_cable": _code(
        WARNING, "topology",
        "A pair of Macs has a second cable; the plan uses one for MLX and gives the other an address only.",
        "Unplug the second cable, or move it to a pair of Macs that has no cable yet."),
    "tb_mesh_missing_pair": _code(
        WARNING, "topology",
        "A pair of Macs has no cable between them, so there is no full mesh and no jaccl hostfile (info when "
        "the declared cabling leaves the pair out on purpose).",
        "Connect the free ports the message names, or, when a Mac has no free port, use a ring (jaccl-ring)."),
    "tb_cabling_differs": _code(
        ERROR, "topology",
        "The declared cabling (macops_tb_cabling) and the cables found differ: a missing, extra, "
        "swapped or moved cable, or a declared host without facts.",
        "Connect, unplug or move the plug the message names, or correct the declared cabling."),
    "tb_address_renumbered": _code(
        INFO, "topology",
        "A cable's previous /30 subnet could not be kept (not a /30, outside the pool, claimed twice), so it "
        "gets a new one.",
        "Nothing to do: the plan re-addresses both ends of the cable."),
    "tb_pool_overlaps_control": _code(
        ERROR, "topology",
        "A management address lies inside the Thunderbolt address pool; routes to the cables would capture "
        "management traffic.",
        "Choose a macops_tb_address_pool that contains no management address."),
    "mlx_ring_unavailable": _code(
        ERROR, "topology",
        "No ring or jaccl-ring hostfile: the cables form no cycle through every Mac (info for one Mac).",
        "Cable every Mac to the next one and the last back to the first."),
    "mlx_jaccl_unavailable": _code(
        WARNING, "topology",
        "No jaccl hostfile: the cables are not a full mesh (an error when there is no ring either), or a "
        "cabled port has no BSD interface.",
        "Add the cables tb_mesh_missing_pair lists, or check `networksetup -listallhardwareports` and "
        "gather facts again."),
    "mlx_no_control_ip": _code(
        ERROR, "topology",
        "Rank 0 of a JACCL hostfile has no management address, and JACCL uses it as the coordinator.",
        "Give the host an IPv4 ansible_host (its control_ip)."),
    # MLX: the mlx role's published result (roles/mlx/tasks/main.yml).
    "mlx_smoke_failed": _code(
        ERROR, "mlx",
        "The node's rank of the MLX all_sum smoke test over the Thunderbolt ring gave no right result.",
        "Check that the planned Thunderbolt addresses are on the ports (role thunderbolt_network, `ping` each "
        "peer over its enX), that the MLX TCP ports are open between the nodes, and, with mlx.launch, that the "
        "SSH mesh works (ssh_mesh role)."),
    # RDMA: macops.cluster.rdma_status on each node (plugins/module_utils/_rdma_readiness.py).
    "rdma_ctl_missing": _code(
        ERROR, "rdma",
        "rdma_ctl is not installed: the macOS release predates RDMA over Thunderbolt.",
        "Update macOS (identical build on every node), then enable RDMA in Recovery."),
    "rdma_disabled": _code(
        ERROR, "rdma",
        "RDMA over Thunderbolt is disabled (`rdma_ctl status`); only macOS Recovery can enable it.",
        "In macOS Recovery (hold the power button, Options, Utilities > Terminal) run `rdma_ctl enable`, "
        "then reboot."),
    "rdma_status_unknown": _code(
        ERROR, "rdma",
        "`rdma_ctl status` failed or printed something other than enabled/disabled.",
        "Run `rdma_ctl status` on the Mac and read its output; if it says disabled, enable RDMA in Recovery."),
    "rdma_device_missing": _code(
        ERROR, "rdma",
        "A cabled Thunderbolt port has no rdma_<interface> device in `ibv_devices`.",
        "Check that the port is Thunderbolt 5 and RDMA is enabled; reboot if RDMA was enabled after the "
        "last boot."),
    "rdma_port_down": _code(
        ERROR, "rdma",
        "A cabled port's RDMA device is not PORT_ACTIVE: the peer has RDMA off, the cable is not a working "
        "Thunderbolt 5 cable, or the port is still in bridge0.",
        "Check `rdma_ctl status` on the peer, remove the port from the Thunderbolt Bridge, reseat or replace "
        "the cable."),
    "rdma_no_ipv4_gid": _code(
        ERROR, "rdma",
        "An RDMA port has no IPv4-mapped GID because its interface has no IPv4 address; MLX JACCL needs one.",
        "Run the thunderbolt_network role (it gives every cable's ports their planned addresses)."),
    "tb_no_cabled_ports": _code(
        WARNING, "rdma",
        "No Thunderbolt port of the Mac has a device attached, so no RDMA link can form.",
        "Cable the Mac to its peers with Thunderbolt 5 cables (see the cabling plan)."),
    "rdma_tool_failed": _code(
        WARNING, "rdma",
        "`ibv_devices` or `ibv_devinfo` failed or printed something unreadable; the ports are not checked.",
        "Run the command the message names on the Mac by hand; reboot if RDMA was just enabled."),
    # Thunderbolt network: the cable check (tb_network, node_facts' links) and the drift checks.
    "tb_link_no_reply": _code(
        ERROR, "thunderbolt_network",
        "A planned peer did not answer pings over its own cable.",
        "Reseat or replace the cable, check that the peer is up with its planned address, and that no "
        "Thunderbolt Bridge holds either port. A cable moved on purpose to another port or Mac: run the whole "
        "site.yml (docs/membership.md), which plans it again with everything that uses its addresses."),
    "tb_link_wrong_interface": _code(
        ERROR, "thunderbolt_network",
        "A planned peer is reached through another interface than its own cable.",
        "Check the port's address (`networksetup -getinfo` of its service) and that no other service holds "
        "an address in the same /30; run site.yml again (after a moved cable, all of it: docs/membership.md)."),
    "tb_default_route_over_thunderbolt": _code(
        ERROR, "thunderbolt_network",
        "The default route goes through a Thunderbolt interface.",
        "Remove the router from the Thunderbolt service and put the management service first in the "
        "service order."),
    "tb_bridge_returned": _code(
        WARNING, "thunderbolt_network",
        "The Thunderbolt Bridge came back since the last run (enabled service, bridge0 defined or live); "
        "it was removed again.",
        "Nothing to do once; if it keeps coming back, find what re-creates it (the exo app, a configuration "
        "profile, a restored network location)."),
    "tb_address_reset": _code(
        WARNING, "thunderbolt_network",
        "Thunderbolt services had lost their planned addresses since the last run; they were applied again.",
        "Find what changes Thunderbolt services (a location switch, an MDM profile, exo's networksetup "
        "daemon) and stop it."),
    "tb_exo_networksetup_daemon": _code(
        WARNING, "thunderbolt_network",
        "exo's io.exo.networksetup LaunchDaemon is loaded; it resets Thunderbolt services to DHCP.",
        "Run the exo role (its guard disables the daemon), or `sudo launchctl bootout "
        "system/io.exo.networksetup` and `sudo launchctl disable system/io.exo.networksetup`."),
    # Doctor: the read-only sweep of doctor.yml (roles/doctor), beside the checks it shares.
    "tb_plan_missing": _code(
        WARNING, "doctor",
        "The node has no applied Thunderbolt address plan: site.yml never configured its cables, so they "
        "cannot be checked against it.",
        "Run site.yml once (it addresses every cable and writes the plan), then doctor.yml again."),
    "tb_bridge_on": _code(
        ERROR, "doctor",
        "The Thunderbolt Bridge is back on a node whose plan removed it (its service enabled, bridge0 defined "
        "or live): it joins the Thunderbolt ports, so the per-cable addresses stop working.",
        "Run site.yml --tags thunderbolt_network (it removes the bridge again); if it keeps coming back, find "
        "what re-creates it (the exo app, a configuration profile, a restored network location)."),
    "tb_address_differs": _code(
        ERROR, "doctor",
        "A cable's network service no longer has the address the applied plan gave it (reset to DHCP, another "
        "address, the service off or gone): the cable does not carry the cluster's traffic.",
        "Run site.yml --tags thunderbolt_network; stop what changed it (exo's io.exo.networksetup daemon, a "
        "location switch, an MDM profile)."),
    "tb_service_order": _code(
        WARNING, "doctor",
        "A Thunderbolt service comes before the management service in the network service order, so macOS may "
        "route management or internet traffic over a cable.",
        "Run site.yml --tags thunderbolt_network, or put the management service first "
        "(`networksetup -ordernetworkservices`)."),
    "tb_config_drift": _code(
        WARNING, "doctor",
        "A Thunderbolt setting differs from the applied plan (the MTU, or a second service on a planned port).",
        "Run site.yml --tags thunderbolt_network to apply the plan again."),
    "software_pin_mismatch": _code(
        ERROR, "doctor",
        "The node runs a version of MLX, mlx-lm or exo the cluster does not pin (macops_mlx_package_spec, "
        "macops_mlx_lm_package_spec, macops_exo_version): distributed runs need the same version everywhere, "
        "and exo nodes on different versions never meet.",
        "Run site.yml on the node (it installs the pinned version), or change the pin for every node."),
    "software_missing": _code(
        ERROR, "doctor",
        "The node has no usable cluster environment (macops_venv_path): MLX cannot run there.",
        "Run site.yml on the node (the python_env and mlx roles make the environment)."),
    "macos_auto_update_on": _code(
        WARNING, "doctor",
        "The node installs macOS updates or security responses by itself: one node changing its build alone splits "
        "the cluster.",
        "Run site.yml --tags power (it turns automatic macOS and security-response installs off and keeps checking "
        "on), and update the nodes together with update-macos.yml."),
    "power_sleep_on": _code(
        WARNING, "doctor",
        "The node goes to sleep when idle (pmset sleep is not 0): a sleeping node drops out of the cluster.",
        "Run site.yml --tags power, or `sudo pmset -a sleep 0`."),
    "power_autorestart_off": _code(
        WARNING, "doctor",
        "The node does not start again by itself after a power cut (pmset autorestart is not 1).",
        "Run site.yml --tags power, or `sudo pmset -a autorestart 1`."),
    "macos_update_pending": _code(
        WARNING, "doctor",
        "A macOS update waits on the node; installed on one node alone it splits the cluster's build, which "
        "exo and RDMA need identical on every node.",
        "Update every node together: update-macos.yml (a volume owner's password from the vault; a canary first), "
        "with automatic macOS updates off meanwhile (site.yml does that)."),
    "doctor_sweep_timeout": _code(
        ERROR, "doctor",
        "The node answered, but its sweep did not finish within doctor_node_timeout seconds: a command on it "
        "hangs (system_profiler or softwareupdate most often) or the node is overloaded.",
        "Log in to the node and look for the hung command (`ps -ax`); reboot it with reboot-cluster.yml if "
        "it does not recover, then run doctor.yml again."),
    "node_not_answering": _code(
        ERROR, "doctor",
        "The node has power (its peers' Thunderbolt ports toward it report a connected Mac) or took the SSH "
        "connection, but it did not answer: it is still booting, or hung before SSH and Python answer. Its "
        "peers' ports toward it are this finding, not theirs.",
        "Wait a minute if it was restarting and run doctor.yml again; if it stays so, power-cycle it "
        "(reboot-cluster.yml with its PDU outlet in the inventory, or its power button), then run doctor.yml "
        "again."),
    # Reboot: the checks after reboot-cluster.yml (roles/reboot_cluster).
    "reboot_node_not_back": _code(
        ERROR, "reboot",
        "The node went down and did not come back within reboot_cluster_timeout.",
        "Look at the Mac (a FileVault unlock screen, a kernel panic, a macOS update), power it on, then run "
        "reboot-cluster.yml again."),
    "reboot_command_failed": _code(
        ERROR, "reboot",
        "The node could not be rebooted: the reboot command failed and the node never went down.",
        "Check sudo for the Ansible user (shutdown needs root) and run again."),
    "reboot_boot_session_unchanged": _code(
        ERROR, "reboot",
        "The node answered after the reboot with its old boot session: it did not reboot.",
        "Read why at the Mac in macOS's unified log (`log show --last 1h --predicate 'eventMessage CONTAINS "
        "\"shutdown\"'`) and reboot it by hand."),
    "reboot_wired_limit_not_applied": _code(
        ERROR, "reboot",
        "After the reboot iogpu.wired_limit_mb differs from what the gpu_memory LaunchDaemon sets at boot.",
        "Read `sudo launchctl print system/org.macops.gpu-memory` (its last exit code), then run site.yml "
        "--tags gpu_memory."),
    "reboot_rdma_not_ready": _code(
        ERROR, "reboot",
        "RDMA is not ready after the reboot although it is required or was ready before.",
        "Apply the fixes of the rdma_status problems the message lists."),
    "reboot_exo_unhealthy": _code(
        ERROR, "reboot",
        "exo is not healthy after the reboot (not running, API silent, or nodes missing from /state).",
        "Read /Library/Logs/macops/exo.log; `sudo launchctl kickstart -k system/org.macops.exo`."),
    # First contact (known-hosts.yml): the control machine's known_hosts.
    "ssh_host_key_changed": _code(
        ERROR, "preflight",
        "A node shows another SSH host key than the one the control machine's known_hosts pins for its address: the "
        "Mac was reinstalled or replaced, or something else answers at that address. Nothing was written for it.",
        "Compare the fingerprint known-hosts.yml shows with `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` at the "
        "Mac; if they match (a reinstalled Mac), remove the old entry (`ssh-keygen -R ADDRESS`) and run known-hosts.yml "
        "with -e known_hosts_confirm=true again."),
    # Report: what the report derives from the nodes' data (plugins/plugin_utils/_report_model.py).
    "node_unreachable": _code(
        ERROR, "report",
        "The node could not be reached, so nothing on it was checked.",
        "Check that the Mac is powered on and answers `ssh <host>` from the controller, then run again."),
    "node_facts_missing": _code(
        WARNING, "report",
        "No facts were collected from the node: its hardware, cabling and versions are not checked.",
        "Run the playbook again without --limit or tags that skip fact gathering."),
    "service_not_running": _code(
        WARNING, "report",
        "A service the collection runs (exo) is not running.",
        "Read the service's log on the node, then run the playbook again to restart it."),
    "exo_port_unreachable": _code(
        ERROR, "doctor",
        "A peer's exo does not answer on its API port at its Thunderbolt address (a firewall rule, pf or the "
        "Application Firewall): exo cannot confirm that peer over the cable, so no instance spans it.",
        "Let exo's ports (TCP 52414-52415, UDP 52413) in from the Thunderbolt networks on the peer (site.yml "
        "--tags firewall), and allow exo's Python in the Application Firewall."),
    "firewall_pf_disabled": _code(
        ERROR, "doctor",
        "pf is disabled on a node the firewall role configured: exo's and MLX's ports are open to every network.",
        "Run site.yml --tags firewall, or `sudo pfctl -E -f /etc/pf.conf` on the node."),
    "firewall_rules_missing": _code(
        ERROR, "doctor",
        "pf is on but the cluster's anchor holds no rules (a macOS update replaced /etc/pf.conf, or a flush): exo's "
        "and MLX's ports are open to every network.",
        "Run site.yml --tags firewall (it puts the anchor back into pf.conf and loads it)."),
    "exo_stale_node_id": _code(
        WARNING, "doctor",
        "exo's /state lists a node id no node has now (a node that left, or came back with a new id): exo "
        "does not place an RDMA (MlxJaccl) instance until every node restarts (exo #2194).",
        "Stop exo on every node, then start it on every node (launchctl bootout, then bootstrap, of the exo "
        "LaunchDaemon on all nodes), or run reboot-cluster.yml."),
    "check_failed": _code(
        ERROR, "report",
        "A check without a code of its own failed (for example the MLX all_sum smoke test).",
        "Run the playbook again with -v and read the check's output on the node."),
    "gpu_wired_limit_differs": _code(
        WARNING, "report",
        "The live GPU wired memory limit differs from the plan (iogpu.wired_limit_mb does not survive a "
        "reboot).",
        "Run the playbook again (--tags gpu_memory) to set it."),
    "software_version_mismatch": _code(
        WARNING, "report",
        "python, mlx, mlx_lm or exo differ between nodes; the node runs a version off the majority (tie: "
        "the newer).",
        "Pin the same version for every node and run the playbook again."),
    "report_no_nodes": _code(
        ERROR, "report",
        "The report has no nodes: no facts reached it.",
        "Check that the inventory group 'macs' lists the Macs and that the play ran on them."),
    "problem_unregistered": _code(
        ERROR, "report",
        "The report received a finding that is not a problem in the one shape or whose code the registry "
        "lacks: a bug in the collection (or a caller's report_problems), reported instead of dropped.",
        "Report it as a bug with the details; build every problem with problem() or the "
        "macops.cluster.problem filter, with a code from docs/problems.md."),
    "tb_peer_via_dock": _code(
        WARNING, "topology",
        "A Mac of the inventory is reached through a dock or hub on a Thunderbolt port (it sits one level "
        "deeper in system_profiler's items): no direct cable, so that path carries no RDMA and MLX and exo "
        "do not see it as a link; the plan leaves it out.",
        "Replace the dock between the two Macs with a direct Thunderbolt 5 cable; keep the dock on a port "
        "the cluster's cables do not need."),
    "sudo_rule_unsafe": _code(
        ERROR, "sudoers",
        "sudo -n -l lists a passwordless rule that gives a root shell or runs arbitrary code as root (a shell, "
        "an interpreter or editor, launchctl load/bootstrap/submit of any path, sysctl -w of any key, a "
        "wildcard that lets further options through): with the SSH mesh, one leaked key is then root on "
        "every node.",
        "Remove the rule (sudoers_extra_commands, or the sudoers file it comes from) or name the exact "
        "command line; to keep it knowingly, list it in sudoers_accepted_unsafe_rules (docs/sudo.md)."),
    "sudo_rule_unsafe_accepted": _code(
        INFO, "sudoers",
        "A passwordless rule that runs arbitrary code as root is in place because the owner accepted it in "
        "sudoers_accepted_unsafe_rules: listed so the report shows the exception.",
        "Nothing, while the exception is wanted; otherwise remove the rule and its entry in "
        "sudoers_accepted_unsafe_rules."),
    "ssh_peer_unreachable": _code(
        ERROR, "doctor",
        "A node cannot SSH to a peer (by name or over a cable) without a prompt, as mlx.launch must: a lost "
        "key, a changed host key, Remote Login off or a cable that does not carry it.",
        "Run site.yml --tags ssh_mesh (it installs the keys and host keys again); check Remote Login on the peer."),
    "sudoers_syntax_error": _code(
        ERROR, "sudoers",
        "sudo reports a sudoers file it cannot parse (what `visudo -c` would refuse): it skips the broken lines, "
        "or, before sudo 1.9.13, refuses every rule.",
        "Fix or remove the file sudo names (`sudo visudo -cf FILE` checks one), then run site.yml --tags "
        "sudoers."),
    "sudo_rules_inactive": _code(
        ERROR, "sudoers",
        "sudo -n -l fails or does not list a rule the sudoers role installed as passwordless: sudo does not "
        "read the drop-in (wrong owner or mode, no #includedir), so the cluster's tools would be asked for "
        "a password.",
        "Run the sudoers role again (site.yml --tags sudoers) and read sudo's complaint in "
        "`sudo -n -l` on the node; the drop-in must be root:wheel 0440 in a directory /etc/sudoers includes."),
}
# In registry order (docs/problems.md lists the areas in this order).
REGISTRY.update(BENCHMARK_CODES)
REGISTRY.update(SHARD_CODES)
REGISTRY.update(SERVE_CODES)
REGISTRY.update(UPDATE_CODES)


def problem(code, message, fix=None, host=None, port=None, peer=None, severity=None, details=None):
    """One finding in the one shape; ``fix`` and ``severity`` default to the registry's."""
    entry = REGISTRY.get(code)
    if entry is None:
        raise UnknownProblemCode("problem code %r is not in the registry (plugins/module_utils/_problems.py)" % (code,))
    severity = severity or entry["severity"]
    if severity not in SEVERITIES:
        raise ValueError("problem %s: severity %r is not one of %s" % (code, severity, ", ".join(SEVERITIES)))
    return {
        "code": code,
        "severity": severity,
        "host": None if host is None else str(host),
        "port": None if port is None else str(port),
        "peer": None if peer is None else str(peer),
        "message": str(message),
        "fix": str(fix or entry["fix"]),
        "details": dict(details or {}),
    }


def is_problem(value):
    """True for a dict in the one shape with a registered code (what the report accepts)."""
    return isinstance(value, dict) and set(value) == set(PROBLEM_KEYS) and value.get("code") in REGISTRY \
        and value.get("severity") in SEVERITIES and _is_text(value["message"]) and _is_text(value["fix"]) \
        and all(value[key] is None or isinstance(value[key], str) for key in ("host", "port", "peer")) \
        and isinstance(value["details"], dict)


def _is_text(value):
    return isinstance(value, str) and value != ""
