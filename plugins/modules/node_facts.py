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
version_added: 0.2.0
description:
  - One module run per node and playbook; the commands of the groups in O(gather) run at once
    (threads), each at most once, so C(system_profiler) and C(sw_vers) run once per node.
  - C(mac) runs C(system_profiler -json SPHardwareDataType SPSoftwareDataType SPThunderboltDataType)
    and C(networksetup -listallhardwareports), the same parsers as M(macops.cluster.system_profiler).
  - C(macos) returns the macOS version and build. With C(mac) they are C(SPSoftwareDataType)'s, and
    C(sw_vers) runs only when that (whose keys are unconfirmed) lacks them, after system_profiler;
    its answer then also fills C(mac.macos_version) and C(mac.macos_build). Without C(mac),
    C(sw_vers) runs with the other reads.
  - C(disk) runs C(df -k) once per path in O(volumes); C(filevault) runs C(fdesetup status);
    C(launchd) runs C(launchctl print system/LABEL) per label in O(launchd_labels) (exit status 0
    is loaded); C(boot) reads C(kern.bootsessionuuid); C(wired_limit) reads the live
    C(iogpu.wired_limit_mb) and the boot-time target the gpu_memory role's LaunchDaemon
    (O(wired_limit_plist)) sets; C(updates) runs C(softwareupdate --list) (slow, it asks Apple servers);
    C(user) returns the connecting user's name and home as the facts C(user_id) and C(user_dir).
  - C(rdma) runs C(rdma_ctl status), C(ibv_devices) and, when devices exist, C(ibv_devinfo -v), and
    judges readiness as M(macops.cluster.rdma_status) does, with the Thunderbolt ports of the
    C(mac) group or, without it, of O(mac) (a C(macops_mac) fact read earlier); cabling does not
    change when addresses are set or a Mac reboots, so nothing reads system_profiler twice.
  - Read-only; never reports a change.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
  - macops.cluster.attributes.facts
