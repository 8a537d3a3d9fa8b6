# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `sw_vers`. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Parse `sw_vers` output and compare macOS versions.

Formats (sw_vers(1); exo reads ``sw_vers -buildVersion``; builds 25C56 = 26.2 and 25F80 = 26.5.1)::

    ProductName:		macOS
    ProductVersion:		26.2
    BuildVersion:		25C56

``sw_vers -productVersion`` prints ``26.2`` and ``sw_vers -buildVersion`` prints ``25C56``.

A Mac carrying a security response (a Rapid Security Response since macOS 13, a Background Security Improvement
since 26.1) keeps its release in ``ProductVersion``, names the response in a ``ProductVersionExtra:`` line (one tab,
absent without one) and reports the response's own, longer build, which ends in a letter::

    ProductName:		macOS
    ProductVersion:		26.3.1
    ProductVersionExtra:	(a)
    BuildVersion:		25D771280a

Its release is written ``26.3.1 (a)`` (``release``); it sorts after 26.3.1 and before 26.3.1 (b) and 26.3.2
(``release_key``).
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
# A release with its security response, as softwareupdate's Version: and system_profiler print it: 26.3.1 (a).
_RELEASE = re.compile(r"^(?P<version>\d+(?:\.\d+){0,2})(?:\s*(?P<extra>\([a-z]\)))?$")
_EXTRA = re.compile(r"^\([a-z]\)$")
# Darwin-style build: major number, train letter, build number, optional beta/security-response
# suffix letter (25C56, 25F80, 24A5331b, 25D771280a).
_BUILD = re.compile(r"^\d+[A-Z]\d+[a-z]?$")

# Processes built against an old SDK, or run with SYSTEM_VERSION_COMPAT=1, are told "16.x"
# where the system is 26.x (macOS jumped from 15 to 26); 10.16 played the same role for 11.
# That 16.minor maps to 26.minor is our reading, unconfirmed on hardware.
_COMPAT_MAJORS = {16: 26}


def parse_full(text):
    """Parse plain ``sw_vers`` into product_name, product_version, product_version_extra (a security
    response's ``(a)``, or None), build_version; other keys some releases print are kept under ``extra``
    with their original names."""
    fields = key_value_lines(FULL_COMMAND, text)
    for required in ("ProductVersion", "BuildVersion"):
        if required not in fields:
            raise ParseError(FULL_COMMAND, "no %s line" % required)
    version = _check_version(FULL_COMMAND, fields.pop("ProductVersion"))
    build = _check_build(FULL_COMMAND, fields.pop("BuildVersion"))
    extra = fields.pop("ProductVersionExtra", None) or None
    if extra is not None and not _EXTRA.match(extra):
        raise ParseError(FULL_COMMAND, "ProductVersionExtra %r is not a security response like (a)" % extra)
    return {
        "product_name": fields.pop("ProductName", None),
        "product_version": version,
        "product_version_extra": extra,
        "build_version": build,
        "extra": fields,
    }


def split_release(text):
    """``"26.3.1 (a)"`` -> ``("26.3.1", "(a)")``; ``"26.3"`` -> ``("26.3", None)``; ValueError otherwise."""
    match = _RELEASE.match(str(text or "").strip())
    if match is None:
        raise ValueError("%r is not a macOS release like 26.3 or 26.3.1 (a)" % (text,))
    return match.group("version"), match.group("extra")


def release(version, extra=None):
    """The release as macOS names it: ``26.3.1``, or ``26.3.1 (a)`` with a security response."""
    return "%s %s" % (version, extra) if extra else str(version)


def release_key(text, extra=None):
    """A sort key of a release (``"26.3.1 (a)"``, or a version and its `extra`): 26.3.1 < 26.3.1 (a) <
    26.3.1 (b) < 26.3.2."""
    version, found = split_release(text)
    letter = (extra or found or "").strip("()")
    return version_tuple(version) + (letter,)


def release_sort_key(text):
    """release_key, with anything that is not a release sorting first (a read that named none)."""
    try:
        return release_key(text)
    except ValueError:
        return (0,)


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
