# -*- coding: utf-8 -*-
# PRIVATE to the collection: parser for `softwareupdate --list`. Do not use this from other
# collections. Stdlib only, Python 3.9.
"""Parse ``softwareupdate --list``: the pending updates, one ``* Label:`` line and one
``Title: ..., Version: ..., Size: ...KiB, Recommended: YES, Action: restart,`` line each
(macOS 10.15 and later; "No new software available." goes to stderr). A macOS update's label is
``<title>-<build>`` (``macOS Tahoe 26.3-25D60``), so installing by label pins the build; a major
upgrade is listed like any other update (``macOS 27-26A428``). A security response (Rapid Security Response
since macOS 13, Background Security Improvement since 26.1) is listed the same way, its letter in the title and in
``Version:`` and a longer build that ends in a letter: ``* Label: macOS Background Security Improvement
(a)-25D771280a`` / ``Title: macOS Background Security Improvement (a), Version: 26.3.1 (a), Size: 208896KiB, ...``.
Sizes are in ``KiB``, or in ``K`` on older releases (both KiB).

And the output of ``softwareupdate --install ... --stdinpass``: its ``Downloading: n%`` ticks (the
first 60 % download, the rest prepare, as super reads them), ``Downloaded: <title>`` (with
``--restart`` the Mac restarts right after it) and the error lines the deployed update tools match.
softwareupdate writes each tick newline-first (``\nDownloading: 12.00%``), so the last tick has no newline
after it until the next one comes; off a terminal ticks may also run together or end in ``\r``. The
update tools split the stream after each ``%`` (super: ``tr -u '%' '\n'``); so does parse_install.

And Apple's full installers, for a Mac that softwareupdate no longer offers the cluster's build: ``softwareupdate
--list-full-installers`` (``* Title: macOS Tahoe, Version: 26.7, Size: 17951133KiB, Build: 25G229, Deferred: NO``;
the update tools leave out ``Deferred: YES`` and betas), ``softwareupdate --fetch-full-installer
--full-installer-version V`` (its ``Installing: n%`` ticks, as grahampugh/erase-install reads them) and the installer's
``startosinstall`` (``Preparing to run macOS Installer...``, then ``Preparing: n`` ticks; erase-install reads both).
The fetch's last line and the ticks' exact digits are unconfirmed: parse_install reads any figure and takes the end
of a fetch from its exit status too."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import split_release

COMMAND = "softwareupdate --list"
_LABEL = re.compile(r"^\*\s*Label:\s*(?P<label>.+?)\s*$")
_FIELD = re.compile(r"(?P<key>[A-Za-z]+):\s*(?P<value>[^,]*)")
# A macOS build: 25D60, 24G84, 26A428, 25C5048a, 25D771280a (betas and security responses end in a letter).
_BUILD = re.compile(r"-(?P<build>[0-9]{2}[A-Z][0-9]{1,8}[a-z]?)$")
_SIZE = re.compile(r"^(?P<number>[0-9]+)\s*(?:KiB|K)$")
_PROGRESS = re.compile(r"^Downloading:\s*(?P<percent>[0-9.]+)\s*%")
# A full installer's fetch (softwareupdate --fetch-full-installer) and its startosinstall's preparation.
_FETCHING = re.compile(r"^Installing:\s*(?P<percent>[0-9.]+)\s*%?")
_PREPARING = re.compile(r"^Preparing:\s*(?P<percent>[0-9.]+)\s*%?")
FETCHED_LINE = "Install finished successfully"
_INSTALLER = re.compile(r"^\*\s*Title:")
# A tick's end: the `%` of `Downloading: n%`, where the next tick or line may follow without a newline.
_TICK_END = re.compile(r"%(?!\n)")
# The error lines the update tool super matches in softwareupdate's output (Macjutsu/super 5.1, `super` l.7085-7097).
ERROR_LINES = ("Failed to authenticate", "No such update", "Not enough free disk space", "Failed to download",
               "Can\u2019t connect", "Can't connect", "Couldn't communicate", "No updates are available")
DOWNLOAD_SHARE = 60.0


def _release(text):
    """(version, security response letter or None) of softwareupdate's Version: (26.3.1, or 26.3.1 (a)); a version in
    another shape is kept as printed, with no letter."""
    try:
        return split_release(text)
    except ValueError:
        return text or None, None


def parse_list(text):
    """-> [{label, title, version, version_extra, build, size_bytes, recommended (bool), restart (bool)}], in the
    order printed. ``version`` is the release (``26.3.1``), ``version_extra`` a security response's letter
    (``(a)``) or None."""
    updates = []
    pending = None
    for line in (text or "").splitlines():
        label = _LABEL.match(line.strip())
        if label:
            build = _BUILD.search(label.group("label"))
            pending = {"label": label.group("label"), "title": None, "version": None, "version_extra": None,
                       "build": build and build.group("build"), "size_bytes": None, "recommended": False,
                       "restart": False}
            updates.append(pending)
            continue
        if pending is not None and line.strip().startswith("Title:"):
            fields = dict((m.group("key").lower(), m.group("value").strip()) for m in _FIELD.finditer(line))
            size = _SIZE.match(fields.get("size", ""))
            version, extra = _release(fields.get("version"))
            pending.update(title=fields.get("title"), version=version, version_extra=extra,
                           size_bytes=int(size.group("number")) * 1024 if size else None,
                           recommended=fields.get("recommended", "").upper() == "YES",
                           restart=fields.get("action", "").lower() == "restart")
            pending = None
    if "found the following" in (text or "") and not updates:
        raise ParseError(COMMAND, "it announced updates but no `* Label:` line followed")
    return updates


def parse_full_installers(text):
    """-> [{title, version, build, size_bytes, deferred (bool), beta (bool)}] of ``softwareupdate
    --list-full-installers``, in the order printed (newest first on a Mac)."""
    found = []
    for line in (text or "").splitlines():
        if not _INSTALLER.match(line.strip()):
            continue
        fields = dict((m.group("key").lower(), m.group("value").strip()) for m in _FIELD.finditer(line.strip()[1:]))
        size = _SIZE.match(fields.get("size", ""))
        found.append({"title": fields.get("title"), "version": fields.get("version"), "build": fields.get("build"),
                      "size_bytes": int(size.group("number")) * 1024 if size else None,
                      "deferred": fields.get("deferred", "").upper() == "YES",
                      "beta": "beta" in line.lower()})
    if "found the following full installers" in (text or "") and not found:
        raise ParseError("softwareupdate --list-full-installers", "it announced installers but no `* Title:` line "
                         "followed")
    return found


def parse_install(text):
    """-> {percent (the last Downloading: figure, or None), phase (finding, downloading, preparing, downloaded),
    downloaded (bool), error (the first error line, or None), last (the last line)} of an install's output so far.
    A full installer's fetch (``Installing: n%``) downloads, its end line is ``downloaded``; startosinstall's
    ``Preparing: n`` prepares, and at 100 the installer is ready and the Mac restarts (``downloaded``)."""
    found = {"percent": None, "phase": "finding", "downloaded": False, "error": None, "last": None}
    for line in _TICK_END.sub("%\n", text or "").splitlines():
        line = line.strip()
        if not line:
            continue
        found["last"] = line
        progress = _PROGRESS.match(line)
        if progress:
            found["percent"] = float(progress.group("percent"))
            found["phase"] = "downloading" if found["percent"] < DOWNLOAD_SHARE else "preparing"
        elif line.startswith("Downloaded:") or line.startswith(FETCHED_LINE):
            found["downloaded"], found["phase"] = True, "downloaded"
        elif _FETCHING.match(line) or _PREPARING.match(line):
            fetching = _FETCHING.match(line)
            found["percent"] = float((fetching or _PREPARING.match(line)).group("percent"))
            found["phase"] = "downloading" if fetching else "preparing"
            if not fetching and found["percent"] >= 100.0:
                found["downloaded"], found["phase"] = True, "downloaded"
        elif found["error"] is None and any(line.startswith(error) for error in ERROR_LINES):
            found["error"] = line
    return found
