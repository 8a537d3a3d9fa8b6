#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: macos_update_wait
short_description: Follow a Mac's macOS install and wait for its restart into the new build
version_added: 0.2.0
description:
  - Runs on the controller (an action plugin). While the node's install runs (M(macops.cluster.macos_update_install)
    started with C(async)), shows its progress file whenever it moves (C(downloading 53 %), C(preparing 75 %)).
  - Done when the node answers with a new boot session (C(kern.bootsessionuuid) other than O(boot_session)) and
    C(sw_vers -buildVersion) says O(build); fails when it says another build.
  - Fails at once when softwareupdate stopped before the restart (its error line, such as C(Failed to authenticate)).
  - A node that has not restarted O(deadline) seconds after its install began (an install at the login window can
    sit at a progress bar) is restarted with O(restart_command), then waited for O(restart_timeout) seconds more;
    RV(restarted_by_deadline) says so. A node whose install never wrote its progress file by then is not restarted,
    and the wait fails, as a restart would cure nothing.
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
  boot_session:
    description: The node's C(kern.bootsessionuuid) before its install (M(macops.cluster.node_facts)' C(boot)).
    type: str
    required: true
  build:
    description: The build the node must come back on.
    type: str
    required: true
  deadline:
    description: Seconds from the start of the wait until a node that has not restarted is restarted.
    type: int
    default: 3600
  restart_timeout:
    description: Seconds a node restarted by the deadline gets to come back.
    type: int
    default: 900
  interval:
    description: Seconds between two looks at the node.
    type: float
    default: 5.0
  boot_command:
    description: The command that prints the boot session.
    type: str
    default: /usr/sbin/sysctl -n kern.bootsessionuuid
  build_command:
    description: The command that prints the build.
    type: str
    default: /usr/bin/sw_vers -buildVersion
  restart_command:
    description: The command that restarts a node that did not (run with become).
    type: str
    default: /sbin/shutdown -r now
seealso:
  - module: macops.cluster.macos_update_install
"""

EXAMPLES = r"""
- name: Wait for the node to restart into the new build
  macops.cluster.macos_update_wait:
    progress_file: /Library/Application Support/macops/update/progress.json
    boot_session: "{{ __facts['boot_session'] }}"
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
waited:
  description: Seconds from the start of the wait until the node was back on its build.
  returned: when it came back
  type: float
"""
