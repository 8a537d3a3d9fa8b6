#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: node_reboot
short_description: Reboot a Mac and wait for its new boot, asking at a steady pace
version_added: 0.1.0
description:
  - M(ansible.builtin.reboot) with two differences, both about time on a cluster that reboots all its nodes
    at once.
  - It asks whether the node is back every O(poll_interval) seconds. The builtin doubles its wait after each
    failed try (1, 2, 4, 8, then 12 s), so it can notice a node up to 12 s after its SSH answers again.
  - It does not run the C(setup) module to learn the platform when O(reboot_command), O(boot_time_command)
    and O(test_command) are all given (the builtin only needs the platform to pick those commands).
  - Just before the reboot command it stops the launchd jobs of O(stop_labels) gracefully, in one command over the
    same connection (C(launchctl bootout system/LABEL) sends SIGTERM, and launchd waits for the job to exit; the job stays
    enabled, so RunAtLoad starts it again at boot). Each gets O(stop_timeout) seconds; a job still running then is
    left to the reboot and named in a warning.
  - Everything else is the builtin's behaviour and its options (C(search_paths) included), with their
    defaults.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
    details: Check mode reboots nothing and returns C(changed=true), C(rebooted=true), as the builtin does.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: darwin
options:
  stop_labels:
    description: LaunchDaemon labels (system domain) to boot out before the reboot; a label launchd does not know is skipped.
    type: list
    elements: str
    default: []
  stop_timeout:
    description: Seconds each job of O(stop_labels) gets to exit.
    type: int
    default: 30
  launchctl:
    description: Path of C(launchctl) on the node.
    type: str
    default: /bin/launchctl
  poll_interval:
    description: Seconds between two tries to reach the node and read its boot session, at least 0.2.
    type: float
    default: 1.0
  reboot_command:
    description: The command that reboots the node, with its arguments (the builtin's option).
    type: str
  boot_time_command:
    description: A command whose output changes at every boot, such as C(sysctl -n kern.bootsessionuuid).
    type: str
    default: cat /proc/sys/kernel/random/boot_id
  test_command:
    description: A command that must succeed before the node counts as back.
    type: str
    default: whoami
  reboot_timeout:
    description: Seconds to wait for the new boot and the test command.
    type: int
    default: 600
  connect_timeout:
    description: Seconds each SSH connection may take while waiting; the connection's own timeout when omitted.
    type: int
  pre_reboot_delay:
    description: Seconds to wait before the reboot (the builtin's option; C(shutdown) rounds it to minutes).
    type: int
    default: 0
  post_reboot_delay:
    description: Seconds to wait after the reboot command before the first try.
    type: int
    default: 0
  msg:
    description: The message shown to logged-in users before the reboot.
    type: str
    default: Reboot initiated by Ansible
  search_paths:
    description: Where to look for C(shutdown) when O(reboot_command) does not give its path.
    type: list
    elements: str
    default: [/sbin, /bin, /usr/sbin, /usr/bin, /usr/local/sbin]
notes:
  - The tries against a node that is still down each end when its SSH connection or the privilege escalation
    times out (O(connect_timeout)); the next try starts O(poll_interval) later.
seealso:
  - module: ansible.builtin.reboot
"""

EXAMPLES = r"""
- name: Reboot a Mac and wait for a new boot session
  macops.cluster.node_reboot:
    reboot_command: /sbin/shutdown -r +0 "Reboot by macops.cluster"
    boot_time_command: /usr/sbin/sysctl -n kern.bootsessionuuid
    test_command: /usr/bin/whoami
    reboot_timeout: 600
    connect_timeout: 10
    poll_interval: 1
    stop_labels: [org.macops.exo]
    stop_timeout: 30
  become: true
"""

RETURN = r"""
rebooted:
  description: Whether the node was rebooted.
  returned: always
  type: bool
  sample: true
stopped:
  description:
    - Per label of O(stop_labels), C(label), C(status) (launchctl's exit status, null without an answer), C(state)
      (C(stopped), C(not_loaded), C(timeout) or C(failed)) and C(msg).
  returned: when O(stop_labels) is given and the node was rebooted
  type: list
  elements: dict
  sample: [{"label": "org.macops.exo", "status": 0, "state": "stopped", "msg": "stopped"}]
elapsed:
  description: Seconds from the reboot command until the node was back and passed the test command.
  returned: always
  type: int
  sample: 33
"""
