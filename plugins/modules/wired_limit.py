#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: wired_limit
short_description: Set a Mac's GPU wired-memory limit (iogpu.wired_limit_mb) from its RAM
version_added: 0.1.0
description:
  - Reads C(hw.memsize) and C(iogpu.wired_limit_mb) with one C(sysctl -n) call, plans the limit
    as RAM minus a reserve (or takes O(wired_limit_mb)), and sets it with C(sysctl -w) when the
    live value differs. Check mode reports the change without making it.
  - The value does not survive a reboot; the macops.cluster.gpu_memory role adds a LaunchDaemon.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
attributes:
  diff_mode:
    support: full
options:
  wired_limit_mb:
    description: Explicit limit in MB; 0 plans it from RAM minus the reserve.
    type: int
    default: 0
  reserve_mb:
    description: Memory in MB kept from the GPU; 0 takes it from O(reserve_table).
    type: int
    default: 0
  reserve_table:
    description:
      - Rows C({max_ram_mb, reserve_mb}); the first row (by C(max_ram_mb)) covering the RAM applies,
        the largest row beyond it.
    type: list
    elements: dict
    default: [{max_ram_mb: 999999999, reserve_mb: 16384}]
notes:
  - Needs root to change the value (C(become)); reading works as any user.
  - The meaning of a live value of 0 (macOS default, about 2/3 to 3/4 of RAM) is not confirmed by Apple.
"""

EXAMPLES = r"""
- name: Leave 16 GB to macOS, give the GPU the rest
  macops.cluster.wired_limit:
    reserve_mb: 16384
  become: true
"""

RETURN = r"""
ram_mb:
  description: The Mac's RAM (C(hw.memsize)) in MB.
  type: int
  returned: always
  sample: 524288
reserve_mb:
  description: Memory kept from the GPU, in MB.
  type: int
  returned: always
  sample: 16384
target_mb:
  description: The planned limit in MB.
  type: int
  returned: always
  sample: 507904
previous_mb:
  description: The live limit before this run (0 = macOS default).
  type: int
  returned: always
  sample: 0
wired_limit_mb:
  description: The live limit after this run (in check mode, the value it would have).
  type: int
  returned: always
  sample: 507904
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._wired_limit import SYSCTL_NAMES, parse_memory, plan_limit


def read_memory(module, sysctl):
    return commands.parse(module, parse_memory, commands.run(module, [sysctl, "-n"] + list(SYSCTL_NAMES)))


def main():
    module = AnsibleModule(
        argument_spec=dict(
            wired_limit_mb=dict(type="int", default=0),
            reserve_mb=dict(type="int", default=0),
            reserve_table=dict(type="list", elements="dict", default=[{"max_ram_mb": 999999999, "reserve_mb": 16384}]),
        ),
        supports_check_mode=True,
    )
    # /usr/sbin first: a non-interactive SSH session's PATH is minimal (ansible/ansible#12063).
    sysctl = module.get_bin_path("sysctl", opt_dirs=["/usr/sbin"])
    if sysctl is None:
        module.fail_json(msg="sysctl not found in /usr/sbin or PATH: this module runs on macOS only")
    ram_mb, previous = read_memory(module, sysctl)
    try:
        target, reserve = plan_limit(ram_mb, module.params["wired_limit_mb"], module.params["reserve_mb"],
                                     module.params["reserve_table"])
    except (ValueError, KeyError) as exc:
        module.fail_json(msg="wired_limit: %s" % exc, ram_mb=ram_mb)
    result = dict(changed=previous != target, ram_mb=ram_mb, reserve_mb=reserve, target_mb=target,
                  previous_mb=previous, wired_limit_mb=previous,
                  diff=dict(before="iogpu.wired_limit_mb=%d\n" % previous, after="iogpu.wired_limit_mb=%d\n" % target))
    if result["changed"] and module.check_mode:
        result["wired_limit_mb"] = target
    elif result["changed"]:
        commands.run(module, [sysctl, "-w", "iogpu.wired_limit_mb=%d" % target])
        result["wired_limit_mb"] = read_memory(module, sysctl)[1]
        if result["wired_limit_mb"] != target:
            module.fail_json(msg="sysctl accepted iogpu.wired_limit_mb=%d but reads back %d"
                             % (target, result["wired_limit_mb"]), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
