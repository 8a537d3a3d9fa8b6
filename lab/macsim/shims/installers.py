"""Apple's full installers, for a Mac that softwareupdate no longer offers the cluster's build (a new or restored Mac
on an older build, once Apple offers it only a newer one): `softwareupdate --list-full-installers`, `softwareupdate
--fetch-full-installer --full-installer-version V` and the fetched app's `startosinstall`, as the deployed tools
run them (grahampugh/erase-install, Macjutsu/super): `startosinstall --agreetolicense --forcequitapps --nointeraction
--user OWNER --stdinpass`, run as root with the owner's password on stdin, in the context of the user logged in at the
Mac's screen (erase-install refuses without one, erase-install#33).

The lab offers installers per host (`maclab offer-installer VERSION BUILD [HOSTS] [--deferred]`, state.json's
full_installers) and a user at the screen (`maclab console USER|none [HOSTS]`, state.json's console_user: `stat -f %Su
/dev/console` answers it). The fetch takes FETCH_SHARE of the host's U and puts `Install macOS <name>.app` under
/Applications, whose startosinstall prepares for PREPARE_SHARE of U, stages the installer's build (as
softwareupdate's install does) and restarts the host; the build installs at boot as an update does.

Unconfirmed (no capture found), the lab's: the `Installing: n%` and `Preparing: n%` ticks' digits (erase-install reads
the figure before the last three characters), the fetch's last line `Install finished successfully`, the line when
no installer is offered, and every failure's wording (marked "lab wording")."""
import os
import sys
import time

from ..hostfs import SHIM_ENTRY  # what every shimmed command links to
from .power import request_power
from .registry import command
from .state import Fail, is_root, out

APPLICATIONS = "/Applications"
# A full installer (17.5 GB for 26.3) is about five times an update's delta (3.7 GB): its fetch takes longer than an
# update's download and preparation (U); its startosinstall then prepares as an update does.
FETCH_SHARE = 2.0
PREPARE_SHARE = 0.5
TICKS = (5.0, 20.0, 40.0, 60.0, 80.0, 100.0)
NOT_FOUND = "Install failed with error: Update not found\n"
NO_INSTALLERS = "No full installers found (lab wording)\n"
NEEDS_LOGIN = ("startosinstall: no user is logged in at the Mac's screen; the installer needs one (lab wording; "
               "erase-install#33)\n")
NEEDS_ROOT = "startosinstall: must be run as root (lab wording)\n"
NEEDS_FLAGS = ("startosinstall: --agreetolicense, --nointeraction, --user and --stdinpass are needed to run without a "
               "dialog (lab wording)\n")
FAILED_AUTH = "startosinstall: Error: could not authenticate the user (lab wording)\n"


def app_path(title):
    """Where the fetch puts the installer: /Applications/Install macOS Tahoe.app for the title `macOS Tahoe`."""
    return "%s/Install %s.app" % (APPLICATIONS, title)


def list_full_installers(host):
    installers = host.state.get("full_installers") or []
    if not installers:
        out("Finding available software\n" + NO_INSTALLERS)
        return 0
    out("Finding available software\nSoftware Update found the following full installers:\n")
    for entry in installers:
        out("* Title: %s, Version: %s, Size: %dKiB, Build: %s, Deferred: %s\n" % (
            entry["title"], entry["version"], entry["size_kib"], entry["build"], "YES" if entry.get("deferred") else "NO"))
    return 0


def _ticks(word, seconds):
    for percent in TICKS:
        time.sleep(seconds / len(TICKS))
        out("%s: %.1f%%\n" % (word, percent))
        sys.stdout.flush()


def fetch_full_installer(host, version, phase_seconds, free_bytes, prepare_bytes, not_enough):
    """`softwareupdate --fetch-full-installer --full-installer-version VERSION`: the installer app in /Applications."""
    if not is_root():
        raise Fail(1, "softwareupdate: --fetch-full-installer must run as root or an admin (lab wording)\n")
    entry = next((e for e in host.state.get("full_installers") or [] if e["version"] == version), None)
    out("Finding available software\n")
    sys.stdout.flush()
    if entry is None:
        raise Fail(1, NOT_FOUND)
    if free_bytes < entry["size_kib"] * 1024 + prepare_bytes:
        raise Fail(1, not_enough % ("Install " + entry["title"]))
    _ticks("Installing", phase_seconds(host.state, FETCH_SHARE))
    tool = host.fs(app_path(entry["title"]) + "/Contents/Resources/startosinstall")
    os.makedirs(os.path.dirname(tool), exist_ok=True)
    if not os.path.lexists(tool):
        os.symlink(SHIM_ENTRY, tool)
    with host.mutate() as mutable:
        mutable.state["fetched_installer"] = dict(entry)
    out("Install finished successfully\n")
    return 0


@command("/Applications/Install macOS Tahoe.app/Contents/Resources/startosinstall")
def cmd_startosinstall(host, args):
    """The fetched installer's tool: prepares the install and restarts into its build."""
    from .updates import password_matches, phase_seconds, volume_owners, SHUTDOWN_SHARE  # one family, one import

    if not is_root():
        raise Fail(1, NEEDS_ROOT)
    if not all(flag in args for flag in ("--agreetolicense", "--nointeraction", "--stdinpass")) or "--user" not in args:
        raise Fail(1, NEEDS_FLAGS)
    user = args[args.index("--user") + 1] if args.index("--user") + 1 < len(args) else ""
    password = sys.stdin.readline().rstrip("\n")
    if not host.state.get("console_user"):
        raise Fail(1, NEEDS_LOGIN)
    entry = host.state.get("fetched_installer")
    if not entry:
        raise Fail(1, "startosinstall: the installer is damaged or incomplete (lab wording)\n")
    if user not in volume_owners(host) or not password_matches(host, user, password):
        raise Fail(1, FAILED_AUTH)
    out("By using the agreetolicense option, you are agreeing that you have run this tool with the license only "
        "option and have read and agreed to the terms.\nIf you do not agree, press CTRL-C and cancel this process "
        "immediately.\nPreparing to run macOS Installer...\n")
    sys.stdout.flush()
    _ticks("Preparing", phase_seconds(host.state, PREPARE_SHARE))
    with host.mutate() as mutable:
        mutable.state["staged_update"] = {"version": entry["version"], "build": entry["build"],
                                          "label": "Install %s %s-%s" % (entry["title"], entry["version"],
                                                                         entry["build"])}
        mutable.state.pop("fetched_installer", None)
    # The installer restarts the Mac itself once prepared (an authenticated restart where FileVault is on).
    request_power(host, "authrestart", max(1.0, phase_seconds(host.state, SHUTDOWN_SHARE)))
    return 0
