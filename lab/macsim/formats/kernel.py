"""sw_vers, uname, sysctl, vm_stat and who -b."""
import struct
import time

# Darwin's uname -v for 25.2.0 (format unconfirmed: shape of a real xnu version string,
# the date and xnu build are ours).
KERNEL_VERSION_TEMPLATE = ("Darwin Kernel Version {darwin}: Tue Nov 18 21:09:56 PST 2025; "
                           "root:xnu-12377.61.12~1/RELEASE_ARM64_T6031")


def sw_vers(os_info, field=None):
    """sw_vers as macOS prints it; a security response adds `ProductVersionExtra:` (one tab, a real 26.3.1 (a)
    capture's layout) and `-productVersionExtra` prints it (nothing without one: unconfirmed)."""
    extra = os_info.get("extra")
    values = {"productName": "macOS", "productVersion": os_info["version"],
              "productVersionExtra": extra or "", "buildVersion": os_info["build"]}
    if field is not None:
        return values[field] + "\n" if values[field] else ""
    return ("ProductName:\t\tmacOS\n"
            "ProductVersion:\t\t{}\n"
            "{}"
            "BuildVersion:\t\t{}\n").format(os_info["version"],
                                             "ProductVersionExtra:\t{}\n".format(extra) if extra else "",
                                             os_info["build"])


def kernel_version(os_info):
    return KERNEL_VERSION_TEMPLATE.format(darwin=os_info["darwin"])


def uname(os_info, nodename, flags):
    """flags: a set of single letters from -a -s -n -r -v -m -p (BSD order: s n r v m p)."""
    fields = {"s": "Darwin", "n": nodename, "r": os_info["darwin"],
              "v": kernel_version(os_info), "m": "arm64", "p": "arm"}
    if "a" in flags:
        # BSD uname -a prints s n r v m (no processor type).
        flags = set("snrvm")
    if not flags:
        flags = {"s"}
    return " ".join(fields[f] for f in "snrvmp" if f in flags) + "\n"


def ctime(epoch):
    """ctime(3) without the newline: `Mon Nov 30 12:00:00 2026`, day of month space-padded."""
    return time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(epoch))


def boottime_text(boottime):
    return "{{ sec = {}, usec = 0 }} {}".format(int(boottime), ctime(boottime))


def boottime_binary(boottime):
    """struct timeval of arm64 Darwin: int64 tv_sec, int32 tv_usec, 4 bytes padding (16 bytes).
    Ansible unpacks the first native `L`, so the seconds must come first."""
    return struct.pack("<qi4x", int(boottime), 0)


def sysctl_table(state, volatile, hostname):
    """Every key the lab knows, in the order `sysctl -a` would list them (kern, hw, machdep, iogpu).

    Ansible's Darwin hardware facts read `sysctl hw machdep kern` and need hw.memsize, hw.model,
    hw.physicalcpu, hw.logicalcpu, hw.pagesize, machdep.cpu.brand_string,
    machdep.cpu.core_count, kern.osversion and kern.osrevision: a missing key makes it drop
    every hardware fact without a warning, so none of them may be left out.
    """
    hw = state["hardware"]
    osi = state["os"]
    boottime = volatile.get("boottime", state["boot"]["boottime"])
    cores = hw["cores_total"]
    table = [
        ("kern.ostype", "Darwin"),
        ("kern.osrelease", osi["darwin"]),
        # Darwin's kern.osrevision is a fixed integer (199506); ansible copies it verbatim.
        ("kern.osrevision", "199506"),
        ("kern.version", kernel_version(osi)),
        ("kern.hostname", hostname),
        ("kern.osversion", osi["build"]),
        ("kern.osproductversion", osi["version"]),
        ("kern.boottime", boottime_text(boottime)),
        ("kern.bootsessionuuid", volatile.get("boot_session_uuid", "")),
        ("kern.maxproc", "8000"),
        ("hw.ncpu", str(cores)),
        ("hw.byteorder", "1234"),
        ("hw.memsize", str(hw["memory_bytes"])),
        ("hw.activecpu", str(cores)),
        ("hw.physicalcpu", str(cores)),
        ("hw.physicalcpu_max", str(cores)),
        ("hw.logicalcpu", str(cores)),
        ("hw.logicalcpu_max", str(cores)),
        ("hw.pagesize", "16384"),
        ("hw.cachelinesize", "128"),
        ("hw.perflevel0.physicalcpu", str(hw.get("cores_perf", cores))),
        ("hw.perflevel1.physicalcpu", str(hw.get("cores_eff", 0))),
        ("hw.model", hw["model_id"]),
        ("machdep.cpu.brand_string", hw["chip"]),
        ("machdep.cpu.core_count", str(cores)),
        ("machdep.cpu.thread_count", str(cores)),
        ("iogpu.wired_limit_mb", str(volatile.get("sysctl", {}).get("iogpu.wired_limit_mb", 0))),
    ]
    return table


def sysctl_lines(pairs, bare):
    if bare:
        return "".join("{}\n".format(v) for _, v in pairs)
    return "".join("{}: {}\n".format(k, v) for k, v in pairs)


def sysctl_unknown(name):
    return "sysctl: unknown oid '{}'\n".format(name)


def sysctl_set(name, old, new):
    return "{}: {} -> {}\n".format(name, old, new)


# vm_stat labels in Darwin's order. Format confirmed by ansible's parser: "<label>: <n>." and the
# first-line page size; the column widths are unconfirmed.
VM_STAT_LABELS = [
    "Pages free", "Pages active", "Pages inactive", "Pages speculative", "Pages throttled",
    "Pages wired down", "Pages purgeable", '"Translation faults"', "Pages copy-on-write",
    "Pages zero filled", "Pages reactivated", "Pages purged", "File-backed pages",
    "Anonymous pages", "Pages stored in compressor", "Pages occupied by compressor",
    "Decompressions", "Compressions", "Pageins", "Pageouts", "Swapins", "Swapouts",
]


def vm_stat(pages, page_size=16384):
    lines = ["Mach Virtual Memory Statistics: (page size of {} bytes)".format(page_size)]
    for label in VM_STAT_LABELS:
        lines.append("{:<34}{:>16}.".format(label + ":", pages.get(label, 0)))
    return "\n".join(lines) + "\n"


def vm_pages(memory_bytes, wired_limit_mb, page_size=16384, used_bytes=0):
    """A plausible idle machine: about 20 % of memory in use, more wired when a limit is set; `used_bytes` more
    held by other programs (active pages taken from the free ones, then from the file cache)."""
    total = memory_bytes // page_size
    wired = total * 6 // 100
    active = total * 8 // 100
    inactive = total * 6 // 100
    speculative = total // 100
    free = total - wired - active - inactive - speculative
    taken = min(int(used_bytes) // page_size, free + inactive + speculative)
    active += taken
    from_free = min(taken, free)
    from_inactive = min(taken - from_free, inactive)
    free, inactive = free - from_free, inactive - from_inactive
    speculative -= taken - from_free - from_inactive
    return {"Pages free": free, "Pages active": active, "Pages inactive": inactive,
            "Pages speculative": speculative, "Pages wired down": wired,
            "File-backed pages": inactive, "Anonymous pages": active}


def who_boot(boottime):
    # macOS `who -b`: the task's reference line; minute resolution is what ansible's reboot
    # module compares, so boot times within one minute must not be printed equal by us.
    return "         system boot  {} \n".format(
        time.strftime("%b %e %H:%M", time.localtime(boottime)))
