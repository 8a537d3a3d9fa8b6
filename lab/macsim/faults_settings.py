"""`maclab fault` for a node's settings and software: power (pmset), Automatic Updates, a pending
update, a package version, a broken sudoers drop-in, lost mesh keys, pf disabled, no Homebrew. Each follows the real file or
command output the collection reads; `undo` is what `fault clear` does for each."""
import os
import plistlib
import re
import time

from . import layout
from .faultbase import FaultError, edit_state, in_host, record
from .profiles import os_info


def _pmset_fault(paths, kind, host, key, value):
    with edit_state(paths, host) as state:
        settings = state.setdefault("pmset", {})
        saved = settings.get(key)
        settings[key] = value
    record(paths, kind, [host], {"key": key, "value": saved})
    return "%s: pmset %s %s" % (host, key, value)


def fault_sleep_on(paths, host):
    return _pmset_fault(paths, "sleep-on", host, "sleep", 10)


def fault_autorestart_off(paths, host):
    return _pmset_fault(paths, "autorestart-off", host, "autorestart", 0)


# System Settings > Software Update > Automatic Updates writes this file (binary, as macOS keeps it).
# Key names from Apple's com.apple.SoftwareUpdate payload; not confirmed from a captured file.
SOFTWARE_UPDATE_PLIST = "/Library/Preferences/com.apple.SoftwareUpdate.plist"


def _replace_plist(paths, host, path, contents):
    """Write (or with None remove) a property list on the host, binary as macOS keeps them; its contents before, as
    hex, or None (for _restore_plist)."""
    target = paths.host_file(host, "fs") + path
    saved = None
    if os.path.exists(target):
        with open(target, "rb") as handle:
            saved = handle.read().hex()
        os.unlink(target)
    if contents is not None:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            plistlib.dump(contents, handle, fmt=plistlib.FMT_BINARY)
    return saved


def _restore_plist(paths, host, path, saved):
    target = paths.host_file(host, "fs") + path
    if os.path.exists(target):
        os.unlink(target)
    if saved is not None:
        with open(target, "wb") as handle:
            handle.write(bytes.fromhex(saved))


def _software_update_settings(paths, host, kind, settings):
    """Write the host's Software Update settings as System Settings would; the file before is kept for the undo."""
    record(paths, kind, [host], _replace_plist(paths, host, SOFTWARE_UPDATE_PLIST, settings))


def fault_auto_update_on(paths, host):
    _software_update_settings(paths, host, "auto-update-on", {
        "AutomaticCheckEnabled": True, "AutomaticDownload": True, "AutomaticallyInstallMacOSUpdates": True,
        "CriticalUpdateInstall": True, "ConfigDataInstall": True})
    return "%s: automatic macOS updates on (%s)" % (host, SOFTWARE_UPDATE_PLIST)


def fault_security_auto_on(paths, host):
    """macOS updates off, security responses on: macOS's default (and a Mac's state before site.yml), where a
    Background Security Improvement installs by itself (SplatEnabled: unconfirmed key, see the power role)."""
    _software_update_settings(paths, host, "security-auto-on", {
        "AutomaticCheckEnabled": True, "AutomaticDownload": True, "AutomaticallyInstallMacOSUpdates": False,
        "CriticalUpdateInstall": True, "ConfigDataInstall": True, "SplatEnabled": True})
    return "%s: security responses install by themselves (%s)" % (host, SOFTWARE_UPDATE_PLIST)


def fault_security_response(paths, host):
    """The host installed a security response by itself: its release gains the letter (a) and its build the
    response's longer one, as 26.3.1 (25D2128) became 26.3.1 (a) (25D771280a). The build is the lab's own (the
    base build's train, then 771280a, as Apple's first macOS 26 response)."""
    with edit_state(paths, host) as state:
        saved = dict(state["os"])
        state["os"]["extra"] = "(a)"
        state["os"]["build"] = re.match(r"\d+[A-Z]", saved["build"]).group(0) + "771280a"
    record(paths, "security-response", [host], saved)
    return "%s: macOS %s (a) (%s)" % (host, saved["version"], state["os"]["build"])


MACOS_NAMES = {"14": "Sonoma", "15": "Sequoia", "26": "Tahoe"}