options:
  gather:
    description: What to read.
    type: list
    elements: str
    choices: [mac, macos, disk, filevault, launchd, boot, wired_limit, rdma, updates, user, files, models]
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
  mac:
    description:
      - A C(macops_mac) fact read earlier (by this module's C(mac) group or M(macops.cluster.system_profiler)),
        whose Thunderbolt ports and macOS version C(rdma) uses when C(mac) is not gathered.
    type: dict
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
"""

RETURN = r"""
mac:
  description: The C(macops_mac) dictionary of M(macops.cluster.system_profiler) (see its RV(mac)).
  returned: when C(mac) is gathered
  type: dict
macos:
  description: C(version) and C(build), from system_profiler or C(sw_vers).
  returned: when C(macos) is gathered
  type: dict
  sample: {"version": "26.2", "build": "25C56"}
volumes:
  description: Per path of O(volumes), C(path), C(size_kib), C(free_kib) (Available), C(free_gb) and C(mounted_on) (the
    volume's mount point) from C(df -k).
  returned: when C(disk) is gathered
  type: dict
  sample: {"/": {"path": "/", "size_kib": 971350180, "free_kib": 650553916, "free_gb": 620.4}}
filevault:
  description: C(on) (the next boot stops at the unlock screen), C(state) (C(on), C(off), C(pending)) and C(status).
  returned: when C(filevault) is gathered
  type: dict
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
  description: Pending software updates (C(label), C(title), C(version), C(recommended), C(restart)).
  returned: when C(updates) is gathered
  type: list
  elements: dict
files:
  description:
    - "C({path: {exists, content, json}}) for each of O(files): C(content) the text (null when the file is
      not there), C(json) the parsed content of a C(.json) file (null when it is not there or not valid JSON)."
  type: dict
  returned: when C(files) is gathered
  sample: {"/Library/Application Support/macops/thunderbolt-plan.json": {"exists": true, "content": "{}", "json": {}}}
models:
  description:
    - Per deployed model under O(models_dirs), its record (C(name), C(runtime), C(runtime_version), C(mode),
      C(copies), C(rank), C(ranks), C(layers), C(model_id)) with C(path), C(files) (how many), C(bytes), C(missing)
      and C(wrong_size) (file names) and C(complete). Sizes only; the sha256 are checked by deploy-model.yml.
    - A record that cannot be read gives C(path), C(error) and C(complete=false).
  type: list
  elements: dict
  returned: when C(models) is gathered
  sample: [{"name": "tiny-qwen2", "runtime": "mlx-lm", "rank": 1, "ranks": 4, "layers": [6, 12], "files": 5,
            "bytes": 260000000, "missing": [], "wrong_size": [], "complete": true, "path": "/Users/admin/models/tiny-qwen2"}]
ansible_facts:
  description: C(user_id) and C(user_dir) when C(user) is gathered; C(macops_mac) and C(macops_node) with O(set_facts).
  returned: when C(user) is gathered or O(set_facts=true)
  type: dict
"""

import json
import os
import pwd

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _df, _fdesetup, _rdma_facts, _softwareupdate
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac
from ansible_collections.macops.cluster.plugins.module_utils._model_deploy import deployed_models
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import parse_full, version_tuple
from ansible_collections.macops.cluster.plugins.module_utils._system_profiler import (
    HARDWARE,
    SOFTWARE,
    THUNDERBOLT,
    parse_json,
)
from ansible_collections.macops.cluster.plugins.module_utils._wired_limit import boot_target_mb

GROUPS = ["mac", "macos", "disk", "filevault", "launchd", "boot", "wired_limit", "rdma", "updates", "user", "files",
          "models"]
MAX_FILE_BYTES = 1 << 20
DEFAULT_GROUPS = ["mac", "macos", "disk", "filevault", "launchd", "user"]
# launchctl print's exit status for a service launchd does not know.
LAUNCHD_NOT_LOADED = 113


class Reads(object):
    """The argvs of one run, by key, started together; their results by the same key."""

    def __init__(self, module):
        self.module = module
        self.argvs = []
        self.keys = []
        self.results = {}

    def add(self, key, argv):
        self.keys.append(key)
        self.argvs.append(argv)

    def run(self):
        for key, result in zip(self.keys, commands.run_parallel(self.module, self.argvs)):
            self.results[key] = result

    def output(self, key):
        """stdout of a read that must succeed."""
        return commands.succeeded(self.module, self.argvs[self.keys.index(key)], self.results[key])


def plan_reads(module, groups):
    params = module.params
    reads = Reads(module)
    need = commands.require_command
    if "mac" in groups:
        reads.add("profile", [need(module, "system_profiler"), "-json", HARDWARE, SOFTWARE, THUNDERBOLT])
        reads.add("ports", [need(module, "networksetup"), "-listallhardwareports"])
    if "macos" in groups and "mac" not in groups:
        reads.add("sw_vers", [need(module, "sw_vers")])
    for path in params["volumes"] if "disk" in groups else []:
        reads.add(("df", path), [need(module, "df"), "-k", path])
    if "filevault" in groups:
        reads.add("fdesetup", [need(module, "fdesetup"), "status"])
    for label in params["launchd_labels"] if "launchd" in groups else []:
        reads.add(("launchd", label), [need(module, "launchctl"), "print", "system/" + label])
    if "boot" in groups:
        reads.add("boot", [need(module, "sysctl"), "-n", "kern.bootsessionuuid"])
    if "wired_limit" in groups:
        reads.add("wired", [need(module, "sysctl"), "-n", "iogpu.wired_limit_mb"])
    if "rdma" in groups:
        rdma_ctl, ibv_devices, ibv_devinfo = _rdma_facts.argvs(module)
        reads.add("rdma_ctl", rdma_ctl)
        reads.add("ibv_devices", ibv_devices)
        reads.add("ibv_devinfo", ibv_devinfo)
    if "updates" in groups:
        reads.add("updates", [need(module, "softwareupdate"), "--list"])
    return reads


def read_mac(module, reads):
    profile = commands.parse(module, parse_json, reads.output("profile"))
    hardware_ports = commands.parse(module, parse_hardware_ports, reads.output("ports"))
    return commands.parse(module, build_mac, profile, hardware_ports)


def read_macos(module, reads, mac):
    """Version and build: system_profiler's when it has both, else sw_vers' (which then fills mac)."""
    if mac is not None and mac["macos_version"] and mac["macos_build"]:
        return {"version": mac["macos_version"], "build": mac["macos_build"]}
    if "sw_vers" in reads.results:
        stdout = reads.output("sw_vers")
    else:
        stdout = commands.run(module, [commands.require_command(module, "sw_vers")])
    versions = commands.parse(module, parse_full, stdout)
    macos = {"version": versions["product_version"], "build": versions["build_version"]}
    if mac is not None:
        mac["macos_version"] = mac["macos_version"] or macos["version"]
        mac["macos_build"] = mac["macos_build"] or macos["build"]
    return macos


def read_launchd(module, reads):
    loaded = {}
    for label in module.params["launchd_labels"]:
        key = ("launchd", label)
        rc = reads.results[key][0]
        if rc not in (0, LAUNCHD_NOT_LOADED):
            reads.output(key)  # fails the module with launchctl's own message
        loaded[label] = rc == 0
    return loaded


def read_wired_limit(module, reads):
    rc, stdout, _stderr = reads.results["wired"]
    live = stdout.strip()
    path = module.params["wired_limit_plist"]
    target = None
    if os.path.exists(path):
        with open(path, "rb") as plist:
            target = commands.parse(module, boot_target_mb, plist.read(), path)
    return {"live_mb": int(live) if rc == 0 and live.isdigit() else None, "target_mb": target, "plist": path}


def read_files(module):
    """The small state files asked for: text, and parsed JSON for a .json file."""
    files = {}
    for path in module.params["files"]:
        entry = {"exists": os.path.isfile(path), "content": None, "json": None}
        if entry["exists"]:
            if os.path.getsize(path) > MAX_FILE_BYTES:
                module.fail_json(msg="%s is larger than %d bytes; files reads only small state files" % (
                    path, MAX_FILE_BYTES))
            with open(path, "rb") as handle:
                entry["content"] = handle.read().decode("utf-8", "replace")
            if path.endswith(".json"):
                try:
                    entry["json"] = json.loads(entry["content"])
                except ValueError:
                    entry["json"] = None
        files[path] = entry
    return files


def read_rdma(module, reads, mac, macos):
    known_mac = mac or module.params["mac"]
    if not known_mac:
        module.fail_json(msg="rdma needs the Thunderbolt ports: gather mac too, or pass mac (the macops_mac fact)")
    version = (macos or {}).get("version") or known_mac.get("macos_version")
    build = (macos or {}).get("build") or known_mac.get("macos_build")
    if not version:
        module.fail_json(msg="rdma needs the macOS version: gather macos too, or pass a mac that has macos_version")
    results = [reads.results["rdma_ctl"], reads.results["ibv_devices"], reads.results["ibv_devinfo"]]
    return _rdma_facts.readiness(module, results, version, build, module.params["min_macos"],
                                 known_mac.get("thunderbolt_ports") or [])


def read_user():
    """The connecting user's name and home, as setup's user subset reports them."""
    entry = pwd.getpwuid(os.getuid())
    return {"user_id": entry.pw_name, "user_dir": entry.pw_dir}


def collect(module):
    groups = module.params["gather"]
    if "rdma" in groups:
        try:
            version_tuple(module.params["min_macos"])
        except ValueError as exc:
            module.fail_json(msg="min_macos: %s" % exc)
    reads = plan_reads(module, groups)
    reads.run()
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
    if "launchd" in groups:
        node["launchd"] = read_launchd(module, reads)
    if "boot" in groups:
        node["boot_session"] = reads.output("boot").strip()
        if not node["boot_session"]:
            module.fail_json(msg="sysctl -n kern.bootsessionuuid printed nothing")
    if "wired_limit" in groups:
        node["wired_limit"] = read_wired_limit(module, reads)
    if "rdma" in groups:
        node["rdma"] = read_rdma(module, reads, mac, macos)
    if "files" in groups:
        node["files"] = read_files(module)
    if "models" in groups:
        node["models"] = deployed_models(module.params["models_dirs"])
    if "updates" in groups:
        # "No new software available." goes to stderr with exit status 0.
        node["updates"] = commands.parse(module, _softwareupdate.parse_list, reads.output("updates"))

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


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gather=dict(type="list", elements="str", choices=GROUPS, default=DEFAULT_GROUPS),
            volumes=dict(type="list", elements="str", default=["/"]),
            launchd_labels=dict(type="list", elements="str", default=["com.openssh.sshd"]),
            files=dict(type="list", elements="path", default=[]),
            models_dirs=dict(type="list", elements="path", default=[]),
            wired_limit_plist=dict(type="path", default="/Library/LaunchDaemons/org.macops.gpu-memory.plist"),
            min_macos=dict(type="str", default="26.2"),
            mac=dict(type="dict"),
            set_facts=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    try:
        module.exit_json(**collect(module))
    except ParseError as exc:  # a parser reached outside commands.parse (none should): still a clean failure
        module.fail_json(msg=str(exc))


if __name__ == "__main__":
    main()
