# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: power_changes
short_description: The power and automatic update settings a node does not have yet
version_added: 0.2.0
author: macops.cluster team
description:
  - From the settings preflight's node read found (C(ansible_facts['macops_node']['settings']), macops.cluster.node_facts'
    C(settings) group), the C(pmset) settings whose value in use differs from the wanted one (compared as
    M(macops.cluster.pmset) compares them) and the C(com.apple.SoftwareUpdate) keys whose value differs or is not set.
  - Without that read (the power role used on its own, or a play that did not gather C(settings)) every wanted
    setting is returned, so the modules read the node themselves.
  - Why it exists - on a converged node the power role then runs no module at all, where each setting's module would
    read the node again.
options:
  _input:
    description: The node's C(settings) facts, or none.
    type: dict
    required: true
  pmset:
    description: The wanted C(pmset) settings by their C(pmset -g) name (booleans as C(1)/C(0)).
    type: dict
    required: true
  software_update:
    description: The wanted automatic update keys, each C(true) or C(false).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Run pmset only where a setting differs
  macops.cluster.pmset:
    settings: "{{ _changes['pmset'] }}"
  vars:
    _changes: >-
      {{ ansible_facts['macops_node']['settings'] | default(none)
         | macops.cluster.power_changes(pmset={'sleep': 0}, software_update={'AutomaticCheckEnabled': true}) }}
  when: _changes['pmset'] | length > 0
"""

RETURN = r"""
_value:
  description: C(pmset) - the settings to set ({name - wanted value}); C(software_update) - the keys to write.
  type: dict
"""


def power_changes(settings, pmset, software_update):
    # Imported when called, not when the file loads (why: plugins/plugin_utils/_filter_support.py).
    from ansible.errors import AnsibleFilterError
    from ansible_collections.macops.cluster.plugins.module_utils import _pmset

    try:
        wanted = _pmset.validate(pmset)
    except ValueError as exc:
        raise AnsibleFilterError("power_changes: %s" % exc)
    found = settings if isinstance(settings, dict) else {}
    power, auto = found.get("power"), found.get("auto_updates")
    pmset_changes = dict((name, pmset[name]) for name in _pmset.differences(power, wanted)) \
        if isinstance(power, dict) else dict(pmset)
    update_changes = dict((key, bool(value)) for key, value in software_update.items()
                          if not isinstance(auto, dict) or auto.get(key) is not bool(value))
    return {"pmset": pmset_changes, "software_update": update_changes}


class FilterModule(object):
    def filters(self):
        return {"power_changes": power_changes}
