#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: node_facts
short_description: Read everything the playbooks need to know about a Mac in one module run
version_added: 0.1.0
description:
  - One module run per node and playbook; the commands of the groups in O(gather) run at once
    (threads), each at most once, so C(system_profiler) and C(sw_vers) run once per node.
  - C(mac) runs C(system_profiler -json SPHardwareDataType SPSoftwareDataType SPThunderboltDataType)
    and C(networksetup -listallhardwareports), the same parsers as M(macops.cluster.system_profiler).
  - C(macos) returns the macOS version and build. With C(mac) they are C(SPSoftwareDataType)'s, and
    C(sw_vers) runs only when that (whose keys are unconfirmed) lacks them, after system_profiler;
    its answer then also fills C(mac.macos_version) and C(mac.macos_build). Without C(mac),
    C(sw_vers) runs with the other reads.
  - C(disk) runs C(df -k) once per path in O(volumes); C(filevault) runs C(fdesetup status), and
    C(fdesetup supportsauthrestart) only where FileVault is on;
    C(launchd) runs C(launchctl print system/LABEL) per label in O(launchd_labels) (exit status 0
    is loaded); C(launchd_disabled) runs C(launchctl print-disabled system) once, for the same labels;
    C(boot) reads C(kern.bootsessionuuid); C(wired_limit) reads the live
    C(iogpu.wired_limit_mb) and the boot-time target the gpu_memory role's LaunchDaemon
    (O(wired_limit_plist)) sets; C(updates) runs C(softwareupdate --list) (slow, it asks Apple servers);
    C(user) returns the connecting user's name and home as the facts C(user_id) and C(user_dir);
    C(installers) runs C(softwareupdate --list-full-installers) (slow too) and C(stat -f %Su /dev/console)
    (who is logged in at the Mac's screen, whom a full installer's startosinstall needs).
  - C(rdma) runs C(rdma_ctl status), C(ibv_devices) and, when devices exist, C(ibv_devinfo -v), and
    judges readiness as M(macops.cluster.rdma_status) does, with the Thunderbolt ports of the
    C(mac) group or, without it, of O(mac) (a C(macops_mac) fact read earlier); cabling does not
    change when addresses are set or a Mac reboots, so nothing reads system_profiler twice.
  - C(links) pings every peer of this node in the applied Thunderbolt plan over its own cable
    (C(ping -c <count> [-i <interval>] -t <timeout> <peer_ip>)) and asks C(route -n get) which interface
    reaches it, all at once and beside the other reads, so a check after a reboot needs no second module run.
    A cable is ok when the route leaves through its own interface and at least one echo reply came back.
    It also reads the default route and reports one through a Thunderbolt port or bridge. The probe and
    verdict are M(macops.cluster.tb_network)'s own check after it applies the plan.
  - C(exo) reads exo's LaunchDaemon (O(exo.plist), the exo role's, for the label, API port and log), asks launchd
    whether the job runs and, while it is loaded, asks C(GET /state) on the loopback until it lists
    O(exo.expected_nodes) nodes or O(exo.timeout) seconds pass, as M(macops.cluster.exo_health) does
    (same reads and verdict), beside the other reads. It never fails the module; C(healthy) and
    C(message) in RV(exo) say what is wrong.
  - C(network) compares this node's Thunderbolt network with the plan the thunderbolt_network role last
    applied (O(network.plan_file), with the settings M(macops.cluster.tb_network) recorded in it); the same
    planner runs on what the node reads now (C(networksetup -listnetworkserviceorder), C(-getinfo) and
    C(-getMTU), C(ifconfig bridge0)) and applies nothing; every step it would take is a difference, and each
    kind of difference a problem (C(tb_bridge_on), C(tb_address_differs), C(tb_service_order), C(tb_config_drift)).
  - C(packages) runs O(packages.python) once, which prints its own version and the installed version of each of
    O(packages.names); a missing or broken environment is a reading (C(found) false, C(error)), not a failure.
  - C(exo) takes exo's version from O(exo.python), else from the interpreter beside the program exo's LaunchDaemon runs.
  - C(sudo) lists the passwordless sudo rules in force (C(sudo -n -l), as the connecting user, no password) and audits
    them as M(macops.cluster.sudo_rules) does; a listing that fails (a broken sudoers file, no passwordless rule) is
    a problem in RV(sudo), not a failure.
  - C(listening) lists every TCP listener and the process holding it (C(lsof -nP -iTCP -sTCP:LISTEN -Fpcn)); run it
    with become to see every user's processes. C(memory) reads C(vm_stat), the memory a new program can have.
  - C(ssh) connects to every peer by name and over every cable, as mlx.launch does (the checks of
    M(macops.cluster.ssh_check), no prompt, host keys checked), beside the other reads; a peer it cannot
    reach is a problem (C(ssh_peer_unreachable)), not a failure.
  - C(settings) reads the power settings in use (C(pmset -g)) and the automatic update settings
    (O(software_update_plist), read as a file, no C(defaults) run).
  - C(managed) reads whether an MDM manages the Mac's updates (C(profiles status -type enrollment)), the deferrals
    of a restrictions profile (C(/Library/Managed Preferences/com.apple.applicationaccess.plist)) and what
    declarative device management enforces (C(/var/db/softwareupdate/SoftwareUpdateDDMStatePersistence.plist),
    root only; key names unconfirmed from a captured file).
  - Read-only; never reports a change.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
  - macops.cluster.attributes.facts
  - macops.cluster.attributes.action
