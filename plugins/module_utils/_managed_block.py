# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: node_files' managed blocks. Do not use this from other collections. Stdlib only.
"""A block of lines between two marker lines inside a file someone else also edits (pf.conf, ~/.ssh/known_hosts),
put in place or removed as ansible.builtin.blockinfile does with insertafter EOF or insertbefore BOF: the same text
for the same block, so a file blockinfile kept is left as it is."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DEFAULT_MARKER = "# {mark} ANSIBLE MANAGED BLOCK"


def with_block(original, block, marker=DEFAULT_MARKER, at_start=False):
    """The text of a file whose text is ``original`` (None: no file) with its managed block set to ``block``: the lines
    between ``marker``'s BEGIN and END lines replaced, or the block added at the end (at the start with ``at_start``)
    where those lines are not both there. An empty ``block`` removes the block and its markers."""
    lines = original.splitlines(True) if original else []
    begin = marker.replace("{mark}", "BEGIN") + "\n"
    end = marker.replace("{mark}", "END") + "\n"
    if block and not block.endswith("\n"):
        block += "\n"
    new = [begin] + block.splitlines(True) + [end] if block else []
    first = last = None
    for index, line in enumerate(lines):
        if line == begin:
            first = index
        if line == end:
            last = index
    if first is None or last is None:
        at = 0 if at_start else len(lines)
    else:
        at = min(first, last)
        del lines[at:max(first, last) + 1]
    if at > 0 and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    lines[at:at] = new
    return "".join(lines)
