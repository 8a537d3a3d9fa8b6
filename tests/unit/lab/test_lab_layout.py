"""The lab's code layout: no file over 600 lines, and one registry of shim commands that both
the dispatcher and the installer read (so a command's macOS path and its handler cannot drift)."""
import ast
import json
import os
import subprocess

import pytest

from shimlab import LAB_DIR
from macsim import hostfs, layout, shim
from macsim.shims import registry

MAX_LINES = 600
SHIMS_DIR = os.path.join(LAB_DIR, "macsim", "shims")


def _lab_files():
    for directory, subdirs, files in os.walk(LAB_DIR):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]
        for name in files:
            if not name.endswith((".pyc", ".pyo")):
                yield os.path.join(directory, name)


def test_no_file_under_lab_is_over_600_lines():
    too_long = {}
    for path in _lab_files():
        with open(path, "rb") as handle:
            count = handle.read().count(b"\n")
        if count > MAX_LINES:
            too_long[os.path.relpath(path, LAB_DIR)] = count
    assert too_long == {}


def test_registry_paths_are_exactly_what_the_lab_installs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("build_macroot makes whiteout device nodes (root only)")
    paths = layout.Paths(str(tmp_path))
    hostfs.build_macroot(paths)
    installed = set()
    for directory, _subdirs, files in os.walk(paths.macroot):
        for name in files:
            link = os.path.join(directory, name)
            if os.path.islink(link) and os.readlink(link) == hostfs.SHIM_ENTRY:
                installed.add("/" + os.path.relpath(link, paths.macroot))
    # Outside the overlays (brew): build_host_fs links these into each host's own tree.
    installed |= {"/%s/%s" % (sub, name) for name, sub in hostfs.shim_commands().items()
                  if not sub.startswith("usr/")}
    # The lab's hosts are merged-usr Debian: macOS's /bin and /sbin live in /usr/bin, /usr/sbin.
    merged = {"/bin": "/usr/bin", "/sbin": "/usr/sbin"}
    expected = {merged.get(os.path.dirname(path), os.path.dirname(path)) + "/" + name
                for name, path in registry.macos_paths().items()}
    assert installed == expected
    assert "/usr/sbin/ifconfig" in installed and "/opt/homebrew/bin/brew" in installed


def test_every_command_handler_in_the_families_is_registered():
    handlers = set()
    for name in sorted(os.listdir(SHIMS_DIR)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(SHIMS_DIR, name)) as handle:
            tree = ast.parse(handle.read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("cmd_"):
                handlers.add("macsim.shims." + name[:-3] + "." + node.name)
    registered = {"{}.{}".format(h.__module__, h.__qualname__) for h in registry.handlers().values()}
    assert handlers == registered
    assert len(registered) == len(registry.macos_paths()) >= 34


def test_dispatcher_knows_exactly_the_registered_commands(capsys):
    assert shim.main(["/usr/bin/no-such-command"]) == 127
    known = capsys.readouterr().err.split("known: ")[1].split()
    assert known == sorted(registry.macos_paths())


def test_registering_a_second_handler_for_a_command_fails():
    def cmd_other_ifconfig(host, args):
        return 0
    with pytest.raises(ValueError, match="ifconfig registered twice"):
        registry.command("/sbin/ifconfig")(cmd_other_ifconfig)
    assert registry.macos_paths()["ifconfig"] == "/sbin/ifconfig"
    assert registry.handlers()["ifconfig"].__module__ == "macsim.shims.interfaces"


def test_installed_shim_has_bytecode_and_imports_only_the_family_it_runs(tmp_path):
    paths = layout.Paths(str(tmp_path))
    hostfs.install_code(paths)
    shims = os.path.join(paths.code, "macsim", "shims")
    with open(os.path.join(shims, registry.INDEX_FILE)) as handle:
        index = json.load(handle)
    assert index == {name: handler.__module__ for name, handler in registry.handlers().items()}
    # Compiled as root at install: the hosts' users could not write __pycache__ themselves.
    assert any(name.startswith("dispatch.") for name in os.listdir(os.path.join(shims, "__pycache__")))
    probe = ("import sys; sys.path.insert(0, %r); from macsim.shims import registry; "
             "handler = registry.find('sw_vers'); "
             "print(handler.__module__, sorted(m for m in sys.modules if m.startswith('macsim.shims.')))"
             % paths.code)
    proc = subprocess.run([hostfs.tools_python(), "-sE", "-c", probe], stdout=subprocess.PIPE, check=True,
                          universal_newlines=True)
    module, loaded = proc.stdout.split(" ", 1)
    assert module == "macsim.shims.system"
    families = {m for m in ast.literal_eval(loaded) if m.rsplit(".", 1)[1] not in ("registry", "state")}
    # system uses a few other families' helpers; the unrelated ones stay unloaded.
    assert "macsim.shims.system" in families
    assert not families & {"macsim.shims.brew", "macsim.shims.pfctl", "macsim.shims.accounts"}


def test_without_an_index_every_family_is_searched():
    assert registry.find("ifconfig").__module__ == "macsim.shims.interfaces"
    assert registry.find("no-such-command") is None