options:
  gather:
    description: What to read.
    type: list
    elements: str
    choices: [mac, macos, disk, filevault, launchd, launchd_disabled, boot, wired_limit, rdma, updates, user, files,
              models, links, exo, network, settings, packages, sudo, ssh, listening, memory, programs, managed, installers]
    default: [mac, macos, disk, filevault, launchd, user]
  volumes:
    description: Paths whose volume C(disk) measures, each given to C(df -k) as is.
    type: list
    elements: str
    default: [/]
  launchd_labels:
    description: LaunchDaemon labels whose state C(launchd) reads in the system domain.
    type: list
    elements: str
    default: [com.openssh.sshd]
  files:
    description:
      - Small text files C(files) reads (the collection's own state, such as the address plan applied last
        time, or a public key), each at most 1 MiB. A file that is not there is no failure.
    type: list
    elements: path
    default: []
  programs:
    description:
      - Programs C(programs) looks for (an absolute path, or one under C(~) of the connecting user), each
        reported as there and executable or not. Nothing is run.
    type: list
    elements: str
    default: []
    version_added: 0.2.0
  models_dirs:
    description:
      - Directories whose model directories C(models) lists, each one that holds a deployment record
        (C(.macops-model.json), written by M(macops.cluster.model_shard)), with its files checked by name and size.
        A directory that is not there lists nothing.
    type: list
    elements: path
    default: []
  wired_limit_plist:
    description: The LaunchDaemon that sets C(iogpu.wired_limit_mb) at boot (the gpu_memory role's).
    type: path
    default: /Library/LaunchDaemons/org.macops.gpu-memory.plist
  min_macos:
    description: The oldest macOS with RDMA over Thunderbolt, for C(rdma).
    type: str
    default: "26.2"
  record:
    description:
      - Also return RV(recorded), every command the reads ran and exactly what it printed (the support bundle's raw
        output, which C(lab/maclab replay) makes a lab host print again). Use C(no_log) on such a task, the output
        holds serial numbers.
    type: bool
    default: false
    version_added: 0.2.0
  mac:
    description:
      - A C(macops_mac) fact read earlier (by this module's C(mac) group or M(macops.cluster.system_profiler)),
        whose Thunderbolt ports and macOS version C(rdma) uses when C(mac) is not gathered.
    type: dict
  links:
    description: What C(links) checks.
    type: dict
    default: {}
    suboptions:
      plan_file:
        description:
          - The applied address plan the thunderbolt_network role writes on every node. A missing file is
            no failure (C(plan_found) in RV(links) is false and nothing is pinged); one that is not such a plan fails.
        type: path
        default: /Library/Application Support/macops/thunderbolt-plan.json
      host:
        description: This node's inventory name in O(links.plan_file). Required with C(links).
        type: str
      plan_interface:
        description: Replaces every planned device (C(bridge0) when the Thunderbolt Bridge is kept).
        type: str
      peers:
        description: Only the cables to these peers (inventory names); all of them when omitted.
        type: list
        elements: str
      count:
        description: Echo requests per peer.
        type: int
        default: 2
      interval:
        description: Seconds between echo requests (ping's own 1 s when omitted).
        type: float
      timeout:
        description: Seconds each ping may take.
        type: int
        default: 3
  exo:
    description: What C(exo) checks.
    type: dict
    default: {}
    suboptions:
      plist:
        description: The exo role's LaunchDaemon; missing means exo is not installed on this node.
        type: path
        default: /Library/LaunchDaemons/org.macops.exo.plist
      expected_nodes:
        description: How many nodes C(/state) must list.
        type: int
        default: 1
      timeout:
        description: Seconds to wait for C(/state) to list O(exo.expected_nodes) nodes.
        type: int
        default: 60
      require_all_nodes:
        description: Wait for, and judge unhealthy without, every expected node; false only needs the API to answer.
        type: bool
        default: true
      python:
        description: Interpreter of exo's own environment, whose C(importlib.metadata) gives C(version) in RV(exo).
        type: path
      host:
        description: Name of this node in the C(message) of RV(exo) (the inventory name).
        type: str
        default: this node
  network:
    description: What C(network) compares.
    type: dict
    default: {}
    suboptions:
      plan_file:
        description: The applied address plan the thunderbolt_network role writes on every node; missing means nothing to compare.
        type: path
        default: /Library/Application Support/macops/thunderbolt-plan.json
      host:
        description: This node's inventory name in O(network.plan_file). Required with C(network).
        type: str
  packages:
    description: What C(packages) asks.
    type: dict
    default: {}
    suboptions:
      python:
        description: The environment's interpreter (the cluster's virtual environment, C(bin/python)).
        type: path
      names:
        description: Distributions whose installed version to return (C(mlx), C(mlx-lm)).
        type: list
        elements: str
        default: []
  ssh:
    description: What C(ssh) checks.
    type: dict
    default: {}
    suboptions:
      peers:
        description: The peers (inventory names) to reach, by name and over each of their cables in O(ssh.plan_file).
        type: list
        elements: str
        default: []
      host:
        description: This node's inventory name (left out of O(ssh.peers); its cables in O(ssh.plan_file)). Required with C(ssh).
        type: str
      plan_file:
        description: The applied address plan; a missing file means the peers are checked by name only.
        type: path
        default: /Library/Application Support/macops/thunderbolt-plan.json
      connect_timeout:
        description: ssh's ConnectTimeout, in seconds.
        type: int
        default: 5
      parallel:
        description: Checks at once (sshd's MaxStartups drops connections beyond a few at a time).
        type: int
        default: 4
      ssh:
        description: The ssh client.
        type: path
        default: /usr/bin/ssh
  software_update_plist:
    description: Where C(settings) reads the automatic update settings (a missing file sets none of them).
    type: path
    default: /Library/Preferences/com.apple.SoftwareUpdate.plist
  min_python:
    description:
      - Ask the node's Python first, over the bare connection (no module, no Python needed), as
        M(macops.cluster.node_python) does. Where C(ansible_python_interpreter) (else C(/usr/bin/python3)) is missing,
        only the Command Line Tools stub, or older than this version, the task fails with the problem
        C(node_python_unusable) and its fix (RV(problems)), and nothing else runs on the node. Unset, the module runs
        at once. The action plugin asks; the module itself never sees this option.
    type: str
    version_added: 0.2.0
  set_facts:
    description:
      - Return RV(mac) as the fact C(macops_mac) and everything else gathered as the fact C(macops_node).
        Leave it off for a later partial read, which would replace the fact with less.
    type: bool
    default: false
notes:
  - A failing C(system_profiler), C(networksetup), C(sw_vers), C(df), C(fdesetup) or boot-session
    read fails the module. C(launchctl print) exit 113 means not loaded; other non-zero statuses
    fail. A missing C(iogpu.wired_limit_mb) or LaunchDaemon gives null.
seealso:
  - module: macops.cluster.system_profiler
  - module: macops.cluster.rdma_status
"""

EXAMPLES = r"""
- name: Read the node once, for every later role
  macops.cluster.node_facts:
    gather: [mac, macos, disk, filevault, launchd, user]
    launchd_labels: [com.openssh.sshd, io.exo.networksetup]
    set_facts: true

- name: RDMA readiness after the network is configured, with the cabling read above
  macops.cluster.node_facts:
    gather: [rdma]
    mac: "{{ ansible_facts['macops_mac'] }}"
  register: __rdma_status

- name: After a reboot, the boot session, every cable and exo in one run
  macops.cluster.node_facts:
    gather: [boot, links, exo]
    links: {host: "{{ inventory_hostname }}", interval: 0.2}
    exo: {expected_nodes: 4, host: "{{ inventory_hostname }}"}
  register: __after_reboot
"""

RETURN = r"""
problems:
  description: With O(min_python), the problem C(node_python_unusable) when the node has no usable Python (the task then
    fails and returns nothing else).
  returned: when the node's Python is unusable
  type: list
  elements: dict
  version_added: 0.2.0
mac:
  description: The C(macops_mac) dictionary of M(macops.cluster.system_profiler) (see its RV(mac)).
  returned: when C(mac) is gathered
  type: dict
macos:
  description:
    - C(version), C(extra) and C(build), from system_profiler or C(sw_vers).
    - C(extra) is the security response the Mac carries (C((a))), else null; C(build) is then the response's own build.
  returned: when C(macos) is gathered
  type: dict
  sample: {"version": "26.3.1", "extra": "(a)", "build": "25D771280a"}
volumes:
  description: Per path of O(volumes), C(path), C(size_kib), C(free_kib) (Available), C(free_gb) and C(mounted_on) (the
    volume's mount point) from C(df -k).
  returned: when C(disk) is gathered
  type: dict
  sample: {"/": {"path": "/", "size_kib": 971350180, "free_kib": 650553916, "free_gb": 620.4}}
filevault:
  description: C(on) (the next boot stops at the unlock screen), C(state) (C(on), C(off), C(pending)), C(status),
    and C(supports_authrestart) (fdesetup supportsauthrestart, true or false; null where FileVault is not on, so
    it was not asked, or where it answers neither).
  returned: when C(filevault) is gathered
  type: dict
launchd_disabled:
  description: The labels of O(launchd_labels) that C(launchctl print-disabled system) lists as disabled (launchd
    loads none of them at boot).
  returned: when C(launchd_disabled) is gathered
  type: list
  elements: str
launchd:
  description: Per label of O(launchd_labels), whether launchd has the job in the system domain.
  returned: when C(launchd) is gathered
  type: dict
  sample: {"com.openssh.sshd": true, "io.exo.networksetup": false}
boot_session:
  description: C(kern.bootsessionuuid), new at every boot.
  returned: when C(boot) is gathered
  type: str
wired_limit:
  description: C(live_mb) (C(iogpu.wired_limit_mb), null when absent), C(target_mb) (set at boot by
    O(wired_limit_plist), null when it is not installed) and C(plist).
  returned: when C(wired_limit) is gathered
  type: dict
rdma:
  description: What M(macops.cluster.rdma_status) returns (C(enabled), C(macos_version), C(macos_build),
    C(ports), C(ready), C(problems)).
  returned: when C(rdma) is gathered
  type: dict
updates:
  description:
    - Pending software updates (C(label), C(title), C(version), C(version_extra), C(build), C(size_bytes),
      C(recommended), C(restart)).
    - A security response's C(version) is its release (C(26.3.1)) and C(version_extra) its letter (C((a))).
  returned: when C(updates) is gathered
  type: list
  elements: dict
recorded:
  description:
    - With O(record), each command the reads ran (C(argv)), its exit status (C(rc)), C(stdout) and C(stderr), in the
      order they ended.
  returned: when O(record) is true
  type: list
  elements: dict
installers:
  description:
    - C(offered), Apple's full installers this Mac can fetch (C(title), C(version), C(build), C(size_bytes),
      C(deferred), C(beta)), newest first (none when the listing failed, C(error) then says why); C(console_user), who
      is logged in at the Mac's screen (null at the login window).
  returned: when C(installers) is gathered
  type: dict
files:
  description:
    - "C({path: {exists, content, json}}) for each of O(files): C(content) the text (null when the file is
      not there), C(json) the parsed content of a C(.json) file (null when it is not there or not valid JSON)."
  type: dict
  returned: when C(files) is gathered
  sample: {"/Library/Application Support/macops/thunderbolt-plan.json": {"exists": true, "content": "{}", "json": {}}}
programs:
  description: "C({path: true or false}) for each of O(programs), as given, true where it is an executable file."
  type: dict
  returned: when C(programs) is gathered
  sample: {"/opt/homebrew/bin/brew": true, "~/.cargo/bin/cargo": false}
models:
  description:
    - Per deployed model under O(models_dirs), its record (C(name), C(runtime), C(runtime_version), C(mode),
      C(copies), C(rank), C(ranks), C(layers), C(model_id)) with C(path), C(files) (how many), C(bytes), C(missing)
      and C(wrong_size) (file names), C(complete) and C(recorded_at) (the record's modification time in seconds since
      the epoch, when a deployment last changed it). Sizes only; the sha256 are checked by deploy-model.yml.
    - A record that cannot be read gives C(path), C(error) and C(complete=false).
  type: list
  elements: dict
  returned: when C(models) is gathered
  sample: [{"name": "tiny-qwen2", "runtime": "mlx-lm", "rank": 1, "ranks": 4, "layers": [6, 12], "files": 5,
            "bytes": 260000000, "missing": [], "wrong_size": [], "complete": true, "path": "/Users/admin/models/tiny-qwen2",
            "recorded_at": 1796220000}]
links:
  description:
    - For this node's cables in O(links.plan_file) - C(plan_found) (the file is there), C(planned_links)
      (how many cables it lists for O(links.host), checked or not, see O(links.peers)), C(links) (per cable
      checked C(interface), C(peer_ip), C(peer_host), C(route_interface), C(transmitted), C(received) and
      C(ok)), C(default_route) (C(interface) and C(gateway), null when there is none) and C(problems)
      (C(tb_link_no_reply), C(tb_link_wrong_interface), C(tb_default_route_over_thunderbolt), every one an error).
  type: dict
  returned: when C(links) is gathered
exo:
  description:
    - C(installed) (the LaunchDaemon is there), C(label), C(api_port), C(log_file), C(running), C(api_ok),
      C(nodes_seen), C(nodes_expected), C(version) (with O(exo.python), else null), C(healthy) (as
      M(macops.cluster.exo_health) judges) and C(message) (the readings and what to check; empty when healthy).
    - C(node_id) (exo's GET /node_id, null when the API is silent) and C(node_ids) (every id its C(/state) lists,
      sorted), so a caller that knows every node's id can tell a departed or renewed node's stale id.
    - With C(links) gathered too, C(peers) lists each of its cables (C(interface), C(peer), C(address)) with the
      C(node_id) the peer's exo answers at its Thunderbolt address, on this node's exo API port (null when none
      answers within 2 seconds).
  type: dict
  returned: when C(exo) is gathered
  sample: {"installed": true, "label": "org.macops.exo", "api_port": 52415, "running": true, "api_ok": true,
           "nodes_seen": 2, "nodes_expected": 2, "healthy": true, "message": "", "node_id": "12D3KooWA",
           "node_ids": ["12D3KooWA", "12D3KooWB"]}
network:
  description:
    - C(plan_found), C(differences) (each step M(macops.cluster.tb_network) would take to bring the node back to
      its applied plan, as C(kind), C(device) and C(reason)) and C(problems).
  type: dict
  returned: when C(network) is gathered
  sample: {"plan_found": true, "differences": [{"kind": "bridge", "device": "bridge0", "reason": "the live bridge exists"}],
           "problems": []}
ssh:
  description: C(results) (per target, as M(macops.cluster.ssh_check) returns them) and C(problems).
  type: dict
  returned: when C(ssh) is gathered
listening:
  description: Every TCP listener, C({pid, command, address, port}) (C(address) C(*) is every address).
  type: list
  elements: dict
  returned: when C(listening) is gathered
memory:
  description: C(vm_stat)'s C(page_size), C(pages) (label to count) and C(available_bytes) (free, inactive, speculative
    and purgeable pages).
  type: dict
  returned: when C(memory) is gathered
sudo:
  description: C(rc) of C(sudo -n -l) and C(problems) (C(sudo_rules_inactive), C(sudo_rule_unsafe), ...).
  type: dict
  returned: when C(sudo) is gathered
packages:
  description: C(python_path), C(found), C(python) (its version), C(versions) (name to version, null when not installed)
    and C(error).
  type: dict
  returned: when C(packages) is gathered
  sample: {"python_path": "/opt/macops/venv/bin/python", "found": true, "python": "3.12.8",
           "versions": {"mlx": "0.32.4", "mlx-lm": "0.32.2"}, "error": null}
managed:
  description:
    - Whether an MDM manages the Mac's updates. C(enrolled), C(dep), C(user_approved), C(server) (the MDM's URL or
      null); C(deferred_days) with C(minor), C(major) and C(other), the days each kind of update is held back (the
      longer of a restrictions profile's and DDM's) or null; C(enforced), each install DDM enforces, soonest first,
      with C(version), C(build), C(at) (local time, as the declaration says) and C(details_url).
  type: dict
  returned: when C(managed) is gathered
  sample: {"enrolled": true, "dep": true, "user_approved": true, "server": "https://mdm.example.com/mdm",
           "deferred_days": {"minor": 14, "major": 90, "other": null},
           "enforced": [{"version": "26.4", "build": null, "at": "2026-12-10T02:00:00", "details_url": null}]}