def macos_update(version, build):
    """softwareupdate's listing of macOS VERSION (BUILD): its label is <title>-<build>, so it names the build. A
    VERSION with a letter (26.3.1 (a)) is a security response, listed as macOS 26 lists a Background Security
    Improvement (a real 26.3.1 (a) capture): its letter in the title and in Version:, its own longer build."""
    release, _, extra = version.partition(" ")
    name = MACOS_NAMES.get(release.split(".")[0])
    if extra:
        title, size = "macOS Background Security Improvement %s" % extra, 208896
    else:
        title, size = ("macOS %s %s" % (name, version) if name else "macOS %s" % version), 3829595
    return {"label": "%s-%s" % (title, build), "title": title, "version": version, "build": build,
            "size_kib": size, "recommended": True, "action": "restart"}


def offer_update(paths, hosts, version, build, seconds=None, jitter=None):
    """`maclab offer-update`: softwareupdate on each host offers macOS VERSION (BUILD) instead of any other macOS
    update; its download and preparation take about SECONDS (U), the other phases their share of U (shims/updates.py),
    each phase's time drawn within +-JITTER (a fraction) of it."""
    for host in hosts:
        with edit_state(paths, host) as state:
            state["pending_updates"] = [u for u in state.get("pending_updates", [])
                                        if not u.get("title", "").startswith("macOS ")] + [macos_update(version, build)]
            if seconds is not None:
                state["update_seconds"] = float(seconds)
            if jitter is not None:
                state["update_jitter"] = float(jitter)
    return "%s: softwareupdate offers macOS %s (%s)" % (", ".join(hosts), version, build)


def full_installer(version, build, deferred=False):
    """`softwareupdate --list-full-installers`' entry for macOS VERSION (BUILD): titled by the major's name (macOS
    Tahoe), the size of a real 26.x installer."""
    name = MACOS_NAMES.get(version.split(".")[0])
    return {"title": "macOS %s" % (name or version.split(".")[0]), "version": version, "build": build,
            "size_kib": 17951133, "deferred": bool(deferred)}


def offer_installer(paths, hosts, version, build, deferred=False):
    """`maclab offer-installer`: `softwareupdate --list-full-installers` on each host lists Apple's full installer of
    macOS VERSION (BUILD), newest first beside the others it lists (Deferred: YES with `deferred`)."""
    entry = full_installer(version, build, deferred)
    for host in hosts:
        with edit_state(paths, host) as state:
            others = [e for e in state.get("full_installers", []) if e["version"] != version]
            state["full_installers"] = sorted(others + [entry], key=lambda e: _release_key(e["version"]), reverse=True)
    return "%s: Apple's full installer of macOS %s (%s) is offered%s" % (
        ", ".join(hosts), version, build, " (deferred)" if deferred else "")


def _release_key(version):
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def log_in_at_console(paths, hosts, user):
    """`maclab console`: USER is logged in at each host's screen (owns /dev/console), or nobody ("none": the login
    window, as a headless Mac after a restart)."""
    for host in hosts:
        with edit_state(paths, host) as state:
            if user == "none":
                state.pop("console_user", None)
            else:
                state["console_user"] = user
    return "%s: %s at the screen" % (", ".join(hosts), "the login window" if user == "none" else user + " logged in")


def run_macos(paths, hosts, version, build):
    """`maclab macos`: each host runs macOS VERSION (BUILD), as after a restore: no macOS update or full installer
    offered, prepared, fetched or staged (a test starts from a known build whatever ran before)."""
    for host in hosts:
        with edit_state(paths, host) as state:
            state["os"] = os_info(version, build)
            state.pop("staged_update", None)
            state.pop("prepared_update", None)
            state.pop("fetched_installer", None)
            state.pop("full_installers", None)
            state["pending_updates"] = [u for u in state.get("pending_updates", [])
                                        if not u.get("title", "").startswith("macOS ")]
    return "%s: macOS %s (%s), no macOS update offered" % (", ".join(hosts), version, build)


def fault_update_hang(paths, host):
    """HOST's next macOS install stops after `Downloaded:` and never restarts (super#217); a restart boots the new
    build."""
    with edit_state(paths, host) as state:
        state.setdefault("faults", {})["update_hang"] = True
    record(paths, "update-hang", [host])
    return "%s: a macOS install hangs after Downloaded: without restarting" % host


