#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: macos_update_wait
short_description: Follow a Mac's macOS download or install and wait for its restart into the new build
version_added: 0.2.0
description:
  - Runs on the controller (an action plugin). While the node's install runs (started by
    M(macops.cluster.macos_update_install)), shows its progress file whenever it moves (C(downloading 53 %),
    C(preparing 75 %)). Only a progress file of this install counts (its C(label) and C(started_at)).
  - Done when the node answers with a new boot session (C(kern.bootsessionuuid) other than O(boot_session)) and
    C(sw_vers -buildVersion) says O(build); fails when it says another build.
  - Fails at once when softwareupdate stopped before the restart with an error line (such as C(Failed to
    authenticate)) or an exit status before C(Downloaded), or when the process that follows it (O(pid)) is gone with
    no result and no download done. An exit after C(Downloaded) is the Mac shutting down, the restart follows.
  - A node that stops answering is restarting, not failed (macOS installs the update at boot, SSH down), and has
    O(restart_timeout) seconds from its first unanswered look to come back on its new boot session. No restart is
    ever forced on a node that does not answer.
  - A node that printed C(Downloaded) and still answers on its old boot session O(deadline) seconds later (an
    install at the login window can sit at a progress bar, super#217) is restarted, with C(fdesetup authrestart)
    where O(filevault) (the password on its stdin, as a plist), else with O(restart_command); RV(restarted_by_deadline)
    says so. A download still moving is never restarted (that would lose it).
  - An install that shows no progress for O(stall_timeout) seconds before its download is done (or never starts)
    is stopped (its process group ended) and the wait fails with RV(code) C(macos_update_stalled); the node keeps
    its old build.
  - With O(restart=false) it follows a download and preparation (M(macops.cluster.macos_update_install)
    O(macops.cluster.macos_update_install#module:mode=download)) instead, while the node goes on serving. Done when
    softwareupdate ended after C(Downloaded) with status 0 (RV(downloaded)); fails on its error line (a wrong
    password fails with C(Failed to authenticate) after the download), when its follower is gone with no result, or
    after O(stall_timeout) seconds without progress (stopped, RV(code) C(macos_update_stalled)). Nothing restarts.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
    details: Check mode waits for nothing and predicts the restart.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: darwin
options:
  progress_file:
    description: The progress file M(macops.cluster.macos_update_install) writes.
    type: str
    required: true
  label:
    description: The label being installed; a progress file for another label is not this install's.
    type: str
    required: true
  started_at:
    description: M(macops.cluster.macos_update_install)'s RV(macops.cluster.macos_update_install#module:started_at).
    type: float
    required: true
  pid:
    description: M(macops.cluster.macos_update_install)'s RV(macops.cluster.macos_update_install#module:pid), the
      process that follows softwareupdate (and its process group).
    type: int
    required: true
  boot_session:
    description: The node's C(kern.bootsessionuuid) right before its install (the install module reads it).
    type: str
    required: true
  build:
    description: The build the node must come back on.
    type: str
    required: true
  deadline:
    description: Seconds after C(Downloaded) after which a node that still answers on its old boot session is
      restarted (a prepared update restarts within seconds, 14 s in super's logs).
    type: int
    default: 900
  stall_timeout:
    description: Seconds without any progress, before the download is done, after which the install is stopped
      (twice the longest pause reported, 12 minutes at 98.6 % preparing 26.4 on an M4 Pro; older Macs are slower).
    type: int
    default: 2400
  restart_timeout:
    description: Seconds a node that stopped answering (restarting) gets to come back on its new boot session, the
      install after boot included; also how long a node the deadline restarted may go on answering on its old one.
    type: int
    default: 2700
  interval:
    description: Seconds between two looks at the node.
    type: float
    default: 5.0
  filevault:
    description: FileVault is on, so a restart must be an authenticated one (C(fdesetup authrestart)).
    type: bool
    default: false
  owner:
    description: The volume owner's account name, for C(fdesetup authrestart) (with O(filevault)).
    type: str
  password:
    description: Its password, given to C(fdesetup authrestart -inputplist) on stdin (with O(filevault)).
    type: str
  boot_command:
    description: The command that prints the boot session.
    type: str
    default: /usr/sbin/sysctl -n kern.bootsessionuuid
  build_command:
    description: The command that prints the build.
    type: str
    default: /usr/bin/sw_vers -buildVersion
  restart_command:
    description: The command that restarts a node without FileVault (run with become).
    type: str
    default: /sbin/shutdown -r now
  authrestart_command:
    description: The command that restarts a node with FileVault on; it reads the C(-inputplist) document (made of
      O(owner) and the option after it) on stdin.
    type: str
    default: /usr/bin/fdesetup authrestart -delayminutes 0 -inputplist
  restart:
    description: Whether the node restarts into the new build (an install); false follows a download only.
    type: bool
    default: true
seealso:
  - module: macops.cluster.macos_update_install
"""

EXAMPLES = r"""
- name: Wait for the node to restart into the new build
  macops.cluster.macos_update_wait:
    progress_file: /Library/Application Support/macops/update/progress.json
    label: macOS Tahoe 26.3-25D60
    started_at: "{{ __install['started_at'] }}"
    pid: "{{ __install['pid'] }}"
    boot_session: "{{ __install['boot_session'] }}"
    build: 25D60
    deadline: 3600
  become: true
"""

RETURN = r"""
rebooted:
  description: The node came back from a restart.
  returned: always
  type: bool
build:
  description: The build it came back on.
  returned: when it came back
  type: str
restarted_by_deadline:
  description: The node was restarted because it had not restarted by O(deadline).
  returned: always
  type: bool
reachable:
  description: The node answers (false when it did not come back).
  returned: always
  type: bool
downloaded:
  description: With O(restart=false), the update is downloaded and prepared.
  returned: with O(restart=false)
  type: bool
code:
  description: C(macos_update_stalled) when the wait stopped an install or a download that did not move.
  returned: when it stopped one
  type: str
waited:
  description: Seconds from the start of the wait until the node was back on its build.
  returned: when it came back
  type: float
"""
