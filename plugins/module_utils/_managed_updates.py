# -*- coding: utf-8 -*-
# PRIVATE to the collection: what says a Mac's updates are managed. Do not use this from other collections.
# Stdlib only, Python 3.9.
"""Read whether an MDM manages a Mac's updates, and how: its enrollment, the deferrals a restrictions profile
sets, and what declarative device management (DDM) enforces.

``profiles status -type enrollment`` (the form the update tool super and Fleet's agent match)::

    Enrolled via DEP: Yes
    MDM enrollment: Yes (User Approved)
    MDM server: https://example.com/mdm/ServerURL

Not enrolled: ``Enrolled via DEP: No`` and ``MDM enrollment: No``, no server line. ``MDM enrollment: Yes`` without
``(User Approved)`` occurs too.

Deferrals (a restrictions profile, ``/Library/Managed Preferences/com.apple.applicationaccess.plist``; Apple's
payload keys): ``forceDelayedSoftwareUpdates`` with ``enforcedSoftwareUpdateMinorOSDeferredInstallDelay``,
``enforcedSoftwareUpdateNonOSDeferredInstallDelay`` or the older ``enforcedSoftwareUpdateDelay`` (days, 1-90;
30 when none is set, as super reads them), ``forceDelayedMajorSoftwareUpdates`` with
``enforcedSoftwareUpdateMajorOSDeferredInstallDelay``. A deferred update is not offered by softwareupdate until
its days have passed.

DDM (``/var/db/softwareupdate/SoftwareUpdateDDMStatePersistence.plist``, written by softwareupdated): under
``SUCorePersistedStatePolicyFields``, ``Declarations`` holds each enforced install (``TargetOSVersion``,
``TargetBuildVersion``, ``TargetLocalDateTime``, ``DetailsURL``): macOS installs that build and restarts the Mac by
that time on its own. The settings declaration's deferral periods sit in ``SUCoreDDMDeclarationGlobalSettings``
(``majorOSDeferralPeriod``, ``minorOSDeferralPeriod``, ``systemUpdatesDeferralPeriod``): key names from a
class-dump, unconfirmed from a captured file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

ENROLLMENT_COMMAND = "profiles status -type enrollment"
RESTRICTIONS_PLIST = "/Library/Managed Preferences/com.apple.applicationaccess.plist"
DDM_STATE_PLIST = "/var/db/softwareupdate/SoftwareUpdateDDMStatePersistence.plist"
# The days a forced deferral lasts when the profile names none (Apple's default, as super applies it).
DEFAULT_DEFERRAL_DAYS = 30
_LINE = re.compile(r"^\s*(?P<key>Enrolled via DEP|MDM enrollment|MDM server)\s*:\s*(?P<value>.*?)\s*$")
# DDM's deferral periods by what they defer (the settings declaration's Major/Minor/SystemPeriodInDays).
_DDM_DEFERRALS = (("major", "majorOSDeferralPeriod"), ("minor", "minorOSDeferralPeriod"),
                  ("system", "systemUpdatesDeferralPeriod"))


def parse_enrollment(text):
    """``profiles status -type enrollment`` -> {enrolled, dep, user_approved, server}."""
    found = {}
    for line in (text or "").splitlines():
        match = _LINE.match(line)
        if match:
            found[match.group("key")] = match.group("value")
    if "MDM enrollment" not in found:
        raise ParseError(ENROLLMENT_COMMAND, "no `MDM enrollment:` line")
    enrollment = found["MDM enrollment"]
    return {"enrolled": enrollment.lower().startswith("yes"),
            "dep": found.get("Enrolled via DEP", "").lower().startswith("yes"),
            "user_approved": "user approved" in enrollment.lower(),
            "server": found.get("MDM server") or None}


def _days(restrictions, *keys):
    for key in keys:
        value = restrictions.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return DEFAULT_DEFERRAL_DAYS


def restriction_deferrals(restrictions):
    """A restrictions profile's settings (a dict, {} where none) -> {minor, major, other}: the days each kind of
    update is held back, or None where it is not."""
    restrictions = restrictions or {}
    minor = other = major = None
    if restrictions.get("forceDelayedSoftwareUpdates") is True:
        minor = _days(restrictions, "enforcedSoftwareUpdateMinorOSDeferredInstallDelay", "enforcedSoftwareUpdateDelay")
        other = _days(restrictions, "enforcedSoftwareUpdateNonOSDeferredInstallDelay", "enforcedSoftwareUpdateDelay")
    if restrictions.get("forceDelayedMajorSoftwareUpdates") is True:
        major = _days(restrictions, "enforcedSoftwareUpdateMajorOSDeferredInstallDelay", "enforcedSoftwareUpdateDelay")
    return {"minor": minor, "major": major, "other": other}


def ddm_state(state):
    """softwareupdated's DDM state (a dict, {} where the file is absent) -> {enforced: [{version, build, at,
    details_url}], deferrals: {major, minor, system}} (days, None where not set)."""
    fields = (state or {}).get("SUCorePersistedStatePolicyFields") or {}
    declarations = [d for d in (fields.get("Declarations") or {}).values()
                    if isinstance(d, dict) and d.get("TargetOSVersion")]
    enforced = [{"version": str(d["TargetOSVersion"]), "build": d.get("TargetBuildVersion") or None,
                 "at": str(d.get("TargetLocalDateTime") or "") or None, "details_url": d.get("DetailsURL") or None}
                for d in declarations]
    enforced.sort(key=lambda install: (install["at"] is None, install["at"] or ""))  # soonest first, undated last
    settings = fields.get("SUCoreDDMDeclarationGlobalSettings") or {}
    deferrals = {}
    for kind, key in _DDM_DEFERRALS:
        value = settings.get(key)
        deferrals[kind] = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
    return {"enforced": enforced, "deferrals": deferrals}


def managed(enrollment, restrictions, state):
    """The node's ``managed`` fact: its enrollment, the days each kind of update is deferred (the longer of the
    restrictions profile's and DDM's) and the installs DDM enforces."""
    from_profile, from_ddm = restriction_deferrals(restrictions), ddm_state(state)
    deferred = {}
    # The restrictions profile's "other" (non-OS) deferral is DDM's "system" one.
    for kind, ddm_kind in (("minor", "minor"), ("major", "major"), ("other", "system")):
        days = [d for d in (from_profile[kind], from_ddm["deferrals"][ddm_kind]) if d]
        deferred[kind] = max(days) if days else None
    return dict(enrollment, deferred_days=deferred, enforced=from_ddm["enforced"])