def fault_update_auth_fails(paths, host):
    """HOST's next macOS install fails with "Failed to authenticate" after `Downloaded:` though the owner's password
    is right (super#219, #277, #293: 14.5, 15.3, 15.4)."""
    with edit_state(paths, host) as state:
        state.setdefault("faults", {})["update_auth_fails"] = True
    record(paths, "update-auth-fails", [host])
    return "%s: a macOS install fails to authenticate after its download" % host


def fault_update_install_auth_fails(paths, host):
    """HOST's next macOS install fails with "Failed to authenticate" after `Downloaded:`, though the download before
    it authenticated (softwareupdate --download): the password checked again at the install is refused."""
    with edit_state(paths, host) as state:
        state.setdefault("faults", {})["update_auth_fails"] = "install"
    record(paths, "update-install-auth-fails", [host])
    return "%s: a macOS install fails to authenticate, its download does not" % host


def fault_update_slows(paths, host, percent):
    """HOST's next macOS install boots a build on which the whole Mac is slower: the lab's supervisor pauses every
    process of the host for PERCENT % of each tenth of a second from that boot on (supervisor.Throttle), as users saw
    exo fall from 70 to 12 tokens/s on a new macOS (exo #2166). The canary's figure must catch it."""
    if not (str(percent).isdigit() and 0 < int(percent) < 100):
        raise FaultError("update-slows takes a share from 1 to 99 (percent of the time paused), not %r" % percent)
    with edit_state(paths, host) as state:
        state.setdefault("faults", {})["update_slows"] = int(percent)
    record(paths, "update-slows", [host, percent])
    return "%s: the build its next macOS install boots runs %s %% paused" % (host, percent)


def fault_update_pending(paths, host):
    """A macOS update waiting in `softwareupdate --list` (the next point release of the host's macOS)."""
    with edit_state(paths, host) as state:
        saved = list(state.get("pending_updates", []))
        major, minor = (state["os"]["version"].split(".") + ["0"])[:2]
        version = "%s.%d" % (major, int(minor) + 1)
        state["pending_updates"] = saved + [macos_update(version, "25D125")]
    record(paths, "update-pending", [host], saved)
    return "%s: macOS %s waits in softwareupdate --list" % (host, version)


# Where an MDM's settings land on a Mac (see plugins/module_utils/_managed_updates.py for the sources).
RESTRICTIONS_PLIST = "/Library/Managed Preferences/com.apple.applicationaccess.plist"
DDM_STATE_PLIST = "/var/db/softwareupdate/SoftwareUpdateDDMStatePersistence.plist"
# The enrollment the MDM faults give a host (state.json's "mdm", which `profiles status -type enrollment` prints).
LAB_MDM = {"enrolled": True, "dep": True, "server": "https://mdm.example.com/mdm"}


def fault_mdm_deferral(paths, host, days):
    """HOST enrolled in an MDM whose restrictions profile defers minor updates by DAYS: softwareupdate offers no macOS
    update that came out since (the host's offered macOS updates are held back)."""
    with edit_state(paths, host) as state:
        saved = {"mdm": state.get("mdm"), "pending_updates": list(state.get("pending_updates", []))}
        state["mdm"] = dict(LAB_MDM)
        state["pending_updates"] = [u for u in saved["pending_updates"] if not u.get("title", "").startswith("macOS ")]
    saved["file"] = _replace_plist(paths, host, RESTRICTIONS_PLIST, {
        "forceDelayedSoftwareUpdates": True, "enforcedSoftwareUpdateMinorOSDeferredInstallDelay": int(days)})
    record(paths, "mdm-deferral", [host, days], saved)
    return "%s: an MDM defers minor updates by %s days (%s); no macOS update offered" % (host, days, RESTRICTIONS_PLIST)


def fault_mdm_enforced(paths, host, version):
    """HOST enrolled in an MDM whose declarative management enforces macOS VERSION three days from now."""
    with edit_state(paths, host) as state:
        saved = {"mdm": state.get("mdm")}
        state["mdm"] = dict(LAB_MDM)
    when = time.strftime("%Y-%m-%dT02:00:00", time.localtime(time.time() + 3 * 86400))
    saved["file"] = _replace_plist(paths, host, DDM_STATE_PLIST, {
        "SUCorePersistedStatePolicyFields": {"Declarations": {"lab-enforcement": {
            "TargetOSVersion": version, "TargetLocalDateTime": when, "RMStoreDeclarationKey": "lab-enforcement"}}},
        "SUCorePersistedStateCoreVersion": "2.1.0", "SUCorePersistedStatePolicyVersion": "1.0"})
    record(paths, "mdm-enforced", [host, version], saved)
    return "%s: an MDM enforces macOS %s by %s (%s)" % (host, version, when, DDM_STATE_PLIST)


