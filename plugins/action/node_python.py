# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for macops.cluster.node_python: the node's Python asked for its version over the
bare connection, before any module runs (documentation: plugins/modules/node_python.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
import shlex

from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem
from ansible_collections.macops.cluster.plugins.plugin_utils._preflight_checks import version_key

ARGUMENT_SPEC = dict(
    python=dict(type="str"),
    min_version=dict(type="str", default="3.9"),
)
DEFAULT_PYTHON = "/usr/bin/python3"
# What /usr/bin/python3 prints on a Mac without the Command Line Tools (xcode-select(1)).
CLT_STUB = re.compile(r"xcode-select|developer tools", re.IGNORECASE)
ASK = "import sys; print('%d.%d.%d' % sys.version_info[:3])"


def interpreter(given, configured):
    """The interpreter to ask: the option, else the inventory's unless it is discovery (auto*)."""
    if given:
        return given
    if configured and not str(configured).startswith("auto"):
        return str(configured)
    return DEFAULT_PYTHON


def verdict(host, python, rc, stdout, stderr, min_version):
    """(version or None, failure message or None) from the interpreter's answer."""
    version = stdout.strip()
    if rc == 0 and re.match(r"^\d+\.\d+\.\d+$", version) and version_key(version) >= version_key(min_version):
        return version, None
    if CLT_STUB.search(stdout + stderr):
        return None, (
            "%s: %s is only the Command Line Tools stub (the tools are not installed). Install them, then run again: "
            "at the Mac or over Screen Sharing run `xcode-select --install` and accept the dialog; or over SSH run "
            "`softwareupdate --list`, find the label that starts with \"Command Line Tools for Xcode\" and run "
            "`sudo softwareupdate --install \"<that label>\"`. Or set ansible_python_interpreter to another Python "
            "%s+ (for example /opt/homebrew/bin/python3.12)." % (host, python, min_version))
    said = (stdout + " " + stderr).strip()
    return None, ("%s: no Python %s or later to run Ansible modules with at %s (rc %d: %s). Install the Command Line "
                  "Tools (`xcode-select --install`) or set ansible_python_interpreter to a Python %s+."
                  % (host, min_version, python, rc, said[:200], min_version))


def ask_python(action, task_vars, python, min_version):
    """The node's interpreter asked for its version over the bare connection (no Python needed, no tty), by
    ``action`` (an ActionBase): {python, version} and, where it cannot run modules, failed, msg and
    problems (node_python_unusable); problems [] otherwise. Also node_facts' first step (its min_python)."""
    configured = task_vars.get("ansible_python_interpreter")
    python = interpreter(python, action._templar.template(configured) if configured else None)
    answer = action._low_level_execute_command("%s -c %s" % (shlex.quote(python), shlex.quote(ASK)), sudoable=False)
    stdout, stderr = to_text(answer.get("stdout", "")), to_text(answer.get("stderr", ""))
    host = task_vars.get("inventory_hostname")
    version, failure = verdict(host or "this node", python, answer.get("rc", 1), stdout, stderr, min_version)
    asked = dict(python=python, version=version, problems=[])
    if failure:
        # The one problem shape, so that the report names the code (preflight registers this result).
        asked.update(failed=True, msg=failure, problems=[problem("node_python_unusable", failure, host=host)])
    return asked


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)[1]
        result.update(ask_python(self, task_vars or {}, args["python"], args["min_version"]), changed=False)
        return result
