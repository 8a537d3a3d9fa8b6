#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: pmset
short_description: Set a Mac's power management settings with pmset, idempotently
version_added: 0.1.0
description:
  - Reads the settings in use with C(pmset -g) and runs C(pmset -a) only for the settings that
    differ, so a second run changes nothing.
  - After a change it reads C(pmset -g) again and fails when a setting still differs, which is
    what happens when this Mac does not know the setting (C(pmset) ignores unknown names).
  - Settings apply to every power source (C(-a)); on a desktop Mac there is only one.
author: macops.cluster team (@macops)
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: full
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: darwin
options:
  settings:
    description:
      - Setting names as C(pmset -g) prints them (C(sleep), C(disksleep), C(displaysleep),
        C(autorestart), C(womp) ...) mapped to the wanted value. Booleans become C(1)/C(0).
      - Minutes of C(0) mean never.
    type: dict
    required: true
notes:
  - Changing settings needs root (C(become=true)); reading them does not.
  - The C(pmset -g) format is taken from pmset(1) and outputs users post, not from Apple
    documentation; a value followed by a note in parentheses (C(1 (sleep prevented by powerd)))
    is compared without the note.
seealso:
  - name: pmset(1)
    description: The manual page of pmset.
    link: https://keith.github.io/xcode-man-pages/pmset.1.html
"""

EXAMPLES = r"""
- name: Keep a cluster node awake and bring it back after a power cut
  macops.cluster.pmset:
    settings:
      sleep: 0
      disksleep: 0
      displaysleep: 10
      autorestart: true
      womp: true
  become: true
"""

RETURN = r"""
settings:
  description: The settings in use after the run (predicted in check mode), as C(pmset -g) prints them.
  returned: always
  type: dict
  sample: {"sleep": "0", "disksleep": "0", "displaysleep": "10", "autorestart": "1", "womp": "1"}
changes:
  description: The settings that were (or in check mode would be) changed, with their new values.
  returned: always
  type: dict
  sample: {"sleep": "0", "autorestart": "1"}
notes:
  description: Notes C(pmset -g) printed after a value, such as which process prevents sleep.
  returned: always
  type: dict
  sample: {"sleep": "sleep prevented by sharingd, powerd"}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils import _pmset


def read_settings(module, pmset_path):
    return commands.parse(module, _pmset.parse, commands.run(module, [pmset_path, "-g"]))


def apply(module):
    try:
        wanted = _pmset.validate(module.params["settings"])
    except ValueError as exc:
        module.fail_json(msg="settings: %s" % exc)
    pmset_path = commands.require_command(module, "pmset")
    before = read_settings(module, pmset_path)
    changes = _pmset.differences(before["settings"], wanted)
    result = {
        "changed": bool(changes),
        "changes": changes,
        "settings": dict(before["settings"], **changes),
        "notes": before["notes"],
        "diff": {
            "before": dict((name, before["settings"].get(name)) for name in sorted(wanted)),
            "after": dict((name, wanted[name]) for name in sorted(wanted)),
        },
    }
    if not changes or module.check_mode:
        return result
    commands.run(module, _pmset.set_argv(pmset_path, "a", changes))
    after = read_settings(module, pmset_path)
    ignored = _pmset.differences(after["settings"], wanted)
    if ignored:
        module.fail_json(
            msg="pmset did not take %s: this Mac reports %s. Remove settings this model does not have."
                % (", ".join("%s=%s" % item for item in sorted(ignored.items())),
                   ", ".join("%s=%s" % (name, after["settings"].get(name, "(absent)")) for name in sorted(ignored))),
            **result)
    result["settings"] = after["settings"]
    result["notes"] = after["notes"]
    return result


def main():
    module = AnsibleModule(
        argument_spec=dict(settings=dict(type="dict", required=True)),
        supports_check_mode=True,
    )
    module.exit_json(**apply(module))


if __name__ == "__main__":
    main()
