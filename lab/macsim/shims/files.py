"""Disks and files: diskutil, df, BSD stat."""
import grp
import os
import pwd
import re
import stat
import time

from .. import layout
from ..formats import admin
from .registry import command
from .state import Fail, err, out


# Lab-only: system baseline used on the boot volume when no fault overrides the free space.
BASELINE_DISK_USED = 32 * 10 ** 9


def disk_space(host):
    """(total, free) of the boot volume; `faults.disk_full_bytes` is the free space left."""
    total = int(host.state["hardware"].get("disk_bytes", 10 ** 12))
    forced = host.state.get("faults", {}).get("disk_full_bytes")
    free = int(forced) if forced is not None else total - BASELINE_DISK_USED
    return total, max(0, min(total, free))


@command("/usr/sbin/diskutil")
def cmd_diskutil(host, args):
    if args[:1] == ["apfs"]:
        from .updates import diskutil_apfs  # the volume owners an update needs
        return diskutil_apfs(host, args[1:])
    if args[:1] == ["info"] and args[1:] in (["/"], ["disk3s1s1"], ["/dev/disk3s1s1"]):
        out(admin.diskutil_info(*disk_space(host)))
        return 0
    raise Fail(1, "Could not find disk: {}\n".format(" ".join(args[1:]) or "(none)"))


def _bsd_stat_field(token, st, path):
    """One BSD stat(1) -f conversion (the subset testinfra and people use); None when unknown."""
    kind = stat.S_IFMT(st.st_mode)
    names = {stat.S_IFDIR: "Directory", stat.S_IFREG: "Regular File", stat.S_IFLNK: "Symbolic Link",
             stat.S_IFIFO: "Fifo File", stat.S_IFSOCK: "Socket", stat.S_IFCHR: "Character Device",
             stat.S_IFBLK: "Block Device"}
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return {
        "Lp": "%o" % (st.st_mode & 0o7777), "p": "%o" % st.st_mode, "Sp": stat.filemode(st.st_mode),
        "Su": user, "Sg": group, "u": str(st.st_uid), "g": str(st.st_gid), "z": str(st.st_size),
        "m": str(int(st.st_mtime)), "a": str(int(st.st_atime)), "c": str(int(st.st_ctime)),
        "i": str(st.st_ino), "l": str(st.st_nlink), "N": path, "HT": names.get(kind, "Unknown"),
        "%": "%", "n": "\n", "t": "\t",
    }.get(token)


_BSD_STAT_TOKEN = re.compile(r"%(HT|S[pug]|L?p|[ugzmacilN%nt])")


@command("/usr/bin/stat")
def cmd_stat(host, args):
    """BSD stat(1): `stat [-L] [-f format] file...`. macOS's stat takes -f FORMAT where GNU's takes
    -c; testinfra's macOS backend runs `stat -f %Lp FILE` and friends. Only -L and -f (with the
    conversions in _bsd_stat_field) are simulated; the default output is an approximation of
    BSD's (format unconfirmed for every field)."""
    follow, fmt, files = False, None, []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "-L":
            follow = True
        elif arg == "-f" and rest:
            fmt = rest.pop(0)
        elif arg.startswith("-f") and len(arg) > 2:
            fmt = arg[2:]
        elif arg.startswith("-") and arg != "-":
            raise Fail(1, "stat: the lab simulates -L and -f FORMAT only\n"
                          "usage: stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]\n")
        else:
            files.append(arg)
    if not files:
        raise Fail(1, "usage: stat [-FLnq] [-f format | -l | -r | -s | -x] [-t timefmt] [file ...]\n")
    rc = 0
    for path in files:
        if path == "/dev/console" and fmt in ("%Su", "%u"):
            # Who is logged in at the Mac's screen owns the console (root at the login window): `maclab console`.
            user = host.state.get("console_user")
            out("%s\n" % ((user or "root") if fmt == "%Su" else (layout.ADMIN_UID if user else 0)))
            continue
        try:
            st = os.stat(path) if follow else os.lstat(path)
        except OSError as exc:
            err("stat: %s: %s\n" % (path, exc.strerror))
            rc = 1
            continue
        if fmt is None:
            out("%d %d %s %d %s %s 0 %d \"%s\" \"%s\" \"%s\" \"%s\" %d %d 0 %s\n" % (
                st.st_dev, st.st_ino, stat.filemode(st.st_mode), st.st_nlink, _bsd_stat_field("Su", st, path),
                _bsd_stat_field("Sg", st, path), st.st_size,
                *[time.strftime("%b %d %H:%M:%S %Y", time.localtime(t))
                  for t in (st.st_atime, st.st_mtime, st.st_ctime, st.st_ctime)],
                4096, (st.st_size + 511) // 512, path))
            continue
        unknown = [t for t in _BSD_STAT_TOKEN.findall(fmt) if _bsd_stat_field(t, st, path) is None]
        if unknown:
            raise Fail(1, "stat: the lab does not simulate %%%s\n" % unknown[0])
        out(_BSD_STAT_TOKEN.sub(lambda m: _bsd_stat_field(m.group(1), st, path), fmt) + "\n")
    return rc


@command("/bin/df")
def cmd_df(host, args):
    unit = 512
    for arg in args:
        if arg.startswith("-"):
            for letter in arg[1:]:
                unit = {"k": 1024, "m": 1048576, "g": 1073741824, "h": "h", "H": "h"}.get(letter, unit)
    total, free = disk_space(host)
    out(admin.df(total, free, unit))
    return 0
