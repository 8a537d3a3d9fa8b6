# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `sw_vers`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse `sw_vers` output and compare macOS versions.

Formats (sw_vers(1); exo reads ``sw_vers -buildVersion``; builds 25C56 = 26.2 and 25F80 = 26.5.1)::

    ProductName:		macOS
    ProductVersion:		26.2
    BuildVersion:		25C56

``sw_vers -productVersion`` prints ``26.2`` and ``sw_vers -buildVersion`` prints ``25C56``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import (
    ParseError,
    key_value_lines,
    require_text,
)

FULL_COMMAND = "sw_vers"
PRODUCT_VERSION_COMMAND = "sw_vers -productVersion"
BUILD_VERSION_COMMAND = "sw_vers -buildVersion"

_VERSION = re.compile(r"^\d+(\.\d+){0,2}$")
# Darwin-style build: major number, train letter, build number, optional beta/rapid-response
# suffix letter (25C56, 25F80, 24A5331b).
_BUILD = re.compile(r"^\d+[A-Z]\d+[a-z]?$")

# Processes built against an old SDK, or run with SYSTEM_VERSION_COMPAT=1, are told "16.x"
# where the system is 26.x (macOS jumped from 15 to 26); 10.16 played the same role for 11.
# That 16.minor maps to 26.minor is our reading, unconfirmed on hardware.
_COMPAT_MAJORS = {16: 26}


def parse_full(text):
    """Parse plain ``sw_vers`` into product_name, product_version, build_version.

    Extra keys some releases print (``ProductVersionExtra: (a)`` on rapid security
    responses) are kept under ``extra`` with their original names.
    """
    fields = key_value_lines(FULL_COMMAND, text)
    for required in ("ProductVersion", "BuildVersion"):
        if required not in fields:
            raise ParseError(FULL_COMMAND, "no %s line" % required)
    version = _check_version(FULL_COMMAND, fields.pop("ProductVersion"))
    build = _check_build(FULL_COMMAND, fields.pop("BuildVersion"))
    return {
        "product_name": fields.pop("ProductName", None),
        "product_version": version,
        "build_version": build,
        "extra": fields,
    }


def parse_product_version(text):
    """Parse ``sw_vers -productVersion`` (a bare ``26.2``)."""
    return _check_version(PRODUCT_VERSION_COMMAND, _single_line(PRODUCT_VERSION_COMMAND, text))


def parse_build_version(text):
    """Parse ``sw_vers -buildVersion`` (a bare ``25C56``)."""
    return _check_build(BUILD_VERSION_COMMAND, _single_line(BUILD_VERSION_COMMAND, text))


def version_tuple(version):
    """``"26.5.1"`` -> ``(26, 5, 1)``; missing parts count as 0; compat majors are mapped."""
    if not isinstance(version, str) or not _VERSION.match(version.strip()):
        raise ValueError("%r is not a macOS version like 26.2 or 26.5.1" % (version,))
    parts = [int(part) for part in version.strip().split(".")]
    parts += [0] * (3 - len(parts))
    parts[0] = _COMPAT_MAJORS.get(parts[0], parts[0])
    return tuple(parts)


def compare_versions(left, right):
    """-1, 0 or 1 as `left` is older than, equal to or newer than `right`."""
    left_parts, right_parts = version_tuple(left), version_tuple(right)
    return (left_parts > right_parts) - (left_parts < right_parts)


def version_at_least(version, minimum):
    return compare_versions(version, minimum) >= 0


def _single_line(command, text):
    lines = [line.strip() for line in require_text(command, text).splitlines() if line.strip()]
    if len(lines) != 1:
        raise ParseError(command, "expected one line, got %d" % len(lines))
    return lines[0]


def _check_version(command, value):
    if not _VERSION.match(value):
        raise ParseError(command, "%r is not a version like 26.2" % value)
    return value


def _check_build(command, value):
    if not _BUILD.match(value):
        raise ParseError(command, "%r is not a build like 25C56" % value)
    return value
