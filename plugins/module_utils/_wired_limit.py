# -*- coding: utf-8 -*-
# PRIVATE to the collection: the GPU wired-memory limit of a Mac (iogpu.wired_limit_mb).
# Do not use this from other collections. Stdlib only, Python 3.9.
"""Parse `sysctl -n hw.memsize iogpu.wired_limit_mb` and plan the limit from RAM minus a reserve."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

MIB = 1024 * 1024
SYSCTL_NAMES = ("hw.memsize", "iogpu.wired_limit_mb")


def parse_memory(text):
    """`sysctl -n hw.memsize iogpu.wired_limit_mb` -> (ram_mb, wired_limit_mb).

    `-n` prints the bare values one per line in the order asked (BSD sysctl); 0 for the wired
    limit means "the macOS default" (seen right after boot, meaning unconfirmed)."""
    values = [line.strip() for line in text.splitlines() if line.strip()]
    if len(values) != 2 or not all(v.isdigit() for v in values):
        raise ParseError("sysctl -n " + " ".join(SYSCTL_NAMES), "expected two numbers, got %r" % text)
    return int(values[0]) // MIB, int(values[1])


def reserve_for(ram_mb, table):
    """Reserve (MB) of the first row whose max_ram_mb is at least ram_mb; the last row otherwise."""
    rows = sorted(table, key=lambda row: int(row["max_ram_mb"]))
    if not rows:
        raise ValueError("the reserve table is empty")
    for row in rows:
        if ram_mb <= int(row["max_ram_mb"]):
            return int(row["reserve_mb"])
    return int(rows[-1]["reserve_mb"])


def plan_limit(ram_mb, wired_limit_mb=0, reserve_mb=0, table=()):
    """(target_mb, reserve_mb): the explicit limit when given, else RAM minus the reserve.

    Raises ValueError when the result would leave macOS no memory or give the GPU none."""
    if wired_limit_mb:
        target, reserve = int(wired_limit_mb), ram_mb - int(wired_limit_mb)
    else:
        reserve = int(reserve_mb) if reserve_mb else reserve_for(ram_mb, table)
        target = ram_mb - reserve
    if target <= 0 or target >= ram_mb:
        raise ValueError("a wired limit of %d MB does not fit a Mac with %d MB of RAM (reserve %d MB): "
                         "the GPU needs some memory and macOS must keep some" % (target, ram_mb, reserve))
    return target, reserve


# The gpu_memory role's LaunchDaemon sets the limit at boot with
# ProgramArguments = [sysctl, -w, iogpu.wired_limit_mb=N]: that argument is the boot-time target.
_BOOT_ARGUMENT = "iogpu.wired_limit_mb="


def boot_target_mb(plist_data, path="LaunchDaemon plist"):
    """The limit (MB) the LaunchDaemon's ProgramArguments set at boot, from the plist's bytes; None
    when no argument sets it. Raises ParseError naming ``path`` when the bytes are no plist."""
    import plistlib  # stdlib; imported here so the sysctl parsers above stay import-light

    try:
        launchd_job = plistlib.loads(plist_data)
    except Exception as exc:  # plistlib raises several types (InvalidFileException, ExpatError, ValueError)
        raise ParseError("plistlib " + path, "not a property list: %s" % exc)
    arguments = launchd_job.get("ProgramArguments", []) if isinstance(launchd_job, dict) else []
    for argument in arguments:
        if isinstance(argument, str) and argument.startswith(_BOOT_ARGUMENT):
            value = argument[len(_BOOT_ARGUMENT):]
            if not value.isdigit():
                raise ParseError("plistlib " + path, "%r is not a whole number of MB" % argument)
            return int(value)
    return None
