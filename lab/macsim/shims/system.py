"""System identity and status: sw_vers, uname, sysctl, vm_stat, who, system_profiler, scutil, fdesetup,
csrutil, nvram, xcode-select (softwareupdate: updates.py)."""
import ipaddress
import os
import pwd
import subprocess
import sys
import time

from .. import netapply
from ..formats import admin
from ..formats import kernel
from ..formats import profiler
from .registry import command
from .network import device_mac, find_service, hardware_port_name
from .power import request_power
from .state import Fail, _derived_uuid, err, hostname, is_root, out, require_root, tb_links


WRITABLE_SYSCTLS = ("iogpu.wired_limit_mb", "iogpu.wired_lwm_mb")


@command("/usr/bin/sw_vers")
def cmd_sw_vers(host, args):
    fields = {"-productName": "productName", "-productVersion": "productVersion",
              "-productVersionExtra": "productVersionExtra", "-buildVersion": "buildVersion",
              "--productName": "productName", "--productVersion": "productVersion",
              "--productVersionExtra": "productVersionExtra", "--buildVersion": "buildVersion"}
    if args and args[0] not in fields:
        raise Fail(1, "Usage: sw_vers [-productName|-productVersion|-productVersionExtra|-buildVersion]\n")
    out(kernel.sw_vers(host.state["os"], fields[args[0]] if args else None))
    return 0


@command("/usr/bin/uname")
def cmd_uname(host, args):
    flags = set()
    for arg in args:
        if not arg.startswith("-") or set(arg[1:]) - set("asnrvmp"):
            raise Fail(1, "usage: uname [-amnoprsv]\n")
        flags |= set(arg[1:])
    out(kernel.uname(host.state["os"], hostname(), flags))
    return 0


@command("/usr/sbin/sysctl")
def cmd_sysctl(host, args):
    bare = binary = False
    names = []
    for arg in args:
        if arg in ("-n",):
            bare = True
        elif arg == "-b":
            binary = True
        elif arg in ("-a", "-A", "-X"):
            names = []
        elif arg in ("-w", "-e", "-h"):
            continue
        else:
            names.append(arg)
    table = kernel.sysctl_table(host.state, host.volatile, hostname())
    values = dict(table)
    for key in WRITABLE_SYSCTLS:
        if key not in values:
            value = str(host.volatile.get("sysctl", {}).get(key, 0))
            table.append((key, value))
            values[key] = value
    if not names:
        out(kernel.sysctl_lines(table, bare))
        return 0
    rc = 0
    for name in names:
        if "=" in name:
            rc = max(rc, _sysctl_write(host, name, values, bare))
            continue
        if binary and name == "kern.boottime":
            sys.stdout.flush()
            sys.stdout.buffer.write(kernel.boottime_binary(host.boottime))
            continue
        rows = [(k, v) for k, v in table if k == name or k.startswith(name + ".")]
        if not rows:
            err(kernel.sysctl_unknown(name))
            rc = 1
            continue
        out(kernel.sysctl_lines(rows, bare))
    return rc


def _sysctl_write(host, assignment, values, bare):
    name, value = assignment.split("=", 1)
    if name not in values:
        err(kernel.sysctl_unknown(name))
        return 1
    if name not in WRITABLE_SYSCTLS:
        err("sysctl: oid '{}' is read only\n".format(name))
        return 1
    if not is_root():
        err("sysctl: {}={}: Operation not permitted\n".format(name, value))
        return 1
    try:
        number = int(value)
    except ValueError:
        err("sysctl: {}: Invalid argument\n".format(name))
        return 1
    with host.mutate():
        old = host.volatile.setdefault("sysctl", {}).get(name, 0)
        host.volatile["sysctl"][name] = number
    out("{}\n".format(number) if bare else kernel.sysctl_set(name, old, number))
    return 0


@command("/usr/bin/vm_stat")
def cmd_vm_stat(host, args):
    limit = host.volatile.get("sysctl", {}).get("iogpu.wired_limit_mb", 0)
    out(kernel.vm_stat(kernel.vm_pages(host.state["hardware"]["memory_bytes"], limit,
                                       used_bytes=host.state.get("memory_used_bytes", 0))))
    return 0


@command("/usr/bin/who")
def cmd_who(host, args):
    if "-b" in args:
        out(kernel.who_boot(host.boottime))
    return 0


