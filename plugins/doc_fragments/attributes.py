# -*- coding: utf-8 -*-
"""Attribute blocks shared by the collection's module documentation."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):

    # A module that only reads the Mac: check mode runs it for real, there is nothing to diff.
    DOCUMENTATION = r"""
options: {}
attributes:
  check_mode:
    description: Can run in check_mode and return changed status prediction without modifying target.
    support: full
  diff_mode:
    description: Will return details on what has changed (or possibly needs changing in check_mode), when in diff mode.
    support: none
  platform:
    description: Target OS/families that can be operated against.
    support: full
    platforms: darwin
"""

    # Added by modules that can return ansible_facts.
    FACTS = r"""
options: {}
attributes:
  facts:
    description: Action returns an C(ansible_facts) dictionary that will update existing host facts.
    support: full
"""

    # Added by the action plugins (part of each runs on the controller): none supports async or
    # bypasses the host loop. Descriptions of the other attributes: ansible.builtin.action_common_attributes.
    ACTION = r"""
options: {}
attributes:
  action:
    description: Indicates this has a corresponding action plugin so some parts of the options can be executed on the controller.
    support: full
  async:
    description: Supports being used with the C(async) keyword.
    support: none
  bypass_host_loop:
    description: Forces a 'global' task that does not execute per host (the host loop, serial and throttle do not apply).
    support: none
"""
