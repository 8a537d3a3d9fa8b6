"""pmset, softwareupdate, scutil, fdesetup, dscl, diskutil, df, nvram, shutdown, brew, launchctl.

All formats here are unconfirmed by a published capture (none is on record for these commands); they
follow the usual macOS output as remembered, and each function notes what consumers rely on.
"""
import time

# --- pmset ----------------------------------------------------------------------------------


def pmset_settings(settings):
    lines = ["System-wide power settings:", "Currently in use:"]
    for key in sorted(settings):
        lines.append(" {:<20} {}".format(key, settings[key]))
    return "\n".join(lines) + "\n"


# --- softwareupdate -------------------------------------------------------------------------

def softwareupdate_list(updates):
    """Returns (stdout, stderr): "No new software available." goes to stderr on macOS."""
    out = "Software Update Tool\n\nFinding available software\n"
    if not updates:
        return out, "No new software available.\n"
    out += "Software Update found the following new or updated software:\n"
    for up in updates:
        out += "* Label: {}\n".format(up["label"])
        out += "\tTitle: {}, Version: {}, Size: {}KiB, Recommended: {}, Action: {}, \n".format(
            up.get("title", up["label"]), up.get("version", ""), up.get("size_kib", 0),
            "YES" if up.get("recommended", True) else "NO", up.get("action", "restart"))
    return out, ""


# --- fdesetup / scutil ----------------------------------------------------------------------

def filevault_status(state):
    """state.json's `filevault`: True (on), False (off) or "pending" (enabled at the next restart)."""
    if state == "pending":
        return "FileVault is Off, but will be enabled after the next restart.\n"
    return "FileVault is On.\n" if state else "FileVault is Off.\n"


# Unconfirmed wordings of `fdesetup authrestart` failures.
FDESETUP_NOT_ROOT = "Error: This command must be run as root.\n"
FDESETUP_AUTHRESTART_OFF = "Error: FileVault is Off.\n"


def scutil_not_set(key):
    return "{}: not set\n".format(key)


# --- dscl -----------------------------------------------------------------------------------

DSCL_NOT_FOUND = "<dscl_cmd> DS Error: -14136 (eDSRecordNotFound)\n"
EXIT_DSCL_NOT_FOUND = 56


def dscl_record(attributes, only=None):
    """attributes: {name: [values]}; dscl prints them sorted; a value with a space goes on
    its own line after the key, indented by one space."""
    lines = []
    for key in sorted(attributes):
        if only and key not in only:
            continue
        values = attributes[key]
        if any(" " in v for v in values) or not values:
            lines.append(key + ":")
            lines.extend(" " + v for v in values)
        else:
            lines.append("{}: {}".format(key, " ".join(values)))
    return "\n".join(lines) + "\n"


# --- diskutil / df --------------------------------------------------------------------------

def _human(nbytes):
    for unit, size in (("TB", 10 ** 12), ("GB", 10 ** 9), ("MB", 10 ** 6), ("KB", 10 ** 3)):
        if nbytes >= size:
            return "{:.1f} {}".format(nbytes / size, unit)
    return "{} B".format(nbytes)