def _service_views(host):
    """Per network service: the data SPNetworkDataType shows (live addresses)."""
    views = []
    net = host.state["network"]
    for order, name in enumerate(net.get("order", [])):
        svc = find_service(host, name)
        if svc is None or not svc.get("enabled", True):
            continue
        live = host.live.get(svc["device"], {})
        inet = live.get("inet", [])
        ipv4 = svc.get("ipv4") or {}
        views.append({"name": name, "device": svc["device"],
                      "hardware_port": hardware_port_name(host, svc["device"]),
                      "enabled": True, "method": ipv4.get("method", "none"),
                      "addresses": [a for a, _, _ in inet],
                      "masks": [str(ipaddress.IPv4Network("0.0.0.0/{}".format(p)).netmask)
                                for _, p, _ in inet],
                      "router": ipv4.get("router"), "mac": device_mac(host, svc["device"]),
                      "order": order})
    return views


def _thunderbolt_buses(host):
    rdma_on = host.state.get("rdma", {}).get("enabled", False)
    links = tb_links(host)
    buses = []
    for port in host.state["hardware"].get("tb_ports", []):
        link = links.get(port["receptacle"])
        view = None
        if link is not None:
            view = {"speed": link["speed"],
                    "peer_model_name": link["peer_state"]["hardware"]["model_name"],
                    "peer_model_id": link["peer_state"]["hardware"]["model_id"],
                    "peer_domain_uuid": link["peer_port"]["domain_uuid"],
                    "ip_service_uuid": _derived_uuid(link["peer_port"]["domain_uuid"], "ip"),
                    "rdma_service_uuid": (_derived_uuid(link["peer_port"]["domain_uuid"], "rdma")
                                          if rdma_on else None)}
        # A device `maclab fault ssd` plugged in (it shares no cable with another host).
        device = host.state.get("tb_devices", {}).get(str(port["receptacle"]))
        buses.append({"bus": port["bus"], "receptacle": port["receptacle"],
                      "domain_uuid": port["domain_uuid"], "switch_uid": port["switch_uid"],
                      "link": view, "device": device if view is None else None})
    return buses


def _profiler_items(host, data_type):
    hw = host.state["hardware"]
    if data_type == "SPHardwareDataType":
        return profiler.hardware_items(hw)
    if data_type == "SPSoftwareDataType":
        names = host.state.get("names", {})
        user = pwd.getpwuid(os.getuid())
        who = "{} ({})".format(user.pw_gecos.split(",")[0] or user.pw_name, user.pw_name)
        return profiler.software_items(host.state["os"], names.get("ComputerName") or hostname(),
                                       names.get("LocalHostName") or hostname(), who,
                                       max(0, time.time() - host.boottime), host.boot_mode)
    if data_type == "SPMemoryDataType":
        return profiler.memory_items(hw)
    if data_type == "SPNetworkDataType":
        return profiler.network_items(_service_views(host))
    if data_type == "SPThunderboltDataType":
        return profiler.thunderbolt_items(hw["model_name"], _thunderbolt_buses(host))
    return None


PROFILER_TEXT = {"SPHardwareDataType": profiler.hardware_text,
                 "SPSoftwareDataType": profiler.software_text,
                 "SPMemoryDataType": profiler.memory_text,
                 "SPNetworkDataType": profiler.network_text,
                 "SPThunderboltDataType": profiler.thunderbolt_text}


@command("/usr/sbin/system_profiler")
def cmd_system_profiler(host, args):
    as_json = False
    types = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "-json":
            as_json = True
        elif arg in ("-detailLevel", "-timeout"):
            skip = True
        elif arg == "-listDataTypes":
            out("Available Datatypes:\n" + "".join(t + "\n" for t in PROFILER_TEXT))
            return 0
        elif arg in ("-xml", "-nospinner"):
            if arg == "-xml":
                raise Fail(1, "system_profiler: -xml is not simulated by the lab\n")
        else:
            types.append(arg)
    if not types:
        types = list(PROFILER_TEXT)
    # Unknown data types are silently skipped, as system_profiler does.
    found = [(t, _profiler_items(host, t)) for t in types if t in PROFILER_TEXT]
    if as_json:
        out(profiler.to_json(dict(found)))
    else:
        out("".join(PROFILER_TEXT[t](items) for t, items in found))
    return 0


SCUTIL_KEYS = ("ComputerName", "LocalHostName", "HostName")


