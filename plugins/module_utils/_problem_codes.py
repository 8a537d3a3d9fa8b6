# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the severities and the registry entry's shape, shared by _problems.py and the
# registries it gathers (_serve_problems.py). Stdlib only, Python 3.9.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)


def registry_entry(severity, area, meaning, fix):
    """A registry entry: the usual severity, the part of the collection that finds it, what it says, the generic fix."""
    return {"severity": severity, "area": area, "meaning": meaning, "fix": fix}
