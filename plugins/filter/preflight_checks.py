# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: preflight_checks
short_description: What the preflight role decides about a node from its one node read
version_added: 0.1.0
description:
  - Takes a node's C(macops_mac) and C(macops_node) (from M(macops.cluster.node_facts)) and returns each
    check (C(name), C(ok), C(detail), C(code)) and a catalogue problem for each that failed, with its fix.
  - "Checks: macOS version, the macOS build against the build most nodes of the play run (on a tie the
    newest; the one place that decides it), memory, free space on C(/), FileVault, Remote Login, and the
    programs the run's roles need that no role installs (Homebrew; Rust and node for an exo built on the Mac)."
positional: _input, node, host, macs
options:
  _input:
    description: The node's C(macops_mac).
    type: dict
    required: true
  node:
    description: The node's C(macops_node) (C(volumes), C(filevault), C(launchd)).
    type: dict
    required: true
  host:
    description: The node's inventory name.
    type: str
    required: true
  macs:
    description: Every node of the play mapped to its C(macops_mac), for the build check.
    type: dict
    required: true
  min_macos:
    description: Oldest macOS accepted.
    type: str
    default: "26.2"
  require_same_build:
    description: A build off the cluster's is an error (else a warning).
    type: bool
    default: true
  min_memory_gb:
    description: Least unified memory, GiB.
    type: float
    default: 16
  min_free_disk_gb:
    description: Least free space on C(/), GiB.
    type: float
    default: 20
  filevault_allowed:
    description: FileVault on is a warning (else an error).
    type: bool
    default: true
  tools:
    description:
      - Each tool the checks may need mapped to the paths where it may be (any one will do), as node_facts'
        C(programs) read them (C(homebrew), C(rust), C(node)).
    type: dict
    version_added: 0.2.0
  settings:
    description:
      - The settings of the roles in the run that decide which tools are needed (C(python_env_interpreter_source),
        C(exo_install), C(exo_install_method), C(exo_package_spec)); null for a role not in the play. None
        given, no tool is checked.
    type: dict
    version_added: 0.2.0
"""

EXAMPLES = r"""
- name: Check each node against what the cluster needs
  macops.cluster.check_result:
    result: >-
      {{ ansible_facts['macops_mac'] | macops.cluster.preflight_checks(ansible_facts['macops_node'],
           inventory_hostname, dict(ansible_play_hosts | zip(ansible_play_hosts
             | map('extract', hostvars, ['ansible_facts', 'macops_mac'])))) }}
  register: macops_preflight
"""

RETURN = r"""
_value:
  description: C(checks) (name, ok, detail, code) and C(problems) (catalogue problems).
  type: dict
"""

from collections.abc import Mapping

from ansible.errors import AnsibleFilterError


def preflight_checks(mac, node, host, macs, min_macos="26.2", require_same_build=True, min_memory_gb=16,
                     min_free_disk_gb=20, filevault_allowed=True, tools=None, settings=None):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible_collections.macops.cluster.plugins.plugin_utils._preflight_checks import needed_tools, node_checks
    if not isinstance(mac, Mapping) or not isinstance(node, Mapping) or not isinstance(macs, Mapping):
        raise AnsibleFilterError("macops.cluster.preflight_checks: macops_mac, macops_node and macs must be "
                                 "dicts (run macops.cluster.node_facts first)")
    try:
        return node_checks(str(host), dict(mac), node, dict(macs), str(min_macos), bool(require_same_build),
                           float(min_memory_gb), float(min_free_disk_gb), bool(filevault_allowed),
                           dict(tools or {}), needed_tools(dict(settings or {})))
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("macops.cluster.preflight_checks: the node read lacks %s" % exc)


class FilterModule(object):
    def filters(self):
        return {"preflight_checks": preflight_checks}
