#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: macos_update_install
short_description: Start a macOS update's download or install over SSH, a volume owner's password on stdin
version_added: 0.2.0
description:
  - Starts C(softwareupdate --install LABEL --restart --agree-to-license --user OWNER --stdinpass) as root in a
    process of its own (a new session, detached from the SSH connection the restart ends), gives it the password on
    its stdin only (never in argv, where macOS 12's form C(--stdinpass PASSWORD) put it), and returns at once, as
    the update tools deployed on Apple silicon do from macOS 13 through 26 without anyone at the Mac.
  - With O(mode=download) it starts C(softwareupdate --download LABEL --agree-to-license --user OWNER --stdinpass)
    instead (macOS 14 and later authenticate a download on Apple silicon); the update is downloaded and prepared
    while the node goes on running what it runs, the password is proven (softwareupdate checks it after
    C(Downloaded)), and nothing restarts. A later O(mode=install) of the prepared update restarts within seconds.
  - With a user logged in at the Mac's screen (the owner of C(/dev/console) is not root), it runs through
    C(launchctl asuser UID), in that user's context; run outside it, softwareupdate never ends.
  - The detached process writes each line's meaning to O(progress_file) (JSON with C(label), C(started_at),
    C(pid), C(percent), C(phase) of C(finding), C(downloading), C(preparing) or C(downloaded), C(error), C(last),
    C(finished), C(rc)); M(macops.cluster.macos_update_wait) follows it. softwareupdate prints C(Downloading) lines
    with a percentage (the first 60 % download, the rest prepare), then C(Downloaded) and the title, and the Mac
    restarts right after.
  - With O(mode=fetch_installer) it starts C(softwareupdate --fetch-full-installer --full-installer-version
    O(installer_version)) instead, for a Mac that softwareupdate no longer offers the cluster's build; Apple's full
    installer (about 17 GB) lands in C(/Applications) while the node goes on running (C(Installing) lines with a
    percentage, then C(Install finished successfully)); nothing restarts and no password is needed.
  - With O(mode=installer) it runs the fetched installer's C(startosinstall --agreetolicense --forcequitapps
    --nointeraction --user OWNER --stdinpass) (O(installer_app); fetched first when it is not there), the password on
    its stdin, through C(launchctl asuser UID) of the user logged in at the Mac's screen (the installer needs
    one, erase-install#33) and the module fails without one. It prints C(Preparing) lines with a percentage and restarts the
    Mac into the installer's build when it is ready. It installs in place, nothing is erased.
  - Who is at the screen is the owner of C(/dev/console), as C(stat -f %u /dev/console) prints it.
  - Not an C(async) task on purpose. An async job's module file, arguments included, stays on the node until
    the job ends, and a restart ends it first. Here Ansible removes the module file when the module returns.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  label:
    description: The update's label as C(softwareupdate --list) prints it (C(macOS Tahoe 26.3-25D60)); it names the build.
    type: str
    required: true
  owner:
    description: A volume owner's account (C(--user)).
    type: str
    required: true
  password:
    description: Its password, given to softwareupdate on stdin.
    type: str
    required: true
  progress_file:
    description: Where to write the progress (JSON, readable by everyone; it holds only softwareupdate's lines' meaning).
    type: str
    required: true
  mode:
    description:
      - V(install) downloads and prepares what is not prepared yet, then restarts into the new build.
      - V(download) downloads and prepares only (softwareupdate checks the owner after it); the node restarts nothing.
      - V(fetch_installer) fetches Apple's full installer of O(installer_version); the node restarts nothing.
      - V(installer) installs with the full installer's startosinstall (fetched first when O(installer_app) is not
        there) and restarts into its build.
    type: str
    choices: [install, download, fetch_installer, installer]
    default: install
  installer_version:
    description: The full installer's version (C(26.3)), as C(softwareupdate --list-full-installers) lists it.
    type: str
  installer_app:
    description: Where the fetch puts the full installer (C(/Applications/Install macOS Tahoe.app)).
    type: path
notes:
  - Needs root (C(become)). In check mode nothing runs; the result predicts a change.
