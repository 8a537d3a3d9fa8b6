# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `df -k PATH`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``df -k PATH``: size and free space of the volume that holds PATH.

macOS prints the inode columns too (``-i`` is on by default)::

    Filesystem     1024-blocks      Used  Available Capacity iused      ifree %iused  Mounted on
    /dev/disk3s1s1   971350180  10908548  650553916       2%  453019  162638479    0%   /

GNU df (Linux) prints ``Filesystem 1K-blocks Used Available Use% Mounted on``. The header is
checked for an ``Available`` column; the volume is the last line. A file system name or a mount
point may contain spaces (``map auto_home``, ``/Volumes/Macintosh HD``), so the row is read as
name, three numbers, a percentage, the three inode columns when the header has them, then the
mount point.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "df -k"

KIB_PER_GIB = 1048576
# The size column's name with -k: BSD (macOS), GNU.
_KIB_COLUMNS = {"1024-blocks", "1K-blocks"}

_BLOCKS = r"^(?P<filesystem>\S.*?)\s+(?P<size>\d+)\s+(?P<used>\d+)\s+(?P<available>-?\d+)\s+(?:\d+%|-)"
_MOUNT = r"\s+(?P<mounted_on>\S.*?)\s*$"
# With and without the inode columns (iused, ifree, %iused), as the header says.
_ROW = re.compile(_BLOCKS + _MOUNT)
_ROW_WITH_INODES = re.compile(_BLOCKS + r"\s+\d+\s+\d+\s+(?:\d+%|-)" + _MOUNT)


def parse(text, command=COMMAND):
    """Parse ``df -k PATH`` into filesystem, size_kib, used_kib, free_kib, mounted_on.

    ``free_kib`` is the Available column; BSD df prints it negative when a volume eats into
    its reserve, which counts as 0 here.
    """
    lines = [line for line in require_text(command, text).splitlines() if line.strip()]
    header = lines[0].split()
    if "Available" not in header:
        raise ParseError(command, "the first line %r is not the header (no Available column)" % lines[0].strip())
    if not set(header) & _KIB_COLUMNS:
        raise ParseError(command, "the sizes are not in KiB (no 1024-blocks column in %r)" % lines[0].strip())
    if len(lines) < 2:
        raise ParseError(command, "no volume line after the header")
    row = (_ROW_WITH_INODES if "iused" in header else _ROW).match(lines[-1])
    if row is None:
        raise ParseError(command, "line %r is not `Filesystem 1024-blocks Used Available Capacity ... Mounted on`"
                         % lines[-1].strip())
    return {
        "filesystem": row.group("filesystem"),
        "size_kib": int(row.group("size")),
        "used_kib": int(row.group("used")),
        "free_kib": max(0, int(row.group("available"))),
        "mounted_on": row.group("mounted_on"),
    }


def gib(kib):
    """KiB as GiB with one decimal, the unit the preflight checks compare."""
    return round(kib / float(KIB_PER_GIB), 1)
