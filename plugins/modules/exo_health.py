#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: exo_health
short_description: Check that exo runs as a LaunchDaemon and that its /state lists every node
version_added: 0.1.0
description:
  - Reads the exo LaunchDaemon with C(launchctl print system/LABEL) (running when its state is
    C(running)), and the installed exo version with O(python) when given.
  - While the job is loaded, asks C(GET http://127.0.0.1:PORT/state) every half second (5 seconds per
    request) until it answers and lists O(expected_nodes) nodes, or O(timeout) seconds pass. The
    nodes are the entries of C(topology.nodes), else the keys of C(nodeIdentities).
  - Fails, with the readings and what to check, when exo is not running, its API does not answer,
    or (with O(require_all_nodes)) C(/state) lists fewer nodes. In check mode, or with
    O(health_check=false), it only reports.
  - Read-only. The macops.cluster.exo role registers its result as C(macops_exo).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  label:
    description: Label of exo's LaunchDaemon.
    type: str
    required: true
  api_port:
    description: Port of exo's HTTP API on the loopback address.
    type: int
    default: 52415
  expected_nodes:
    description: How many nodes C(/state) must list.
    type: int
    default: 1
  health_check:
    description: Ask the API; false only reads the service and the version, and never fails.
    type: bool
    default: true
  timeout:
    description: Seconds to wait for C(/state) to list O(expected_nodes) nodes.
    type: int
    default: 120
  require_all_nodes:
    description: Wait for, and fail without, every expected node; false only needs the API to answer.
    type: bool
    default: true
  version:
    description: The declared exo version, returned when the installed one cannot be read.
    type: str
    default: ""
  python:
    description:
      - Interpreter of exo's own environment; its C(importlib.metadata) gives the installed version.
        Omitted, or not there, the declared O(version) is returned.
    type: path
  host:
    description: Name of this node in messages (the inventory name).
    type: str
    default: this node
  log_file:
    description: exo's log, named in the failure message.
    type: path
    default: /Library/Logs/macops/exo.log
notes:
  - C(launchctl print) of the system domain works as any user; no C(become) is needed.
"""

EXAMPLES = r"""
- name: Check that exo runs and sees the four Macs
  macops.cluster.exo_health:
    label: org.macops.exo
    expected_nodes: 4
    host: "{{ inventory_hostname }}"
  register: exo_health
"""

RETURN = r"""
version:
  description: The installed exo version (read with O(python)), else O(version).
  type: str
  returned: always
  sample: 1.0.71
running:
  description: Whether launchd runs the job (C(state = running)).
  type: bool
  returned: always
  sample: true
api_ok:
  description: Whether C(GET /state) answered 200 (false when not asked).
  type: bool
  returned: always
  sample: true
nodes_seen:
  description: Nodes the last C(/state) answer listed (0 when not asked).
  type: int
  returned: always
  sample: 4
nodes_expected:
  description: O(expected_nodes).
  type: int
  returned: always
  sample: 4
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._exo_health import failure_message, is_unhealthy
from ansible_collections.macops.cluster.plugins.module_utils._exo_probe import read_health


def main():
    module = AnsibleModule(
        argument_spec=dict(
            label=dict(type="str", required=True),
            api_port=dict(type="int", default=52415),
            expected_nodes=dict(type="int", default=1),
            health_check=dict(type="bool", default=True),
            timeout=dict(type="int", default=120),
            require_all_nodes=dict(type="bool", default=True),
            version=dict(type="str", default=""),
            python=dict(type="path"),
            host=dict(type="str", default="this node"),
            log_file=dict(type="path", default="/Library/Logs/macops/exo.log"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    result = dict(changed=False, **read_health(
        commands.require_command(module, "launchctl"), params["label"], params["api_port"],
        params["expected_nodes"], params["timeout"], params["require_all_nodes"], params["health_check"],
        params["python"], params["version"]))
    if params["health_check"] and not module.check_mode and is_unhealthy(result, params["require_all_nodes"]):
        module.fail_json(msg=failure_message(params["host"], params["api_port"], params["log_file"], result),
                         **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
