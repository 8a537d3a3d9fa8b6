#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: macos_update_owner
short_description: Check that an account can authorize a macOS update on this Mac (a volume owner, and its password)
version_added: 0.2.0
description:
  - On Apple silicon, C(softwareupdate --install ... --user ACCOUNT --stdinpass) installs only with the password of a
    volume owner. This module checks both before update-macos.yml changes anything, and changes nothing itself.
  - Reads the account's C(GeneratedUID) (C(dscl . -read /Users/ACCOUNT GeneratedUID)) and finds it among the volume's
    owners (C(diskutil apfs listUsers /)), by GUID (a Personal Recovery User can say C(Volume Owner) too).
  - With O(password), checks it with C(diskutil apfs unlockVolume VOLUME -user GUID -stdinpassphrase -verify), the
    password on stdin only (never in argv). What that command prints is not confirmed by a capture; only its exit
    status is read.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  owner:
    description: The account update-macos.yml names to softwareupdate (C(macos_update_owner)).
    type: str
    required: true
  password:
    description: Its password, to verify; omitted, only the ownership is checked.
    type: str
  volume:
    description: The volume whose owners count (the boot volume).
    type: str
    default: /
notes:
  - Needs root for the password check (C(become)).
seealso:
  - module: macops.cluster.node_facts
"""

EXAMPLES = r"""
- name: Check the update's owner on every node
  macops.cluster.macos_update_owner:
    owner: "{{ macos_update_owner }}"
    password: "{{ macos_update_owner_password }}"
  become: true
  no_log: true
  register: __owner
"""

RETURN = r"""
owner:
  description: O(owner).
  returned: always
  type: str
  sample: admin
guid:
  description: The account's C(GeneratedUID), or null when the account does not exist.
  returned: always
  type: str
  sample: 5D1C7A3E-2F4B-4C9A-9E61-0B7F3D2A8C11
volume_owner:
  description: The account is one of the volume's owners.
  returned: always
  type: bool
password_ok:
  description: The password verified; null when none was given or the account owns no volume.
  returned: always
  type: bool
why:
  description: Why the account is no owner, or why its password did not verify; null when all is well.
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _apfs_users
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands


def generated_uid(text):
    """The GUID in `dscl . -read /Users/NAME GeneratedUID`'s answer, or None."""
    for line in (text or "").splitlines():
        key, _sep, value = line.partition(":")
        if key.strip() == "GeneratedUID" and value.strip():
            return value.strip().upper()
    return None


def check(module):
    owner, volume = module.params["owner"], module.params["volume"]
    dscl, diskutil = commands.require_command(module, "dscl"), commands.require_command(module, "diskutil")
    found = {"changed": False, "owner": owner, "guid": None, "volume_owner": False, "password_ok": None, "why": None}
    rc, stdout, stderr = commands.result_of([dscl, ".", "-read", "/Users/%s" % owner, "GeneratedUID"])
    found["guid"] = generated_uid(stdout) if rc == 0 else None
    if not found["guid"]:
        found["why"] = "no account %s (dscl: %s)" % (owner, (stderr or stdout).strip() or "no GeneratedUID")
        return found
    listing = commands.run(module, [diskutil, "apfs", "listUsers", volume])
    found["volume_owner"] = _apfs_users.is_volume_owner(commands.parse(module, _apfs_users.parse_users, listing),
                                                        found["guid"])
    if not found["volume_owner"]:
        found["why"] = "its GeneratedUID %s is not among the owners diskutil apfs listUsers %s lists" % (
            found["guid"], volume)
        return found
    if module.params["password"] is not None:
        rc, _stdout, _stderr = commands.result_of(
            [diskutil, "apfs", "unlockVolume", volume, "-user", found["guid"], "-stdinpassphrase", "-verify"],
            stdin_text=module.params["password"] + "\n")
        found["password_ok"] = rc == 0
        if rc != 0:
            found["why"] = "diskutil apfs unlockVolume -verify refused the password (exit status %d)" % rc
    return found


def main():
    module = AnsibleModule(
        argument_spec=dict(owner=dict(type="str", required=True), password=dict(type="str", no_log=True),
                           volume=dict(type="str", default="/")),
        supports_check_mode=True,
    )
    module.exit_json(**check(module))


if __name__ == "__main__":
    main()
