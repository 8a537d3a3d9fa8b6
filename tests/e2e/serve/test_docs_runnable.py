"""The docs' blocks marked runnable (`<!-- runnable -->` before the fence) run as written against the
serving lane's converged lab, before it serves anything (issue 35: docs that run as written;
tests/unit/docs/test_docs_as_written.py checks every other command without a lab). The lane that has time to
spare runs them (make e2e: lab 2). Three substitutions make the owner's command the lab's: `-i
inventories/mine` names the lab's inventory, the become password prompt (-K, --ask-become-pass) is
left out because the lab's inventory holds the password, and a playbook's path is the clone's
(the command runs from a directory of its own, so what it writes stays out of the repository)."""
import os
import subprocess

import pytest

import docs_commands
from labtools import INVENTORY, REPO, VENV_BIN, ansible_env

COMMANDS = docs_commands.runnable_commands(REPO)


def as_in_the_lab(argv):
    """The owner's command line, made the lab's (the three substitutions above)."""
    lab = []
    for word in argv:
        if word in ("-K", "--ask-become-pass"):
            continue
        if word == "inventories/mine":
            word = INVENTORY
        elif word.endswith(".yml") and os.path.isfile(os.path.join(REPO, word)):
            word = os.path.join(REPO, word)
        lab.append(word)
    return [os.path.join(VENV_BIN, lab[0])] + lab[1:]


def test_some_blocks_are_runnable():
    assert len(COMMANDS) >= 5, COMMANDS


@pytest.mark.parametrize("where,argv", COMMANDS, ids=["%s %s" % (where, " ".join(argv[:4])) for where, argv in COMMANDS])
def test_a_runnable_command_succeeds_on_the_lab(converged, tmp_path, where, argv):
    env = ansible_env(str(tmp_path))
    proc = subprocess.run(as_in_the_lab(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, env=env, cwd=str(tmp_path), timeout=900)
    assert proc.returncode == 0, "%s: %s\n%s" % (where, " ".join(argv), proc.stdout[-6000:])
    assert "FAILED" not in proc.stdout and "UNREACHABLE" not in proc.stdout, proc.stdout[-6000:]
