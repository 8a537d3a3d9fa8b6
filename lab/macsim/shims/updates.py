"""macOS updates: softwareupdate (--list, --install), and the volume owners an install needs (diskutil apfs
listUsers, listcryptousers and unlockVolume -verify; dscl's GeneratedUID comes from user_guid).

What an install does on Apple silicon, as the deployed update tools run it (Macjutsu/super, grahampugh/erase-install):
`softwareupdate --install <label> --restart --agree-to-license --user <owner> --stdinpass` run as root with
the owner's password on stdin prints the `Downloading: n%` ticks, each newline-first as softwareupdate writes
them (the update's first 60 % download, the rest prepare), `Downloaded: <title>`, then restarts the Mac into the new build (an authenticated restart:
FileVault does not stop it at the unlock screen). The lab spreads the lines over the host's
update_seconds (`maclab offer-update ... --seconds U`), stages the new build in state.json (staged_update)
and asks PID 1 for the restart; the lab's supervisor boots the host into the staged build. An account that
is no volume owner, or a wrong password, fails after `Downloaded:` with "Failed to authenticate" (as users
report on 14.5, 15.3, 15.4). Unconfirmed wordings are marked so below.

`softwareupdate --download <label> --agree-to-license --user <owner> --stdinpass` (macOS 14 and later on Apple
silicon, authenticated as super runs it) downloads and prepares the same way, checks the password after
`Downloaded:` and restarts nothing: the update is prepared (state.json's prepared_update). An `--install --restart`
of a prepared update then spends PREPARED_SHARE of U before `Downloaded:` and restarts (a prepared update restarts
within seconds of the install command: super's logs). The lab's own wording for the end of a download: "Done.".

Faults (state.json's faults): update_hang (the install stops after `Downloaded:` and never restarts,
super#217; the staged build boots at the next restart, as a manual `restart` finished it there);
update_auth_fails ("Failed to authenticate" right after `Downloaded:` with the right password, as users
report on 14.5, 15.3 and 15.4: super#219, #277, #293; "install": at an install only, its download authenticates)."""
import random
import subprocess
import sys
import time
import uuid

from ..formats import admin
from . import installers
from ..profiles import os_info
from .power import request_power
from .registry import command
from .state import Fail, err, is_root, out

OWNER = "admin"  # the lab's admin (layout.ADMIN_USER) owns every host's volume, as a Mac's first account does
PERSONAL_RECOVERY_GUID = "EBC6C064-0000-11AA-AA11-00306543ECAC"  # FileVault's recovery key user, on every Mac
DEFAULT_UPDATE_SECONDS = 6.0
# Unconfirmed wordings (no capture found): the lab's own, each with the words the tools match.
NO_SUCH_UPDATE = "No such update\nNo updates are available.\n"
NOT_ROOT = "softwareupdate: the --install of an update that restarts must run as root (lab wording)\n"
NEEDS_CREDENTIALS = ("softwareupdate: on Apple silicon an install with --restart needs --user and --stdinpass "
                     "(macOS asks in a dialog otherwise; lab wording)\n")
NOT_ENOUGH_DISK = "Not enough free disk space to download %s\n"
FAILED_AUTH = "Failed to authenticate\n"
WRONG_PASSPHRASE = "Error unlocking APFS Volume: The given passphrase is incorrect (-69749) (lab wording)\n"
PREPARE_BYTES = 15 * 10 ** 9  # room for preparing beside the download (super asks 15 GB for an update)
# Each phase's share of U (the host's update_seconds, `maclab offer-update --seconds U`), each jittered by the host's
# update_jitter (`--jitter J`: a factor drawn from 1 - J to 1 + J per phase): the download and preparation take U; the
# install of a prepared update PREPARED_SHARE before it restarts; the shutdown SHUTDOWN_SHARE (SSH still answers, on the
# old boot session); the install at boot INSTALL_AT_BOOT_SHARE beyond the host's boot (SSH down).
PREPARED_SHARE = 0.05
SHUTDOWN_SHARE = 0.05
INSTALL_AT_BOOT_SHARE = 0.25
TICKS = (0.10, 10.0, 25.0, 40.0, 53.9, 60.0, 75.0, 90.0, 100.0)


