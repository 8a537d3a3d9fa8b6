"""Run a module's main() against a fake Mac: commands are mocked, the module code is real."""
import json

import pytest
from ansible.module_utils import basic
from ansible.module_utils.testing import patch_module_args

from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands


class FakeMac(object):
    """Installed tools and canned (rc, stdout, stderr) per exact argv; records every command run."""

    def __init__(self, outputs, installed=None):
        self.outputs = dict((tuple(argv), result) for argv, result in outputs)
        self.installed = installed
        self.calls = []

    def get_bin_path(self, name, required=False, opt_dirs=None):
        if self.installed is not None and name not in self.installed:
            return None
        return "%s/%s" % (opt_dirs[0], name)

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        if tuple(args) not in self.outputs:
            raise AssertionError("unexpected command %r" % (args,))
        return self.outputs[tuple(args)]


def answer_with(monkeypatch, mac):
    """Every command the collection's modules run (_module_commands.execute, their one runner) is
    answered by `mac`; AnsibleModule.run_command too, so a module that bypassed the runner still
    meets the fake Mac rather than this machine."""
    monkeypatch.setattr(commands, "execute",
                        lambda argv, timeout=None, stdin_text=None: mac.run_command(list(argv), data=stdin_text))
    monkeypatch.setattr(basic.AnsibleModule, "run_command", mac.run_command)


def run_module(monkeypatch, capsys, main, args, mac):
    """Run `main` with module args; return (result dict, commands run)."""
    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", mac.get_bin_path)
    answer_with(monkeypatch, mac)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            main()
    return json.loads(capsys.readouterr().out), mac.calls


def run_main(capsys, module, args):
    """Run the main() of a module that runs no command (it reads and writes files): its result dict."""
    with pytest.raises(SystemExit):
        with patch_module_args(args):
            module.main()
    return json.loads(capsys.readouterr().out)