def _bytes_line(nbytes):
    return "{} ({} Bytes) (exactly {} 512-Byte-Units)".format(_human(nbytes), nbytes, nbytes // 512)


def diskutil_info(total, free):
    used = total - free
    rows = [("Device Identifier", "disk3s1s1"), ("Device Node", "/dev/disk3s1s1"),
            ("Whole", "No"), ("Part of Whole", "disk3"), ("Volume Name", "Macintosh HD"),
            ("Mounted", "Yes"), ("Mount Point", "/"), ("Partition Type", "41504653-0000-11AA-AA11-00306543ECAC"),
            ("File System Personality", "APFS"), ("Type (Bundle)", "apfs"),
            ("Name (User Visible)", "APFS"), ("Sealed", "Yes"), ("Read-Only Media", "No"),
            ("Read-Only Volume", "Yes"), ("Device Location", "Internal"),
            ("Removable Media", "Fixed"), ("Solid State", "Yes"),
            ("Container Total Space", _bytes_line(total)),
            ("Container Free Space", _bytes_line(free)),
            ("Volume Used Space", _bytes_line(used)),
            ("Allocation Block Size", "4096 Bytes")]
    return "\n".join("   {:<29}{}".format(k + ":", v) for k, v in rows) + "\n"


def df(total, free, unit, mount_point="/", device="/dev/disk3s1s1"):
    """unit: 512 (default), 1024 (-k), 1048576 (-m), 1073741824 (-g) or 'h' (-h)."""
    used = total - free
    capacity = "{}%".format((used * 100 + total - 1) // total) if total else "0%"
    if unit == "h":
        header = "Filesystem        Size    Used   Avail Capacity iused ifree %iused  Mounted on"
        fields = [_df_human(total), _df_human(used), _df_human(free)]
        row = "{:<14} {:>7} {:>7} {:>7} {:>8} {:>5} {:>5} {:>6}  {}".format(
            device, fields[0], fields[1], fields[2], capacity, "453k", "4.3G", "0%", mount_point)
    else:
        name = {512: "512-blocks", 1024: "1024-blocks", 1048576: "1M-blocks",
                1073741824: "1G-blocks"}[unit]
        header = "Filesystem     {:>10}      Used  Available Capacity iused      ifree %iused  Mounted on".format(name)
        row = "{:<14} {:>10} {:>9} {:>10} {:>8} {:>5} {:>10} {:>6}  {}".format(
            device, total // unit, used // unit, free // unit, capacity, 453019,
            free // 4096, "0%", mount_point)
    return header + "\n" + row + "\n"


def _df_human(nbytes):
    for unit, size in (("Ti", 2 ** 40), ("Gi", 2 ** 30), ("Mi", 2 ** 20), ("Ki", 2 ** 10)):
        if nbytes >= size:
            value = nbytes / size
            return ("{:.1f}{}" if value < 10 else "{:.0f}{}").format(value, unit)
    return "{}B".format(nbytes)


# --- nvram ----------------------------------------------------------------------------------

def nvram_variable(name, value):
    return "{}\t{}\n".format(name, value)


def nvram_missing(name):
    return "nvram: Error getting variable - '{}': (iokit/common) data was not found\n".format(name)


# --- shutdown -------------------------------------------------------------------------------

def shutdown_message(when_epoch, now, pid):
    """BSD shutdown(8): immediate -> "Shutdown NOW!", delayed -> "Shutdown at <ctime>."."""
    if when_epoch <= now:
        head = "Shutdown NOW!\n"
    else:
        head = "Shutdown at {}.\n".format(time.strftime("%a %b %e %H:%M:%S %Z %Y",
                                                        time.localtime(when_epoch)))
    return head + "shutdown: [pid {}]\n".format(pid)


SHUTDOWN_NOT_ROOT = "shutdown: NOT super-user\n"


# --- brew -----------------------------------------------------------------------------------

BREW_AS_ROOT = ("Error: Running Homebrew as root is extremely dangerous and no longer supported.\n"
                "As Homebrew does not drop privileges on installation you would be giving all\n"
                "build scripts full access to your system.\n")


def brew_poured(prefix, formula, version):
    return ("==> Pouring {f}--{v}.arm64_tahoe.bottle.tar.gz\n"
            "\U0001f37a  {p}/Cellar/{f}/{v}: 3,255 files, 65.6MB\n").format(p=prefix, f=formula,
                                                                              v=version)


def brew_already(formula, version):
    return ("Warning: {f} {v} is already installed and up-to-date.\n"
            "To reinstall {v}, run:\n  brew reinstall {f}\n").format(f=formula, v=version)


def brew_no_formula(formula):
    return 'Warning: No available formula with the name "{}".\n'.format(formula)


# Formulae a real Homebrew has but the lab can only link from the machine running maclab
# (lab.json `tools`, filled by `up` with `shutil.which`): no offline package source has them.
LAB_TOOL_FORMULAE = ("uv", "iperf3")


def brew_not_in_lab(formula):
    """Lab-only message (no macOS equivalent): says why, instead of a misleading "No available
    formula"."""
    return ("Error: {f} is not available in the lab's package source: `maclab up` found no {f} "
            "binary on the machine running the lab (install {f} there and run `maclab up` again).\n"
            ).format(f=formula)


# --- xcode-select ---------------------------------------------------------------------------

# Unconfirmed wording (recent macOS, as remembered; older releases said "xcode-select: error:
# command line tools are already installed, use "Software Update" to install updates"). Exit 1.
XCODE_SELECT_ALREADY_INSTALLED = (
    'xcode-select: note: Command line tools are already installed. Use "Software Update" in System '
    "Settings or the softwareupdate command line interface to install updates\n")
# Unconfirmed version number.
XCODE_SELECT_VERSION = "xcode-select version 2409.\n"


# --- csrutil --------------------------------------------------------------------------------

def csrutil_status(enabled):
    return "System Integrity Protection status: {}.\n".format("enabled" if enabled else "disabled")