def user_guid(host, name):
    """The account's GeneratedUID: stable per host and name."""
    return str(uuid.uuid5(uuid.UUID(host.state["hardware"]["platform_uuid"]), "user:" + name)).upper()


def volume_owners(host):
    return list(host.state.get("volume_owners", [OWNER]))


def password_matches(host, name, password):
    """Whether `password` is the account's (its hash in the host's /etc/shadow, checked with openssl)."""
    try:
        with open(host.fs("/etc/shadow")) as handle:
            entry = [line.split(":")[1] for line in handle if line.split(":")[0] == name]
    except OSError:
        return False
    if not entry or not entry[0].startswith("$6$"):
        return False
    salt = entry[0].split("$")[2]
    made = subprocess.run(["openssl", "passwd", "-6", "-salt", salt, "-stdin"], input=password,
                          stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    return made == entry[0]


def _options(args):
    """({flag: value or True}, [positional]) of softwareupdate's arguments."""
    takes_value = ("--user", "-i", "--install", "--download", "-d")
    flags, rest, i = {}, [], 0
    while i < len(args):
        if args[i] in takes_value and i + 1 < len(args):
            flags[args[i]] = args[i + 1]
            i += 2
        else:
            if args[i].startswith("-"):
                flags[args[i]] = True
            else:
                rest.append(args[i])
            i += 1
    return flags, rest


def _free_bytes(host):
    from .files import disk_space  # the df and diskutil figures
    return disk_space(host)[1]


@command("/usr/sbin/softwareupdate")
def cmd_softwareupdate(host, args):
    if args and args[0] in ("-l", "--list"):
        stdout, stderr = admin.softwareupdate_list(host.state.get("pending_updates", []))
        out(stdout)
        err(stderr)
        return 0
    if args[:1] == ["--list-full-installers"]:
        return installers.list_full_installers(host)
    if args[:1] == ["--fetch-full-installer"]:
        version = args[args.index("--full-installer-version") + 1] if "--full-installer-version" in args[:-1] else None
        return installers.fetch_full_installer(host, version, phase_seconds, _free_bytes(host), PREPARE_BYTES,
                                               NOT_ENOUGH_DISK)
    flags, rest = _options(args)
    label = flags.get("--install") or flags.get("-i") or flags.get("--download") or flags.get("-d")
    if not label:
        raise Fail(1, "usage: softwareupdate <cmd> [<args> ...] (the lab simulates --list, --install, --download, "
                      "--list-full-installers and --fetch-full-installer)\n")
    return install(host, label, flags, download_only=label in (flags.get("--download"), flags.get("-d")))


def install(host, label, flags, download_only=False):
    restart = bool(flags.get("--restart") or flags.get("-R")) and not download_only
    if (restart or download_only) and not is_root():
        raise Fail(1, NOT_ROOT)
    if (restart or download_only) and not (flags.get("--user") and flags.get("--stdinpass")):
        raise Fail(1, NEEDS_CREDENTIALS)
    password = sys.stdin.readline().rstrip("\n") if flags.get("--stdinpass") else ""
    out("Software Update Tool\n\nFinding available software\n")
    sys.stdout.flush()
    update = next((u for u in host.state.get("pending_updates", []) if u["label"] == label), None)
    if update is None:
        raise Fail(1, NO_SUCH_UPDATE)
    title = update.get("title") or label
    if _free_bytes(host) < int(update.get("size_kib", 0)) * 1024 + PREPARE_BYTES:
        raise Fail(1, NOT_ENOUGH_DISK % title)
    out("Downloading %s\n" % title)
    prepared = host.state.get("prepared_update") == label and not download_only
    seconds = phase_seconds(host.state, PREPARED_SHARE if prepared else 1.0)
    # Newline-first, as softwareupdate writes its ticks: the last one has no newline after it until the next.
    for percent in TICKS:
        out("\nDownloading: %.2f%%" % percent)
        sys.stdout.flush()
        time.sleep(seconds / len(TICKS))
    out("\nDownloaded: %s\n" % title)
    sys.stdout.flush()
    user = flags.get("--user")
    refused = host.state.get("faults", {}).get("update_auth_fails")  # True, or "install": installs only
    if user and (user not in volume_owners(host) or not password_matches(host, user, password)
                 or refused is True or (refused == "install" and not download_only)):
        raise Fail(1, FAILED_AUTH)
    with host.mutate() as mutable:
        mutable.state["prepared_update"] = label
        if not download_only:
            mutable.state["staged_update"] = {"version": update["version"], "build": update.get("build") or
                                              label.rpartition("-")[2], "label": label}
    if download_only or not restart:
        out("Done.\n" if download_only else "Done with %s\nDone.\n" % title)
        return 0
    if host.state.get("faults", {}).get("update_hang"):
        while True:  # the black screen with a progress bar: SSH still answers, nothing restarts
            time.sleep(3600)
    # An update's restart is an authenticated one (FileVault's unlock skipped), where the Mac supports it.
    unsupported = host.state.get("faults", {}).get("authrestart_unsupported")
    request_power(host, "reboot" if unsupported else "authrestart", max(1.0, phase_seconds(host.state, SHUTDOWN_SHARE)))
    return 0


def phase_seconds(state, share):
    """One phase's seconds: `share` of the host's U, jittered by its update_jitter."""
    seconds = float(state.get("update_seconds", DEFAULT_UPDATE_SECONDS)) * share
    jitter = float(state.get("update_jitter", 0.0))
    return seconds * random.uniform(1.0 - jitter, 1.0 + jitter) if jitter else seconds


def diskutil_apfs(host, args):
    """diskutil apfs listUsers / | listcryptousers / | unlockVolume / -user GUID -stdinpassphrase -verify."""
    verb = args[0] if args else ""
    if verb in ("listUsers", "listcryptousers") and args[1:2] == ["/"]:
        owners = [user_guid(host, name) for name in volume_owners(host)]
        users = [(guid, "Local Open Directory User") for guid in owners] + [
            (PERSONAL_RECOVERY_GUID, "Personal Recovery User")]
        lines = ["Cryptographic users for disk3s5 (%d found)" % len(users), "|"]
        for index, (guid, kind) in enumerate(users):
            bar = "|" if index < len(users) - 1 else " "
            lines.append("+-- %s" % guid)
            lines.append("%s   Type: %s" % (bar, kind))
            if verb == "listUsers":  # a recovery user can show Volume Owner: Yes too: match by GUID
                lines.append("%s   Volume Owner: Yes" % bar)
            if index < len(users) - 1:
                lines.append("|")
        out("\n".join(lines) + "\n")
        return 0
    if verb == "unlockVolume" and "-verify" in args and "-stdinpassphrase" in args and "-user" in args:
        if not is_root():
            raise Fail(1, "Error: unlockVolume requires root (lab wording)\n")
        guid = args[args.index("-user") + 1].upper()
        names = [name for name in volume_owners(host) if user_guid(host, name) == guid]
        password = sys.stdin.readline().rstrip("\n")
        if not names or not password_matches(host, names[0], password):
            raise Fail(1, WRONG_PASSPHRASE)
        out("Passphrase verified for cryptographic user %s on disk3s5 (lab wording)\n" % guid)
        return 0
    raise Fail(1, "Could not find disk: %s\n" % " ".join(args[1:2]))


def staged_boot(state):
    """At a restart: the staged build boots (its update leaves the list). The seconds macOS then installs it before
    the host is up (SSH down), or 0 when nothing was staged."""
    staged = state.pop("staged_update", None)
    if not staged:
        return 0
    state["os"] = os_info(staged["version"], staged["build"])
    state.pop("prepared_update", None)
    state["pending_updates"] = [u for u in state.get("pending_updates", []) if u.get("label") != staged["label"]]
    slows = state.get("faults", {}).pop("update_slows", None)
    if slows:
        state["slow_percent"] = slows  # fault update-slows: the new build is slower (the supervisor's throttle)
    return max(phase_seconds(state, INSTALL_AT_BOOT_SHARE), 0.01)

