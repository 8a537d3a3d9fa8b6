"""The problem catalogue's texts are documentation too (issue 49): every variable a meaning or fix names is in an
argument spec (or is a code, a module, a fact the roles publish, or a named tool or package), every absolute path is
one the collection itself uses or a place macOS 26 keeps, never one macOS no longer writes, and every command in
backticks starts with a tool current macOS or the pinned packages ship."""
import os
import re
import sys

import docs_commands
from ansible_collections.macops.cluster.plugins.module_utils._problems import REGISTRY

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# Names with a role's prefix that are not variables, each what it is.
NOT_VARIABLES = {"rdma_ctl": "macOS's RDMA tool", "rdma_en2": "an RDMA device's name", "mlx_lm": "the pinned package",
                 "exo_bench": "exo's benchmark script (bench/exo_bench.py)"}
# Places macOS 26 keeps that the texts may name beside the collection's own.
MACOS_PLACES = {"/etc/pf.conf", "/etc/sudoers", "/etc/ssh/ssh_host_ed25519_key.pub", "/usr/bin/python3",
                "/opt/homebrew/bin/brew",
                # ours, templated in the code from serve_launchd_label
                "/Library/LaunchDaemons/org.macops.serve.plist"}
# Places macOS no longer writes, with why.
GONE = {"/var/log/system.log": "macOS logs to the unified log (`log show`) since 10.12"}
# Tools a fix may tell the owner to run: macOS's own (beside the ones the collection runs, the lab's shims), and the
# pinned packages' and the owner's installers.
TOOLS = {"ps", "ssh", "ssh-keygen", "sudo", "visudo", "tmutil", "log", "brew", "rustup", "ansible-playbook",
         "mlx_lm.benchmark", "mlx_lm.server", "exo", "curl", "cat", "kill", "launchctl"}
PATH = re.compile(r"(?<![\w.])(/(?:var|Library|etc|usr|opt|private|System|tmp|Users)/[^\s`'\"),;]+)")


def texts():
    return [(code, entry["meaning"] + " " + entry["fix"]) for code, entry in sorted(REGISTRY.items())]


def code_text():
    """The collection's code without the problem texts themselves."""
    words = []
    for pattern in ("roles/**/*.yml", "roles/**/*.j2", "roles/**/*.py", "plugins/**/*.py"):
        for path in docs_commands.glob.glob(os.path.join(ROOT, pattern), recursive=True):
            if not re.search(r"_problems?\.py$|_problem_codes\.py$", path):
                with open(path, errors="replace") as handle:
                    words.append(handle.read())
    return "\n".join(words)


def shimmed():
    sys.path.insert(0, os.path.join(ROOT, "lab"))
    from macsim.shims import registry
    return set(registry.commands())


def test_every_variable_a_fix_names_is_in_an_argument_spec():
    tree = docs_commands.Tree(ROOT)
    modules = set(tree.modules)
    wrong = [(code, word) for code, text in texts() for word in tree.prefix.findall(text)
             if word not in tree.variables and word not in REGISTRY and word not in modules
             and word not in tree.facts and word not in NOT_VARIABLES]
    assert wrong == []


def test_every_path_a_fix_names_is_ours_or_macos_s_and_none_is_gone():
    code = code_text()
    paths = set(path.rstrip(".") for _code, text in texts() for path in PATH.findall(text))
    assert not paths & set(GONE), paths & set(GONE)
    assert [p for p in sorted(paths) if p not in MACOS_PLACES and p not in code] == []


def test_every_command_a_fix_shows_starts_with_a_tool_macos_or_the_pinned_packages_ship():
    known = shimmed() | TOOLS
    shown = [(code, snippet) for code, text in texts() for snippet in re.findall(r"`([^`]+)`", text)
             if " " in snippet.strip()]
    unknown = [(code, snippet) for code, snippet in shown if snippet.split()[0] not in known]
    assert unknown == [] and len(shown) > 10