@command("/usr/sbin/scutil")
def cmd_scutil(host, args):
    if len(args) >= 2 and args[0] == "--get" and args[1] in SCUTIL_KEYS:
        value = host.state.get("names", {}).get(args[1])
        if not value:
            raise Fail(1, stdout=admin.scutil_not_set(args[1]))
        out(value + "\n")
        return 0
    if len(args) == 3 and args[0] == "--set" and args[1] in SCUTIL_KEYS:
        require_root("SCPreferencesLock() failed: Permission denied\n")
        with host.mutate():
            host.state.setdefault("names", {})[args[1]] = args[2]
        if args[1] == "HostName":
            tool = netapply.linux_tool("hostname")
            if tool:
                subprocess.run([tool, args[2]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return 0
    raise Fail(1, "usage: scutil --get|--set ComputerName|LocalHostName|HostName [name]\n")


@command("/usr/bin/fdesetup")
def cmd_fdesetup(host, args):
    # "pending" is not on yet: isactive says false and authrestart has nothing to unlock
    # (unconfirmed on a Mac: it answers like FileVault off).
    on = host.state.get("filevault") is True
    if args == ["status"]:
        out(admin.filevault_status(host.state.get("filevault", False)))
        return 0
    if args == ["isactive"]:
        out("true\n" if on else "false\n")
        return 0 if on else 1
    if args == ["supportsauthrestart"]:
        # Apple silicon supports it with FileVault on; the fault authrestart-unsupported says false (as a Mac whose
        # FileVault key cannot be escrowed for the restart). With FileVault off: unconfirmed on a Mac, false here.
        out("true\n" if on and not host.state.get("faults", {}).get("authrestart_unsupported") else "false\n")
        return 0
    if args and args[0] == "authrestart":
        if host.state.get("faults", {}).get("authrestart_unsupported"):
            raise Fail(1, "Error: System does not support authenticated restart.\n")  # unconfirmed wording
        return _fdesetup_authrestart(host, args[1:], on)
    raise Fail(1, "Usage: fdesetup status | isactive | supportsauthrestart | authrestart (the lab simulates these)\n")


def _fdesetup_authrestart(host, options, on):
    """A restart that skips the FileVault unlock screen once. The lab asks for no credentials
    (a Mac prompts for them, or reads them with -inputplist, which is consumed here)."""
    require_root(admin.FDESETUP_NOT_ROOT)
    if "-inputplist" in options:
        sys.stdin.read()
    if not on:
        raise Fail(1, admin.FDESETUP_AUTHRESTART_OFF)
    delay = 1
    if "-delayminutes" in options:
        position = options.index("-delayminutes") + 1
        if position >= len(options) or not options[position].lstrip("-").isdigit():
            raise Fail(1, "Usage: fdesetup authrestart [-delayminutes N] [-inputplist]\n")
        # -1 waits for someone else's restart on macOS; the lab restarts at once.
        delay += 60 * max(0, int(options[position]))
    request_power(host, "authrestart", delay)
    return 0


@command("/usr/bin/csrutil")
def cmd_csrutil(host, args):
    if args == ["status"]:
        out(admin.csrutil_status(host.state.get("sip", True)))
        return 0
    raise Fail(1, "usage: csrutil status (the lab simulates status only)\n")


@command("/usr/sbin/nvram")
def cmd_nvram(host, args):
    variables = dict(host.state.get("nvram", {}))
    # Unconfirmed: some scripts read `nvram rdma-enable`; the lab mirrors rdma.enabled there.
    variables.setdefault("rdma-enable", "1" if host.state.get("rdma", {}).get("enabled") else "0")
    if not args or args == ["-p"]:
        out("".join(admin.nvram_variable(k, v) for k, v in sorted(variables.items())))
        return 0
    rc = 0
    for arg in args:
        if "=" in arg:
            require_root("nvram: Error setting variable - '{}': (iokit/common) not privileged\n"
                         .format(arg.split("=", 1)[0]))
            name, value = arg.split("=", 1)
            with host.mutate():
                host.state.setdefault("nvram", {})[name] = value
        elif arg.startswith("-d") or arg == "-d":
            continue
        elif arg in variables:
            out(admin.nvram_variable(arg, variables[arg]))
        else:
            err(admin.nvram_missing(arg))
            rc = 1
    return rc


COMMAND_LINE_TOOLS = "/Library/Developer/CommandLineTools"


@command("/usr/bin/xcode-select")
def cmd_xcode_select(host, args):
    """The Command Line Tools are always installed in the lab (their python3 is the CLT one)."""
    if args in (["-p"], ["--print-path"]):
        out(COMMAND_LINE_TOOLS + "\n")
        return 0
    if args == ["--install"]:
        raise Fail(1, admin.XCODE_SELECT_ALREADY_INSTALLED)
    if args in (["-v"], ["--version"]):
        out(admin.XCODE_SELECT_VERSION)
        return 0
    raise Fail(1, "xcode-select: error: the lab simulates -p, --install and --version\n")
