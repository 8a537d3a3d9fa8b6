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
    type: str
    choices: [install, download]
    default: install
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


def console_uid(device="/dev/console"):
    """The uid of the user logged in at the Mac's screen; None at the login window (root owns the console)."""
    try:
        uid = os.stat(device).st_uid
    except OSError:
        return None
    return uid if uid != 0 else None


def install_argv(softwareupdate, launchctl, label, owner, uid, mode="install"):
    """softwareupdate's argv, through `launchctl asuser UID` when a user is logged in at the screen."""
    action = ["--download", label] if mode == "download" else ["--install", label, "--restart"]
    argv = [softwareupdate] + action + ["--agree-to-license", "--user", owner, "--stdinpass"]
    return [launchctl, "asuser", str(uid)] + argv if uid is not None else argv


def follow_install(argv, password, progress_file, label, started):
    """In the detached process: run softwareupdate, the password on its stdin, and record every line's meaning."""
    document = {"label": label, "started_at": started, "pid": os.getpid()}

    def progress(text, **final):
        write_progress(progress_file, dict(_softwareupdate.parse_install(text), updated_at=time.time(),
                                           finished=bool(final), **dict(document, **final)))

    try:
        rc, text = commands.follow(argv, password + "\n", progress)
    except OSError as error:
        rc, text = 127, "%s: %s\n" % (argv[0], error)
    progress(text, rc=rc)


def start_detached(argv, password, progress_file, label, started):
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
            follow_install(argv, password, progress_file, label, started)
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
    softwareupdate = commands.require_command(module, "softwareupdate")
    boot = commands.run(module, [commands.require_command(module, "sysctl"), "-n", "kern.bootsessionuuid"]).strip()
    uid = console_uid()
    argv = install_argv(softwareupdate, commands.require_command(module, "launchctl") if uid is not None else None,
                        params["label"], params["owner"], uid, params["mode"])
    os.makedirs(os.path.dirname(params["progress_file"]), exist_ok=True)
    started = time.time()
    pid = start_detached(argv, params["password"], params["progress_file"], params["label"], started)
    if pid is None:
        module.fail_json(msg="the process to follow softwareupdate --%s %s did not start" % (
            params["mode"], params["label"]))
    return {"changed": True, "pid": pid, "started_at": started, "boot_session": boot, "console_uid": uid,
            "msg": "started softwareupdate --%s %s%s" % (
                params["mode"], params["label"], " as uid %d (launchctl asuser)" % uid if uid is not None else "")}


def main():
    module = AnsibleModule(
        argument_spec=dict(label=dict(type="str", required=True), owner=dict(type="str", required=True),
                           password=dict(type="str", required=True, no_log=True),
                           progress_file=dict(type="str", required=True),
                           mode=dict(type="str", choices=["install", "download"], default="install")),
        supports_check_mode=True,
    )
    module.exit_json(**install(module))


if __name__ == "__main__":
    main()
