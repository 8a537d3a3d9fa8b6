#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: node_python
short_description: Check that a Mac has a Python Ansible modules can run with, before any module runs
version_added: 0.1.0
description:
  - Asks the node's interpreter for its version over the bare connection, as M(ansible.builtin.raw) does, so it
    needs no Python on the node and never shows Ansible's unreadable module failure.
  - Fails with the fix when the interpreter is missing, too old, or the Command Line Tools stub that
    C(/usr/bin/python3) is on a Mac without them (it prints an C(xcode-select) note and exits 1).
  - Runs one command on the node (an action plugin); read-only, so it runs in check mode too.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    support: full
    platforms: darwin
options:
  python:
    description:
      - The interpreter to ask. Default is C(ansible_python_interpreter) unless it is discovery (C(auto*)), else
        C(/usr/bin/python3).
    type: str
  min_version:
    description: The oldest Python accepted.
    type: str
    default: "3.9"
notes:
  - ansible-core 2.20+ runs modules on Python 3.9 and later; 3.9 is what Apple's Command Line Tools install.
seealso:
  - module: ansible.builtin.raw
"""

EXAMPLES = r"""
- name: Check that the node has a Python Ansible can use
  macops.cluster.node_python:
    min_version: "3.9"
"""

RETURN = r"""
python:
  description: The interpreter asked.
  returned: always
  type: str
  sample: /usr/bin/python3
version:
  description: Its version, null when it gave none or too old a one.
  returned: always
  type: str
  sample: 3.9.6
problems:
  description: The problem C(node_python_unusable) when the node has no usable Python, else none.
  returned: always
  type: list
  elements: dict
"""
