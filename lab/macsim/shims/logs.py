"""Log rotation: newsyslog, as macOS runs it every 30 minutes (launchd's com.apple.newsyslog).

newsyslog(8) and newsyslog.conf(5) (FreeBSD's, which macOS ships): each line of /etc/newsyslog.conf and of the
files in /etc/newsyslog.d/ is `logfile [owner:group] mode count size when [flags] [pid_file [sig_num]]`. A file of
`size` KB or more is rotated: file.N-1 becomes file.N up to `count`, the file itself file.0 (compressed with bzip2
for flag J, gzip for Z), and a new empty file is made with the line's owner, group and mode. Flag N: no process
is signalled. Options the lab takes: -v (say what is rotated), -F (rotate whatever the size), -n (say, do
nothing). `when` other than `*` is not judged here (the lab runs it on demand). The output of -v is unconfirmed
on macOS 26 (FreeBSD's words are used).
"""
import bz2
import glob
import grp
import gzip
import os
import pwd
import shutil

from .registry import command
from .state import Fail, out, require_root

CONFIG_FILES = ("/etc/newsyslog.conf", "/etc/newsyslog.d/*.conf")


def entries(host):
    """[(path, owner, group, mode, count, size_kb or None, flags)] of every configuration line."""
    found = []
    for pattern in CONFIG_FILES:
        for config in sorted(glob.glob(host.fs(pattern))):
            with open(config) as handle:
                for line in handle:
                    fields = line.split("#", 1)[0].split()
                    if not fields or fields[0].startswith("<"):
                        continue
                    owner = group = None
                    if ":" in fields[1]:
                        owner, group = (fields.pop(1).split(":", 1) + [None])[:2]
                    if len(fields) < 5:
                        raise Fail(1, "newsyslog: malformed line in %s: %s" % (config, line))
                    size = None if fields[3] == "*" else int(fields[3])
                    found.append((fields[0], owner or None, group or None, int(fields[1], 8), int(fields[2]), size,
                                  fields[5] if len(fields) > 5 else ""))
    return found


def rotate(host, path, owner, group, mode, count, flags):
    real = host.fs(path)
    suffix = ".bz2" if "J" in flags else (".gz" if "Z" in flags else "")
    for number in range(count - 1, 0, -1):
        older = "%s.%d%s" % (real, number - 1, suffix)
        if os.path.exists(older):
            os.replace(older, "%s.%d%s" % (real, number, suffix))
    os.replace(real, real + ".0")
    if suffix:
        opener = bz2.open if suffix == ".bz2" else gzip.open
        with open(real + ".0", "rb") as plain, opener(real + ".0" + suffix, "wb") as packed:
            shutil.copyfileobj(plain, packed)
        os.remove(real + ".0")
    with open(real, "a"):
        pass
    os.chmod(real, mode)
    uid = pwd.getpwnam(owner).pw_uid if owner else -1
    gid = grp.getgrnam(group).gr_gid if group else -1
    os.chown(real, uid, gid)


@command("/usr/sbin/newsyslog")
def cmd_newsyslog(host, args):
    require_root("newsyslog: must be run as root\n")
    verbose, force, dry = "-v" in args, "-F" in args, "-n" in args
    for path, owner, group, mode, count, size_kb, flags in entries(host):
        real = host.fs(path)
        if not os.path.exists(real):
            continue
        size = os.path.getsize(real)
        due = force or (size_kb is not None and size >= size_kb * 1024)
        if verbose:
            out("%s <%d%s>: %s\n" % (path, count, flags, "trimming log...." if due else
                                     "size (Kb): %d [%s] --> skipping" % (size // 1024, size_kb)))
        if due and not dry:
            rotate(host, path, owner, group, mode, count, flags)
    return 0
