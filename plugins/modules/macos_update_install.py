#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: macos_update_install
short_description: Install a macOS update over SSH with a volume owner's password on stdin, writing its progress
version_added: 0.2.0
description:
  - Runs C(softwareupdate --install LABEL --restart --agree-to-license --user OWNER --stdinpass) as root, the
    password on its stdin only (never in argv, where macOS 12's form C(--stdinpass PASSWORD) put it), as the update
    tools deployed on Apple silicon do from macOS 13 through 26 without anyone at the Mac.
  - Writes each line's meaning to O(progress_file) (JSON with C(percent), C(phase) of C(finding), C(downloading),
    C(preparing) or C(downloaded), C(error), C(last), C(finished), C(rc)) so that M(macops.cluster.macos_update_wait)
    can show it while the job runs. softwareupdate prints C(Downloading) lines with a percentage (the first 60 %
    download, the rest prepare), then C(Downloaded) and the title, and the Mac restarts right after.
  - Run it with C(async) and C(poll 0), since the restart ends the connection (and, on a Mac, often the job).
  - Fails with softwareupdate's own error line (C(Failed to authenticate), C(No such update), C(Not enough free disk
    space), ...) when the install stops before the restart.
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
notes:
  - Needs root (C(become)). In check mode nothing runs; the result predicts a change.
seealso:
  - module: macops.cluster.macos_update_wait
  - module: macops.cluster.macos_update_owner
"""

EXAMPLES = r"""
- name: Install the planned update
  macops.cluster.macos_update_install:
    label: macOS Tahoe 26.3-25D60
    owner: "{{ macos_update_owner }}"
    password: "{{ macos_update_owner_password }}"
    progress_file: /Library/Application Support/macops/update/progress.json
  become: true
  async: 5400
  poll: 0
  register: __install
"""

RETURN = r"""
downloaded:
  description: softwareupdate printed C(Downloaded:) (the restart follows).
  returned: success
  type: bool
phase:
  description: The last phase seen (C(finding), C(downloading), C(preparing), C(downloaded)).
  returned: always
  type: str
last:
  description: softwareupdate's last line.
  returned: always
  type: str
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


def install(module):
    params = module.params
    if module.check_mode:
        return {"changed": True, "downloaded": False, "phase": "finding", "last": None,
                "msg": "would install %s" % params["label"]}
    softwareupdate = commands.require_command(module, "softwareupdate")
    os.makedirs(os.path.dirname(params["progress_file"]), exist_ok=True)
    argv = [softwareupdate, "--install", params["label"], "--restart", "--agree-to-license", "--user", params["owner"],
            "--stdinpass"]
    started = time.time()

    def progress(text):
        write_progress(params["progress_file"], dict(_softwareupdate.parse_install(text), label=params["label"],
                                                     started_at=started, updated_at=time.time(), finished=False))

    rc, text = commands.follow(argv, params["password"] + "\n", progress)
    found = _softwareupdate.parse_install(text)
    write_progress(params["progress_file"], dict(found, label=params["label"], started_at=started,
                                                 updated_at=time.time(), finished=True, rc=rc))
    result = {"changed": True, "downloaded": found["downloaded"], "phase": found["phase"], "last": found["last"],
              "rc": rc}
    if rc != 0 or found["error"]:
        module.fail_json(msg="softwareupdate --install %s failed (exit status %d): %s" % (
            params["label"], rc, found["error"] or found["last"] or "no output"), **result)
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(label=dict(type="str", required=True), owner=dict(type="str", required=True),
                           password=dict(type="str", required=True, no_log=True),
                           progress_file=dict(type="str", required=True)),
        supports_check_mode=True,
    )
    module.exit_json(**install(module))


if __name__ == "__main__":
    main()