seealso:
  - module: macops.cluster.macos_update_wait
  - module: macops.cluster.macos_update_owner
"""

EXAMPLES = r"""
- name: Start the planned update
  macops.cluster.macos_update_install:
    label: macOS Tahoe 26.3-25D60
    owner: "{{ macos_update_owner }}"
    password: "{{ macos_update_owner_password }}"
    progress_file: /Library/Application Support/macops/update/progress.json
  become: true
  no_log: true
  register: __install

- name: Download and prepare it first, while the node keeps serving
  macops.cluster.macos_update_install:
    label: macOS Tahoe 26.3-25D60
    owner: "{{ macos_update_owner }}"
    password: "{{ macos_update_owner_password }}"
    progress_file: /Library/Application Support/macops/update/progress.json
    mode: download
  become: true
  no_log: true

- name: Bring a Mac that is not offered the cluster's build there with Apple's full installer
  macops.cluster.macos_update_install:
    label: Install macOS Tahoe 26.3-25D60
    owner: "{{ macos_update_owner }}"
    password: "{{ macos_update_owner_password }}"
    progress_file: /Library/Application Support/macops/update/progress.json
    mode: installer
    installer_version: "26.3"
    installer_app: /Applications/Install macOS Tahoe.app
  become: true
  no_log: true
"""

RETURN = r"""
pid:
  description: The detached process that runs softwareupdate and writes the progress (its process group too).
  returned: success
  type: int
started_at:
  description: When it started (epoch seconds), as the progress file records it.
  returned: success
  type: float
boot_session:
  description: C(kern.bootsessionuuid) read right before the start; a restart makes a new one.
  returned: success
  type: str
console_uid:
  description: The logged-in console user's uid the install runs as (C(launchctl asuser)), null at the login window.
  returned: success
  type: int
"""

import json
import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils import _softwareupdate


def write_progress(path, document):
    temporary = "%s.%d.tmp" % (path, os.getpid())
    with open(temporary, "w") as handle:
        json.dump(document, handle)
    os.chmod(temporary, 0o644)
    os.rename(temporary, path)


def console_uid(module):
    """The uid of the user logged in at the Mac's screen (the owner of /dev/console); None at the login window (root
    owns the console)."""
    stat = commands.run(module, [commands.require_command(module, "stat"), "-f", "%u", "/dev/console"]).strip()
    return int(stat) if stat.isdigit() and int(stat) != 0 else None


def _as_console_user(argv, launchctl, uid):
    return [launchctl, "asuser", str(uid)] + argv if uid is not None else argv


def install_argv(softwareupdate, launchctl, label, owner, uid, mode="install"):
    """softwareupdate's argv, through `launchctl asuser UID` when a user is logged in at the screen."""
    action = ["--download", label] if mode == "download" else ["--install", label, "--restart"]
    return _as_console_user([softwareupdate] + action + ["--agree-to-license", "--user", owner, "--stdinpass"],
                            launchctl, uid)


def fetch_argv(softwareupdate, version):
    """Apple's full installer of `version` into /Applications (as root: no password, no user context needed)."""
    return [softwareupdate, "--fetch-full-installer", "--full-installer-version", version]


def installer_argv(app, launchctl, owner, uid):
    """The full installer's startosinstall, in the context of the user at the screen, as erase-install runs it."""
    return _as_console_user([os.path.join(app, "Contents", "Resources", "startosinstall"), "--agreetolicense",
                             "--forcequitapps", "--nointeraction", "--user", owner, "--stdinpass"], launchctl, uid)


