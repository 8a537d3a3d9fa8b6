# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what every Markdown report shares.
"""GitHub-flavoured Markdown pieces the report, benchmark and deployment writers share."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def md_table(headers, rows):
    """The lines of a table; cells are written as given (escape them first where they need it)."""
    return ["| %s |" % " | ".join(headers), "|%s" % ("---|" * len(headers))] + [
        "| %s |" % " | ".join(str(cell) for cell in row) for row in rows]