settings:
  description:
    - C(power) (the settings in use, name to value as C(pmset -g) prints them), C(auto_updates) (C(AutomaticCheckEnabled),
      C(AutomaticDownload), C(AutomaticallyInstallMacOSUpdates), C(CriticalUpdateInstall), C(ConfigDataInstall),
      C(SplatEnabled), each true, false, or null where the file does not set it) and C(software_update_plist).
  type: dict
  returned: when C(settings) is gathered
  sample: {"power": {"sleep": "0", "autorestart": "1", "womp": "1"}, "auto_updates": {"AutomaticallyInstallMacOSUpdates": false}}
ansible_facts:
  description: C(user_id) and C(user_dir) when C(user) is gathered; C(macops_mac) and C(macops_node) with O(set_facts).
  returned: when C(user) is gathered or O(set_facts=true)
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._node_collect import collect
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

GROUPS = ["mac", "macos", "disk", "filevault", "launchd", "launchd_disabled", "boot", "wired_limit", "rdma", "updates", "user", "files",
          "models", "links", "exo", "network", "settings", "packages", "sudo", "ssh", "listening", "memory", "programs",
          "managed", "installers"]
DEFAULT_GROUPS = ["mac", "macos", "disk", "filevault", "launchd", "user"]


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gather=dict(type="list", elements="str", choices=GROUPS, default=DEFAULT_GROUPS),
            volumes=dict(type="list", elements="str", default=["/"]),
            launchd_labels=dict(type="list", elements="str", default=["com.openssh.sshd"]),
            files=dict(type="list", elements="path", default=[]),
            models_dirs=dict(type="list", elements="path", default=[]),
            programs=dict(type="list", elements="str", default=[]),
            wired_limit_plist=dict(type="path", default="/Library/LaunchDaemons/org.macops.gpu-memory.plist"),
            min_macos=dict(type="str", default="26.2"),
            mac=dict(type="dict"),
            links=dict(type="dict", default={}, options=dict(
                plan_file=dict(type="path", default="/Library/Application Support/macops/thunderbolt-plan.json"),
                host=dict(type="str"),
                plan_interface=dict(type="str"),
                peers=dict(type="list", elements="str"),
                count=dict(type="int", default=2),
                interval=dict(type="float"),
                timeout=dict(type="int", default=3),
            )),
            exo=dict(type="dict", default={}, options=dict(
                plist=dict(type="path", default="/Library/LaunchDaemons/org.macops.exo.plist"),
                expected_nodes=dict(type="int", default=1),
                timeout=dict(type="int", default=60),
                require_all_nodes=dict(type="bool", default=True),
                python=dict(type="path"),
                host=dict(type="str", default="this node"),
            )),
            network=dict(type="dict", default={}, options=dict(
                plan_file=dict(type="path", default="/Library/Application Support/macops/thunderbolt-plan.json"),
                host=dict(type="str"),
            )),
            software_update_plist=dict(type="path", default="/Library/Preferences/com.apple.SoftwareUpdate.plist"),
            ssh=dict(type="dict", default={}, options=dict(
                peers=dict(type="list", elements="str", default=[]),
                host=dict(type="str"),
                plan_file=dict(type="path", default="/Library/Application Support/macops/thunderbolt-plan.json"),
                connect_timeout=dict(type="int", default=5),
                parallel=dict(type="int", default=4),
                ssh=dict(type="path", default="/usr/bin/ssh"),
            )),
            packages=dict(type="dict", default={}, options=dict(
                python=dict(type="path"),
                names=dict(type="list", elements="str", default=[]),
            )),
            set_facts=dict(type="bool", default=False),
            # Asked by the action plugin before the module runs (plugins/action/node_facts.py); never reaches here.
            min_python=dict(type="str"),
            record=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    recorded = commands.start_recording() if module.params["record"] else None
    try:
        result = collect(module)
        if recorded is not None:
            result["recorded"] = recorded
        module.exit_json(**result)
    except ParseError as exc:  # a parser reached outside commands.parse (none should): still a clean failure
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