def steps(module, uid):
    """[(argv, takes the password on stdin)] the detached process runs in turn, each only after the one before
    succeeded."""
    params = module.params
    softwareupdate = commands.require_command(module, "softwareupdate")
    launchctl = commands.require_command(module, "launchctl") if uid is not None else None
    mode = params["mode"]
    if mode in ("install", "download"):
        return [(install_argv(softwareupdate, launchctl, params["label"], params["owner"], uid, mode), True)]
    if not params["installer_version"] or (mode == "installer" and not params["installer_app"]):
        module.fail_json(msg="mode=%s needs installer_version%s" % (
            mode, " and installer_app" if mode == "installer" else ""))
    fetch = [(fetch_argv(softwareupdate, params["installer_version"]), False)]
    if mode == "fetch_installer":
        return fetch
    if uid is None:
        module.fail_json(msg="nobody is logged in at the Mac's screen: the full installer's startosinstall needs a "
                             "user there (log the owner in, at the Mac or by Screen Sharing, and run again)")
    install = [(installer_argv(params["installer_app"], launchctl, params["owner"], uid), True)]
    return install if os.path.isdir(params["installer_app"]) else fetch + install


def follow_install(plan, password, progress_file, label, started):
    """In the detached process: run each step, the password on the stdin of those that take it, and record every
    line's meaning (the steps' output read as one)."""
    document = {"label": label, "started_at": started, "pid": os.getpid()}
    text, rc = "", 0

    def progress(more, **final):
        write_progress(progress_file, dict(_softwareupdate.parse_install(text + more), updated_at=time.time(),
                                           finished=bool(final), **dict(document, **final)))

    for argv, with_password in plan:
        try:
            rc, output = commands.follow(argv, password + "\n" if with_password else "", progress)
        except OSError as error:
            rc, output = 127, "%s: %s\n" % (argv[0], error)
        text += output
        if rc != 0:
            break
    progress("", rc=rc)


def start_detached(plan, password, progress_file, label, started):
    """Fork a process in a session of its own that follows the install; its pid once its first progress is written.
    The module returns then, and Ansible removes the module's file (the password in it) from the node."""
    ready, signal = os.pipe()
    pid = os.fork()
    if pid == 0:  # the follower: no stdin, stdout or stderr of the module's, so SSH does not wait for it
        try:
            os.close(ready)
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for descriptor in (0, 1, 2):
                os.dup2(null, descriptor)
            write_progress(progress_file, {"label": label, "started_at": started, "pid": os.getpid(),
                                           "phase": "finding", "percent": None, "downloaded": False, "error": None,
                                           "last": None, "finished": False, "updated_at": time.time()})
            os.write(signal, b"started")
            os.close(signal)
            follow_install(plan, password, progress_file, label, started)
        finally:
            os._exit(0)  # never back into the module: Ansible's wrapper cleans up in the parent only
    os.close(signal)
    answer = os.read(ready, 16)
    os.close(ready)
    return pid if answer == b"started" else None


def install(module):
    params = module.params
    if module.check_mode:
        return {"changed": True, "pid": None, "started_at": None, "boot_session": None, "console_uid": None,
                "msg": "would %s %s" % (params["mode"], params["label"])}
    boot = commands.run(module, [commands.require_command(module, "sysctl"), "-n", "kern.bootsessionuuid"]).strip()
    uid = console_uid(module)
    plan = steps(module, uid)
    os.makedirs(os.path.dirname(params["progress_file"]), exist_ok=True)
    started = time.time()
    pid = start_detached(plan, params["password"], params["progress_file"], params["label"], started)
    if pid is None:
        module.fail_json(msg="the process to follow the %s of %s did not start" % (params["mode"], params["label"]))
    return {"changed": True, "pid": pid, "started_at": started, "boot_session": boot, "console_uid": uid,
            "msg": "started %s for %s%s" % (
                " then ".join("%s %s" % (os.path.basename(run[0]), run[1]) for run in (
                    argv[3:] if argv[1:2] == ["asuser"] else argv for argv, _password in plan)),
                params["label"], " as uid %d (launchctl asuser)" % uid if uid is not None else "")}


def main():
    module = AnsibleModule(
        argument_spec=dict(label=dict(type="str", required=True), owner=dict(type="str", required=True),
                           password=dict(type="str", required=True, no_log=True),
                           progress_file=dict(type="str", required=True),
                           mode=dict(type="str", choices=["install", "download", "fetch_installer", "installer"],
                                     default="install"),
                           installer_version=dict(type="str"), installer_app=dict(type="path")),
        supports_check_mode=True,
    )
    module.exit_json(**install(module))


if __name__ == "__main__":
    main()