def _dist_infos(paths, host, name):
    """Every installed copy of distribution NAME on the host (its *.dist-info under /opt: each
    virtual environment), as pip lays them out: the name normalized to underscores, any case."""
    wanted = re.sub(r"[-_.]+", "_", name).lower()
    found = []
    for root, dirs, _files in os.walk(paths.host_file(host, "fs") + "/opt"):
        for entry in list(dirs):
            project = entry[:-len(".dist-info")].rsplit("-", 1)[0] if entry.endswith(".dist-info") else None
            if project is not None and re.sub(r"[-_.]+", "_", project).lower() == wanted:
                found.append(os.path.join(root, entry, "METADATA"))
                dirs.remove(entry)
    return sorted(path for path in found if os.path.exists(path))


def fault_package_version(paths, host, name, version):
    """NAME installed at VERSION in every environment of the host: the dist-info METADATA says so, as
    after `pip install NAME==VERSION` (the code stays the lab's stand-in; only the metadata changes)."""
    saved = {}
    for path in _dist_infos(paths, host, name):
        with open(path) as handle:
            saved[path] = handle.read()
        with open(path, "w") as handle:
            handle.write(re.sub(r"(?m)^Version: .*$", "Version: %s" % version, saved[path], count=1))
    if not saved:
        raise FaultError("%s has no %s installed under /opt" % (host, name))
    record(paths, "package-version", [host, name, version], saved)
    return "%s: %s %s in %d environment(s)" % (host, name, version, len(saved))


# A drop-in sudo cannot parse (as after a hand edit without visudo): sudo then refuses to run at all.
BROKEN_SUDOERS = "/etc/sudoers.d/zz-maclab-broken"


def _in_host(paths, host, script):
    """Run a root shell script inside the running host; False when the host is not up or it failed."""
    done = in_host(paths, host, ["/bin/sh", "-c", script])
    return done is not None and done.returncode == 0


def fault_sudoers_broken(paths, host):
    # No colon after NOPASSWD: a syntax error, as a hand edit without visudo leaves it.
    if not _in_host(paths, host, "printf 'admin ALL=(ALL) NOPASSWD /usr/bin/true\\n' > %s && chmod 440 %s"
                    % (BROKEN_SUDOERS, BROKEN_SUDOERS)):
        raise FaultError("%s is not up: its sudoers cannot be edited" % host)
    record(paths, "sudoers-broken", [host])
    return "%s: %s has a syntax error" % (host, BROKEN_SUDOERS)


# The lab's own key (the controller's) ends with this comment; the ssh_mesh role's keys are the others.
CONTROLLER_KEY_COMMENT = "maclab-controller"


def _authorized_keys(paths, host):
    return os.path.join(paths.host_file(host, "fs"), "Users", layout.ADMIN_USER, ".ssh", "authorized_keys")


def fault_ssh_key_lost(paths, host):
    """The peers' keys gone from the host's authorized_keys (as after a restore or a hand edit): every
    line but the lab controller's key."""
    path = _authorized_keys(paths, host)
    with open(path) as handle:
        saved = handle.read()
    kept = [line for line in saved.splitlines(True) if line.rstrip().endswith(CONTROLLER_KEY_COMMENT)]
    if len(kept) == len(saved.splitlines(True)):
        raise FaultError("%s's authorized_keys holds no mesh key (run site.yml first)" % host)
    with open(path, "w") as handle:
        handle.write("".join(kept))
    record(paths, "ssh-key-lost", [host], saved)
    return "%s: the peers' keys are gone from authorized_keys" % host


def fault_pf_off(paths, host):
    """pf disabled, as after someone's `sudo pfctl -d` (the rules stay loaded; nothing filters)."""
    with edit_state(paths, host) as state:
        pf_state = state.get("pf") or {}
        if not pf_state.get("enabled"):
            raise FaultError("%s: pf is not enabled (run site.yml first)" % host)
        saved = dict((key, pf_state.get(key)) for key in ("enabled", "tokens", "enabled_since"))
        pf_state.update(enabled=False, tokens=[], enabled_since=None)
    record(paths, "pf-off", [host], saved)
    return "%s: pf disabled" % host


