# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `vm_stat`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse ``vm_stat``: the page size and each page count, and the memory a new program can have.

macOS prints a header with the page size (16384 bytes on Apple Silicon), then one ``Label: count.`` line
per statistic::

    Mach Virtual Memory Statistics: (page size of 16384 bytes)
    Pages free:                               123456.
    Pages active:                             234567.

Memory a new program can have without paging anything out: the free pages, and the ones macOS gives up at
once (inactive and speculative file cache, purgeable). Active, wired and compressed pages are what
already runs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError, require_text

COMMAND = "vm_stat"
_HEADER = re.compile(r"page size of (\d+) bytes")
_LINE = re.compile(r'^"?(?P<label>[^:"]+)"?:\s+(?P<count>\d+)\.?\s*$')
RECLAIMABLE = ("Pages free", "Pages inactive", "Pages speculative", "Pages purgeable")


def parse(text, command=COMMAND):
    """{page_size, pages: {label: count}, available_bytes}."""
    lines = require_text(command, text).strip().splitlines()
    header = _HEADER.search(lines[0])
    if not header:
        raise ParseError(command, "no page size in the first line: %r" % lines[0])
    page_size = int(header.group(1))
    pages = {}
    for line in lines[1:]:
        found = _LINE.match(line.strip())
        if found:
            pages[found.group("label").strip()] = int(found.group("count"))
    if "Pages free" not in pages:
        raise ParseError(command, "no \"Pages free\" line")
    available = sum(pages.get(label, 0) for label in RECLAIMABLE) * page_size
    return {"page_size": page_size, "pages": pages, "available_bytes": available}
