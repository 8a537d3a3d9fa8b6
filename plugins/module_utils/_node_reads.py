# -*- coding: utf-8 -*-
# PRIVATE to the collection: the reads of macops.cluster.node_facts, one function per group.
# Do not use this from other collections. Stdlib only, Python 3.9.
"""How ``node_facts`` turns its commands' output into each group's result: ``Reads`` holds the
commands of one run (started together), the ``read_*`` functions parse and judge one group each."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import plistlib
from xml.parsers.expat import ExpatError

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils import _launchctl_disabled, _lsof, _pmset, _rdma_facts, _vm_stat
from ansible_collections.macops.cluster.plugins.module_utils import _managed_updates
from ansible_collections.macops.cluster.plugins.module_utils._exo_health import launchdaemon_settings
from ansible_collections.macops.cluster.plugins.module_utils._exo_probe import ask_peers, read_health
from ansible_collections.macops.cluster.plugins.module_utils._mac_facts import build_mac
from ansible_collections.macops.cluster.plugins.module_utils._networksetup import parse_hardware_ports, parse_service_order
from ansible_collections.macops.cluster.plugins.module_utils._ifconfig import parse_interface
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import parse_full
from ansible_collections.macops.cluster.plugins.module_utils._ssh_check import mesh_targets
from ansible_collections.macops.cluster.plugins.module_utils._sudo_rules import audit as sudo_audit
from ansible_collections.macops.cluster.plugins.module_utils._system_profiler import (
    HARDWARE,
    SOFTWARE,
    THUNDERBOLT,
    parse_json,
)
from ansible_collections.macops.cluster.plugins.module_utils._tb_config_check import (
    applied_settings, plan_difference_problems)
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._tb_link_plan import plan_file_links
from ansible_collections.macops.cluster.plugins.module_utils._tb_network import plan as network_plan
from ansible_collections.macops.cluster.plugins.module_utils._tb_network import read_service_settings
from ansible_collections.macops.cluster.plugins.module_utils._wired_limit import boot_target_mb

MAX_FILE_BYTES = 1 << 20
# The keys of /Library/Preferences/com.apple.SoftwareUpdate.plist that System Settings > General >
# Software Update > Automatic Updates writes (Apple's com.apple.SoftwareUpdate MDM payload names them;
# not confirmed from a captured file). A key the file lacks is macOS's default, which we do not know.
# SplatEnabled: the Background Security Improvements toggle of macOS 26.1 and later (one source names it,
# unconfirmed on a Mac); CriticalUpdateInstall governs security responses before it.
AUTO_UPDATE_KEYS = ("AutomaticCheckEnabled", "AutomaticDownload", "AutomaticallyInstallMacOSUpdates",
                    "CriticalUpdateInstall", "ConfigDataInstall", "SplatEnabled")
# launchctl print's exit status for a service launchd does not know.
LAUNCHD_NOT_LOADED = 113


class Reads(object):
    """The argvs of one run, by key, started together; their results by the same key."""

    def __init__(self, module):
        self.module = module
        self.argvs = []
        self.keys = []
        self.named = {}  # key -> argv, also of a read another job runs
        self.results = {}

    def add(self, key, argv, elsewhere=False):
        """A read of this run; ``elsewhere``: another job of the run runs it and gives its answer (answer())."""
        self.keys.append(key)
        self.argvs.append(None if elsewhere else argv)
        self.named[key] = argv

    def answer(self, key, result):
        """The result of a read another job ran (add(..., elsewhere=True))."""
        self.results[key] = result

    def run(self):
        for key, result in zip(self.keys, commands.run_parallel(self.argvs)):
            if result is not None:
                self.results[key] = result

    def output(self, key):
        """stdout of a read that must succeed."""
        return commands.succeeded(self.module, self.named[key], self.results[key])


class FileReads(object):
    """The files of one run, each read once by path: the applied plan serves the groups files,
    links, network and ssh alike."""

    def __init__(self):
        self.texts = {}

    def text(self, path):
        """The file's text (UTF-8, undecodable bytes replaced), None when there is no such file;
        raises the OSError of a file that is there and cannot be read (every time it is asked)."""
        if path not in self.texts:
            try:
                with open(path, "rb") as handle:
                    self.texts[path] = handle.read().decode("utf-8", "replace")
            except FileNotFoundError:
                self.texts[path] = None
            except (IOError, OSError) as exc:
                self.texts[path] = exc
        found = self.texts[path]
        if isinstance(found, EnvironmentError):
            raise found
        return found


def plan_text(module, files, path):
    """The applied plan's text from this run's reads, None when there is none."""
    try:
        return files.text(path)
    except (IOError, OSError) as exc:
        module.fail_json(msg="Cannot read the Thunderbolt plan %s: %s" % (path, exc))


def read_mac(module, reads):
    profile = commands.parse(module, parse_json, reads.output("profile"))
    hardware_ports = commands.parse(module, parse_hardware_ports, reads.output("ports"))
    return commands.parse(module, build_mac, profile, hardware_ports)


def read_macos(module, reads, mac):
    """Version and build: system_profiler's when it has both, else sw_vers' (which then fills mac)."""
    if mac is not None and mac["macos_version"] and mac["macos_build"]:
        return {"version": mac["macos_version"], "extra": mac.get("macos_version_extra"), "build": mac["macos_build"]}
    if "sw_vers" in reads.results:
        stdout = reads.output("sw_vers")
    else:
        stdout = commands.run(module, [commands.require_command(module, "sw_vers")])
    versions = commands.parse(module, parse_full, stdout)
    macos = {"version": versions["product_version"], "extra": versions["product_version_extra"],
             "build": versions["build_version"]}
    if mac is not None:
        mac["macos_version"] = mac["macos_version"] or macos["version"]
        mac["macos_version_extra"] = mac.get("macos_version_extra") or macos["extra"]
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


def read_launchd_disabled(module, reads):
    """The labels of launchd_labels that `launchctl disable` keeps from loading at boot."""
    if not module.params["launchd_labels"]:
        return []
    overrides = commands.parse(module, _launchctl_disabled.parse_print_disabled, reads.output("print_disabled"))
    return [label for label in module.params["launchd_labels"] if overrides.get(label)]


def read_wired_limit(module, reads):
    rc, stdout, _stderr = reads.results["wired"]
    live = stdout.strip()
    path = module.params["wired_limit_plist"]
    target = None
    if os.path.exists(path):
        with open(path, "rb") as plist:
            target = commands.parse(module, boot_target_mb, plist.read(), path)
    return {"live_mb": int(live) if rc == 0 and live.isdigit() else None, "target_mb": target, "plist": path}


def read_files(module, files):
    """The small state files asked for: text, and parsed JSON for a .json file (``files``: this
    run's FileReads)."""
    found = {}
    for path in module.params["files"]:
        entry = {"exists": os.path.isfile(path), "content": None, "json": None}
        if entry["exists"]:
            if os.path.getsize(path) > MAX_FILE_BYTES:
                module.fail_json(msg="%s is larger than %d bytes; files reads only small state files" % (
                    path, MAX_FILE_BYTES))
            try:
                entry["content"] = files.text(path)
            except (IOError, OSError) as exc:
                module.fail_json(msg="Cannot read %s: %s" % (path, exc))
            if path.endswith(".json") and entry["content"] is not None:
                try:
                    entry["json"] = json.loads(entry["content"])
                except ValueError:
                    entry["json"] = None
        found[path] = entry
    return found


def read_programs(paths):
    """{path: whether it is an executable file} for each path as given (``~`` is the connecting user's home)."""
    found = {}
    for path in paths:
        expanded = os.path.expanduser(path)
        found[path] = os.path.isfile(expanded) and os.access(expanded, os.X_OK)
    return found


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


def plan_links(module, files):
    """The cables C(links) pings (this node's in the plan file), and what the plan says about them."""
    options = module.params["links"]
    if not options.get("host"):
        module.fail_json(msg="links needs links.host, this node's inventory name in the plan file")
    path = options["plan_file"]
    try:
        found, planned, wanted = plan_file_links(path, plan_text(module, files, path), options["host"],
                                                 options.get("plan_interface"), options.get("peers"))
    except PlanError as exc:
        module.fail_json(msg=str(exc))
    return {"plan_found": found, "planned_links": len(planned)}, wanted


def exo_settings(module):
    """The exo role's LaunchDaemon settings, or None when it is not installed on this node."""
    path = module.params["exo"]["plist"]
    if not os.path.exists(path):
        return None
    with open(path, "rb") as plist:
        return commands.parse(module, launchdaemon_settings, plist.read(), path)


def exo_python(options, settings):
    """The interpreter whose packages give exo's version: O(exo.python), else the one beside the
    program the LaunchDaemon runs (a virtual environment's bin/exo has bin/python next to it)."""
    if options.get("python"):
        return options["python"]
    program = (settings.get("program") or [None])[0]
    beside = os.path.join(os.path.dirname(program), "python") if program else None
    return beside if beside and os.path.exists(beside) else None


def read_exo(module, launchctl, settings, links=None, reads=None):
    """exo's health as exo_health reads it, from the LaunchDaemon's own label and port; with the
    cables of C(links), also what each cable's peer exo answers at its Thunderbolt address (C(peers)). With
    ``reads``, its `launchctl print` is also the launchd group's answer for the label (Reads.answer)."""
    options = module.params["exo"]
    printed = None
    if reads is not None:
        printed = commands.result_of([launchctl, "print", "system/" + settings["label"]])
        reads.answer(("launchd", settings["label"]), printed)
    health = read_health(launchctl, settings["label"],
                         settings["api_port"], options["expected_nodes"], options["timeout"],
                         options["require_all_nodes"], python=exo_python(options, settings), version=None,
                         identify=True, printed=printed)
    if links is not None:
        health["peers"] = ask_peers(links, settings["api_port"])
    return health


# Asked of the environment's own interpreter: its version and each distribution's (null when it is
# not installed), as one JSON line. Python 3.8+ (importlib.metadata).
PACKAGES_CODE = (
    "import json, platform, sys\n"
    "from importlib import metadata\n"
    "def version(name):\n"
    "    try:\n"
    "        return metadata.version(name)\n"
    "    except metadata.PackageNotFoundError:\n"
    "        return None\n"
    "print(json.dumps({'python': platform.python_version(), 'versions': dict((n, version(n)) for n in sys.argv[1:])}))\n")


def add_packages_read(reads, options):
    """C(packages): one run of the environment's interpreter, when it is there."""
    if options.get("python") and os.path.exists(options["python"]):
        reads.add("packages", [options["python"], "-c", PACKAGES_CODE] + list(options["names"]))


def read_packages(reads, options):
    """{python_path, found, python, versions, error}: a missing or broken environment is a reading
    (the doctor's finding), never a failed module."""
    result = {"python_path": options.get("python"), "found": False, "python": None,
              "versions": dict((name, None) for name in options["names"]), "error": None}
    if "packages" not in reads.results:
        result["error"] = "%s is not there" % (options.get("python") or "no interpreter was given")
        return result
    rc, stdout, stderr = reads.results["packages"]
    try:
        answer = json.loads(stdout.strip().splitlines()[-1]) if rc == 0 and stdout.strip() else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        result["error"] = "%s could not list its packages (exit %s): %s" % (
            options["python"], rc, (stderr or stdout).strip()[:300])
        return result
    result.update(found=True, python=answer.get("python"), versions=dict(result["versions"], **answer.get("versions", {})))
    return result


def plan_network(module, files):
    """What C(network) compares with: the tb_network input that applied this node's plan, or None
    when there is no plan file (then nothing is compared)."""
    options = module.params["network"]
    if not options.get("host"):
        module.fail_json(msg="network needs network.host, this node's inventory name in the plan file")
    path = options["plan_file"]
    try:
        return applied_settings(path, plan_text(module, files, path), options["host"])[1]
    except PlanError as exc:
        module.fail_json(msg=str(exc))


def add_network_reads(module, reads, wanted):
    """The first reads of C(network), started with the others: the service order and, when the
    bridge must be absent, the live bridge (C(mac)'s hardware ports are shared)."""
    networksetup = commands.require_command(module, "networksetup")
    if "ports" not in reads.keys:
        reads.add("ports", [networksetup, "-listallhardwareports"])
    reads.add("service_order", [networksetup, "-listnetworkserviceorder"])
    if wanted["bridge"] == "absent":
        reads.add("bridge0", [commands.require_command(module, "ifconfig"), "bridge0"])


def read_network(module, reads, wanted, daemon_loaded):
    """C(network): the planner's differences between this node now and its applied plan, and a
    problem for each kind ({plan_found, differences, problems})."""
    if wanted is None:
        return {"plan_found": False, "differences": [], "problems": []}
    networksetup = commands.require_command(module, "networksetup")
    hardware_ports = commands.parse(module, parse_hardware_ports, reads.output("ports"))
    services = commands.parse(module, parse_service_order, reads.output("service_order"))
    infos, mtus = read_service_settings(module, networksetup, hardware_ports, services, wanted)
    bridge = reads.results.get("bridge0")
    bridge_live = commands.parse(module, parse_interface, bridge[1]) if bridge and bridge[0] == 0 else None
    try:
        planned = network_plan(hardware_ports, services, infos, mtus, bridge_live, wanted)
    except ValueError as exc:
        module.fail_json(msg="network: %s" % exc)
    host = module.params["network"]["host"]
    return {"plan_found": True, "differences": planned["differences"],
            "problems": plan_difference_problems(host, planned["differences"], daemon_loaded)}


def _property_list(module, path):
    """A property list file's settings, {} where there is none (a Mac no MDM manages has neither managed file)."""
    if not os.path.exists(path):
        return {}
    try:
        with open(path, "rb") as handle:
            found = plistlib.load(handle)
    except (OSError, ValueError, ExpatError) as exc:
        module.fail_json(msg="%s is not a property list: %s" % (path, exc))
    return found if isinstance(found, dict) else {}


def read_managed(module, reads):
    """C(managed): the MDM enrollment, the days updates are deferred (a restrictions profile, DDM) and the installs
    DDM enforces (_managed_updates)."""
    enrollment = commands.parse(module, _managed_updates.parse_enrollment, reads.output("enrollment"))
    return _managed_updates.managed(enrollment, _property_list(module, _managed_updates.RESTRICTIONS_PLIST),
                                    _property_list(module, _managed_updates.DDM_STATE_PLIST))


def read_settings(module, reads):
    """C(settings): the power settings in use (C(pmset -g), values as printed) and the automatic
    update settings (each of AUTO_UPDATE_KEYS: true, false, or null when the file does not set it)."""
    power = commands.parse(module, _pmset.parse, reads.output("pmset"))["settings"]
    path = module.params["software_update_plist"]
    prefs = _property_list(module, path)
    auto = dict((key, bool(prefs[key]) if key in prefs else None) for key in AUTO_UPDATE_KEYS)
    return {"power": power, "auto_updates": auto, "software_update_plist": path}


def plan_ssh(module, files):
    """C(ssh)'s targets: every peer by name, and over every cable of the applied plan to a peer."""
    options = module.params["ssh"]
    if not options.get("host"):
        module.fail_json(msg="ssh needs ssh.host, this node's inventory name in the plan file")
    path = options["plan_file"]
    try:
        dummy, dummy_planned, links = plan_file_links(path, plan_text(module, files, path), options["host"],
                                                      peers=options["peers"])
    except PlanError as exc:
        module.fail_json(msg=str(exc))
    return mesh_targets([peer for peer in options["peers"] if peer != options["host"]], links)


def read_one_command_groups(module, reads, groups):
    """The groups that are one command and its parser: C(listening) (every TCP listener and its process; lsof
    exits 1 when there is none) and C(memory) (vm_stat: what a new program can have)."""
    found = {}
    if "listening" in groups:
        rc, stdout, _stderr = reads.results["listening"]
        found["listening"] = commands.parse(module, _lsof.parse, stdout, rc)
    if "memory" in groups:
        found["memory"] = commands.parse(module, _vm_stat.parse, reads.output("vm_stat"))
    return found


def read_sudo(module, reads):
    """C(sudo): a failing listing is the finding (the rules are not active), not a failed read."""
    rc, stdout, stderr = reads.results["sudo"]
    return {"rc": rc, "problems": commands.parse(module, sudo_audit, stdout, rc, stderr)}


def plan_reads(module, groups, printed_elsewhere=None):
    """The reads of ``groups``; the `launchctl print` of label ``printed_elsewhere`` is run by another job (the exo
    read's), which gives its answer."""
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
        reads.add(("launchd", label), [need(module, "launchctl"), "print", "system/" + label],
                  elsewhere=label == printed_elsewhere)
    if "launchd_disabled" in groups and params["launchd_labels"]:
        reads.add("print_disabled", [need(module, "launchctl"), "print-disabled", "system"])
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
    if "installers" in groups:
        reads.add("installers", [need(module, "softwareupdate"), "--list-full-installers"])
        reads.add("console", [need(module, "stat"), "-f", "%Su", "/dev/console"])
    if "settings" in groups:
        reads.add("pmset", [need(module, "pmset"), "-g"])
    if "managed" in groups:
        reads.add("enrollment", [need(module, "profiles"), "status", "-type", "enrollment"])
    if "packages" in groups:
        add_packages_read(reads, params["packages"])
    if "sudo" in groups:
        reads.add("sudo", [need(module, "sudo"), "-n", "-l"])
    if "listening" in groups:
        reads.add("listening", [need(module, "lsof")] + _lsof.ARGS)
    if "memory" in groups:
        reads.add("vm_stat", [need(module, "vm_stat")])
    return reads
