# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter macops.cluster.pip_unmet: the requirements an environment does not satisfy yet."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: pip_unmet
short_description: The pip requirements that the installed distributions do not satisfy
version_added: 0.1.0
author: macops.cluster team
description:
  - Lets a role skip C(pip install) when an environment already holds what it asks for, because a pip run
    that changes nothing still takes seconds per node (it starts pip and asks the index).
  - A requirement counts as met only when that is certain, that is a bare name that is installed, or
    C(name==version) / C(name===version) with exactly that version installed. Names compare as PEP 503 normalizes them
    (case, C(-), C(_) and C(.) alike).
  - An extra (C(mlx[cpu]==0.32.4)) is met when its base is, and every distribution the base lists for that extra
    (its C(Requires-Dist) with C(extra == "cpu")) is installed; their versions are left to the pip run that
    installed them.
  - Anything else is returned as unmet and left to pip, such as version ranges, URLs, paths and environment
    markers. It errs on the side of running pip, never the other way.
positional: installed
options:
  _input:
    description: pip requirement strings.
    type: list
    elements: str
    required: true
  installed:
    description:
      - Installed distributions, name to version, or name to C({version, extras}) where C(extras) maps each
        extra to the distribution names it requires (as C(importlib.metadata) reports them).
      - Empty or null when the environment does not exist.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Install only when something is missing or at another version
  ansible.builtin.pip:
    name: "{{ wanted }}"
    virtualenv: /opt/macops/venv
  when: wanted | macops.cluster.pip_unmet(installed) | length > 0
  vars:
    wanted: [mlx==0.32.4, mlx-lm==0.32.2]
    installed: {mlx: 0.32.4, mlx_lm: 0.32.2}
"""

RETURN = r"""
_value:
  description: The requirements of O(_input) that are not certainly met, in their order.
  type: list
  elements: str
  sample: [mlx-lm==0.32.2]
"""

import re

# A name, optional extras, and optionally an exact pin; nothing else (no ranges, markers, URLs).
_REQUIREMENT = re.compile(r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?P<extras>\[[^\]]*\])?"
                          r"\s*(?:(?:===?)\s*(?P<version>[A-Za-z0-9.+!_-]+))?\s*$")


def canonical_name(name):
    """PEP 503 normalized distribution name."""
    return re.sub(r"[-_.]+", "-", str(name)).lower()


def _installed(installed):
    """{canonical name: (version, {extra: [canonical names]})} from either shape of `installed`."""
    have = {}
    for name, found in (installed or {}).items():
        if isinstance(found, dict):
            extras = dict((canonical_name(extra), [canonical_name(n) for n in names])
                          for extra, names in (found.get("extras") or {}).items())
            have[canonical_name(name)] = (str(found.get("version")), extras)
        else:
            have[canonical_name(name)] = (str(found), None)
    return have


def _met(match, have):
    found = have.get(canonical_name(match.group("name")))
    if found is None or (match.group("version") is not None and match.group("version") != found[0]):
        return False
    extras = [canonical_name(e) for e in (match.group("extras") or "").strip("[]").split(",") if e.strip()]
    if extras and found[1] is None:
        return False  # nothing known about what the extras need
    return all(extra in found[1] and all(name in have for name in found[1][extra]) for extra in extras)


def pip_unmet(requirements, installed):
    have = _installed(installed)
    unmet = []
    for requirement in requirements or []:
        match = _REQUIREMENT.match(str(requirement))
        if match is None or not _met(match, have):
            unmet.append(requirement)
    return unmet


class FilterModule(object):
    def filters(self):
        return {"pip_unmet": pip_unmet}