# Where Homebrew's installer puts brew on Apple silicon; the lab links its brew shim there per host.
BREW = "/opt/homebrew/bin/brew"


def fault_homebrew_missing(paths, host):
    """Homebrew not installed: no /opt/homebrew/bin/brew (the shim's link moved aside, `fault clear` puts it back)."""
    path = paths.host_file(host, "fs") + BREW
    if not os.path.lexists(path):
        raise FaultError("%s: %s is not there" % (host, BREW))
    os.rename(path, path + ".maclab-missing")
    record(paths, "homebrew-missing", [host], None)
    return "%s: no Homebrew (%s gone)" % (host, BREW)


def undo(paths, kind, host, saved):
    """Put back what fault ``kind`` replaced on ``host``; False for a kind this module does not know."""
    if kind in ("sleep-on", "autorestart-off"):
        with edit_state(paths, host) as state:
            if saved["value"] is None:
                state.setdefault("pmset", {}).pop(saved["key"], None)
            else:
                state.setdefault("pmset", {})[saved["key"]] = saved["value"]
    elif kind in ("auto-update-on", "security-auto-on"):
        _restore_plist(paths, host, SOFTWARE_UPDATE_PLIST, saved)
    elif kind in ("mdm-deferral", "mdm-enforced"):
        with edit_state(paths, host) as state:
            for key in ("mdm", "pending_updates"):
                if key in saved:
                    state[key] = saved[key]
        _restore_plist(paths, host, RESTRICTIONS_PLIST if kind == "mdm-deferral" else DDM_STATE_PLIST, saved["file"])
    elif kind == "security-response":
        with edit_state(paths, host) as state:
            state["os"] = saved
    elif kind == "ssh-key-lost":
        with open(_authorized_keys(paths, host), "w") as handle:
            handle.write(saved)
    elif kind == "sudoers-broken":
        path = paths.host_file(host, "fs") + BROKEN_SUDOERS
        if not _in_host(paths, host, "rm -f %s" % BROKEN_SUDOERS) and os.path.exists(path):
            os.unlink(path)  # the host is off: its overlay's upper layer is a plain directory
    elif kind == "package-version":
        for path, text in saved.items():
            with open(path, "w") as handle:
                handle.write(text)
    elif kind == "homebrew-missing":
        path = paths.host_file(host, "fs") + BREW
        if os.path.lexists(path + ".maclab-missing"):
            os.rename(path + ".maclab-missing", path)
    elif kind == "pf-off":
        with edit_state(paths, host) as state:
            state.setdefault("pf", {}).update(saved)
    elif kind == "update-pending":
        with edit_state(paths, host) as state:
            state["pending_updates"] = saved
    elif kind in ("update-hang", "update-auth-fails", "update-install-auth-fails"):
        with edit_state(paths, host) as state:
            state.setdefault("faults", {}).pop(kind.replace("-install", "").replace("-", "_"), None)
    elif kind == "update-slows":
        # The throttle of a boot that took the slow build reads this each second and ends.
        with edit_state(paths, host) as state:
            state.setdefault("faults", {}).pop("update_slows", None)
            state.pop("slow_percent", None)
    else:
        return False
    return True


KINDS = {
    "sleep-on": (1, fault_sleep_on), "autorestart-off": (1, fault_autorestart_off),
    "auto-update-on": (1, fault_auto_update_on), "update-pending": (1, fault_update_pending),
    "security-auto-on": (1, fault_security_auto_on), "security-response": (1, fault_security_response),
    "mdm-deferral": (2, fault_mdm_deferral), "mdm-enforced": (2, fault_mdm_enforced),
    "package-version": (3, fault_package_version), "sudoers-broken": (1, fault_sudoers_broken),
    "ssh-key-lost": (1, fault_ssh_key_lost), "pf-off": (1, fault_pf_off), "update-hang": (1, fault_update_hang),
    "update-auth-fails": (1, fault_update_auth_fails),
    "update-install-auth-fails": (1, fault_update_install_auth_fails), "homebrew-missing": (1, fault_homebrew_missing),
    "update-slows": (2, fault_update_slows),
}
