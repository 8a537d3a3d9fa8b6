#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: mac_state
short_description: Read a Mac's macOS version, free disk space, FileVault, Remote Login and user in one run
version_added: 0.1.0
description:
  - Reads what the preflight checks need beyond C(system_profiler), in one module run.
  - Runs C(/bin/df -k PATH) and reports the size and the free space (the C(Available) column) of
    the volume that holds O(path).
  - Runs C(/usr/bin/fdesetup status); FileVault counts as on when it says C(FileVault is On), or
    when its enablement is pending (C(will be enabled after the next restart), or C(Deferred
    enablement appears to be active)), because then a plain reboot stops at the pre-boot unlock
    screen.
  - Runs C(/bin/launchctl print system/com.openssh.sshd); Remote Login is on when launchd knows
    the job (exit status 0). Only the exit status is read.
  - Runs C(/usr/bin/sw_vers) for the macOS version and build.
  - Sets the facts C(user_id) and C(user_dir) of the connecting user (from the password database, as
    the C(user) subset of M(ansible.builtin.setup) does), so a play needs no setup run for them.
  - Read-only; never reports a change.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
  - macops.cluster.attributes.facts
options:
  path:
    description: A path on the volume to measure, given to C(df) as is; C(/) is the boot volume.
    type: str
    default: /
notes:
  - The commands run by absolute path, since a non-interactive SSH session has a minimal C(PATH).
  - Fails when C(df) or C(fdesetup status) fails, or when C(df) prints something it cannot
    parse. A failing C(launchctl print) only means Remote Login is off.
  - C(fdesetup status) and C(launchctl print) of the system domain work as any user; no
    C(become) is needed.
seealso:
  - module: macops.cluster.system_profiler
"""

EXAMPLES = r"""
- name: Read disk space, FileVault and Remote Login
  macops.cluster.mac_state:
  register: __preflight_state

- name: Stop when less than 100 GiB is free
  ansible.builtin.assert:
    that: __preflight_state.boot_volume.free_gb >= 100
    fail_msg: "{{ __preflight_state.boot_volume.free_gb }} GiB free on /"

- name: Measure the volume that holds the models
  macops.cluster.mac_state:
    path: /Volumes/Models
"""

RETURN = r"""
macos:
  description: The macOS version and build from C(sw_vers).
  returned: always
  type: dict
  contains:
    version:
      description: C(ProductVersion).
      type: str
      sample: "26.2"
    build:
      description: C(BuildVersion).
      type: str
      sample: 25C56
ansible_facts:
  description: Facts about the connecting user.
  returned: always
  type: dict
  contains:
    user_id:
      description: The user's name.
      type: str
      sample: admin
    user_dir:
      description: The user's home directory.
      type: str
      sample: /Users/admin
boot_volume:
  description: Size and free space of the volume that holds O(path), from C(df -k).
  returned: always
  type: dict
  contains:
    path:
      description: O(path).
      type: str
      sample: /
    size_kib:
      description: Size of the volume in KiB (C(1024-blocks)).
      type: int
      sample: 971350180
    free_kib:
      description: Space available to users in KiB (C(Available); 0 when df prints it negative).
      type: int
      sample: 650553916
    free_gb:
      description: RV(boot_volume.free_kib) in GiB (divided by 1048576), rounded to one decimal.
      type: float
      sample: 620.4
filevault:
  description: The FileVault state from C(fdesetup status).
  returned: always
  type: dict
  contains:
    "on":
      description:
        - The next boot stops at the pre-boot unlock screen, because FileVault is on or its enablement is
          pending (RV(filevault.state)).
      type: bool
      sample: false
    state:
      description:
        - C(on), C(off), or C(pending) (C(will be enabled after the next restart), or a deferred
          enablement, which macOS completes at the user's next logout or login; the next restart
          needs a person at the Mac, and C(fdesetup authrestart) cannot skip it yet).
      type: str
      sample: "off"
    status:
      description: What C(fdesetup status) printed, trimmed.
      type: str
      sample: FileVault is Off.
remote_login:
  description: Remote Login (SSH) is on, that is, launchd has the job C(com.openssh.sshd) in the system domain.
  returned: always
  type: bool
  sample: true
remote_login_detail:
  description: C(launchd job com.openssh.sshd loaded) or C(launchd job com.openssh.sshd not loaded).
  returned: always
  type: str
  sample: launchd job com.openssh.sshd loaded
"""

import os
import pwd

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _df, _fdesetup
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._sw_vers import parse_full
from ansible_collections.macops.cluster.plugins.module_utils._module_commands import parse, succeeded

SW_VERS = "/usr/bin/sw_vers"
DF = "/bin/df"
FDESETUP = "/usr/bin/fdesetup"
LAUNCHCTL = "/bin/launchctl"
SSHD_JOB = "com.openssh.sshd"


def run(module, argv, check_rc=True):
    """(rc, stdout, stderr) of argv; a missing binary, or a non-zero exit with check_rc, fails the module."""
    command = " ".join(argv)
    try:
        rc, stdout, stderr = commands.execute(argv, commands.READ_TIMEOUT_SECONDS)
    except OSError as exc:
        module.fail_json(msg="cannot run `%s`: %s (this module runs on macOS only)" % (command, exc))
    if check_rc:
        succeeded(module, argv, (rc, stdout, stderr))
    return rc, stdout, stderr


def read_boot_volume(module, path):
    argv = [DF, "-k", path]
    volume = parse(module, _df.parse, run(module, argv)[1], " ".join(argv))
    return {"path": path, "size_kib": volume["size_kib"], "free_kib": volume["free_kib"],
            "free_gb": _df.gib(volume["free_kib"])}


def read_filevault(module):
    return parse(module, _fdesetup.parse_status, run(module, [FDESETUP, "status"])[1])


def read_remote_login(module):
    # Exit status 113 ("Could not find service"): launchd has no sshd job, Remote Login is off.
    rc = run(module, [LAUNCHCTL, "print", "system/" + SSHD_JOB], check_rc=False)[0]
    return rc == 0, "launchd job %s %s" % (SSHD_JOB, "loaded" if rc == 0 else "not loaded")


def read_macos(module):
    versions = parse(module, parse_full, run(module, [SW_VERS])[1])
    return {"version": versions["product_version"], "build": versions["build_version"]}


def read_user():
    """The connecting user's name and home, as setup's user subset reports them."""
    entry = pwd.getpwuid(os.getuid())
    return {"user_id": entry.pw_name, "user_dir": entry.pw_dir}


def main():
    module = AnsibleModule(
        argument_spec=dict(path=dict(type="str", default="/")),
        supports_check_mode=True,
    )
    macos = read_macos(module)
    boot_volume = read_boot_volume(module, module.params["path"])
    filevault = read_filevault(module)
    remote_login, remote_login_detail = read_remote_login(module)
    module.exit_json(changed=False, macos=macos, ansible_facts=read_user(), boot_volume=boot_volume, filevault=filevault,
                     remote_login=remote_login, remote_login_detail=remote_login_detail)


if __name__ == "__main__":
    main()
