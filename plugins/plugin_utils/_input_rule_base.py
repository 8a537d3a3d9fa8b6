# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: what every input rule (_input_rules.py, _operation_input_rules.py) is given
# and the checks several of them share. Names and behaviour may change without notice. Stdlib only.
"""The values and context an input rule reads, and the refusals several rules share (each an
``input_invalid`` problem naming the variable, the value, why and the fix)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

LAUNCHD_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class Params(object):
    """A role's validated values: ``params["name"]``, and ``params.has(*names)`` before use."""

    def __init__(self, values, options=None, given=None):
        self._values = dict(values)
        self.options = options or {}
        # As given, before the spec filled in suboption defaults (an empty mapping stays empty).
        self._given = dict(values if given is None else given)

    def __getitem__(self, name):
        return self._values[name]

    def get(self, name, default=None):
        return self._values.get(name, default)

    def has(self, *names):
        return all(name in self._values for name in names)

    def given(self, name, default=None):
        """The value as the user gave it, for a rule that must tell "not set" from the defaults."""
        return self._given.get(name, default) if name in self._values else default


class Context(object):
    """What a rule may know besides its role's values: the host, the inventory, other hosts.

    host: the inventory host; macs: the hosts of the group 'macs'; management: {host: ansible_host
    or ''}; values_on(name): {host: that host's value} over 'macs'; variable(name, default): any
    other variable of this host (play variables such as the reboot play's mode).
    """

    def __init__(self, host, macs=(), management=None, values_on=None, variable=None):
        self.host = host
        self.macs = list(macs)
        self.management = dict(management or {})
        self._values_on = values_on or (lambda name: {})
        self._variable = variable or (lambda name, default=None: default)

    def values_on(self, name):
        return self._values_on(name)

    def variable(self, name, default=None):
        return self._variable(name, default)


def bad(context, name, value, reason, fix, **details):
    """input_invalid for a rule: the variable, the value, why, and the fix."""
    shown = ("'%s'" % value) if isinstance(value, str) else repr(value)
    return problem("input_invalid", "%s = %s is refused: %s." % (name, shown, reason), fix,
                   host=context.host, details=dict({"variable": name}, **details))


def at_least(params, context, minimums):
    """One problem per number option below its minimum: [(name, minimum, why)]."""
    found = []
    for name, minimum, why in minimums:
        if params.has(name) and params[name] < minimum:
            found.append(bad(context, name, params[name], "it must be %g or more (%s)" % (minimum, why),
                             "Set %s to %g or more." % (name, minimum)))
    return found


def launchd_label(params, context, name, example):
    if params.has(name) and not LAUNCHD_LABEL.match(params[name]):
        return [bad(context, name, params[name], "it must be a reverse-DNS launchd label",
                    "Set %s to a label such as %s." % (name, example))]
    return []


def absolute_path(params, context, name, what="an absolute path", empty_ok=False):
    value = params.get(name)
    if value is None or (empty_ok and value == ""):
        return []
    if not str(value).startswith("/"):
        return [bad(context, name, value, "it must be %s" % what,
                    "Set %s to %s%s." % (name, what, " or leave it empty" if empty_ok else ""))]
    return []


def ipv4_networks(params, context, name):
    found = []
    for entry in params.get(name) or []:
        try:
            ipaddress.ip_network(str(entry).strip(), strict=False)
            if ":" in str(entry):
                raise ValueError("IPv6")
        except ValueError:
            found.append(bad(context, name, entry, "'%s' is not an IPv4 address or network" % entry,
                             "List IPv4 networks in CIDR form, such as 192.0.2.0/24, in %s." % name))
    return found
