"""The one table of the lab's macOS commands.

`@command(PATH)` on a handler `handler(host, args) -> rc` records where the command lives on
macOS and what runs it; argv[0]'s basename picks it. The dispatcher (`dispatch.main`) and the
installer (`hostfs`: macroot symlinks, /opt/homebrew/bin) read only this table, so a command's
path and its handler cannot drift apart. Every module of this package other than the ones in
`_NOT_FAMILIES` is a command family and is imported (which registers it) on first use.

Every shim call is a new process, so importing all families to run one command would be paid on
each of them: the installer writes `commands.json` next to this module ({name: family module},
derived from this table by `write_index`), and `find` imports only the family it names.
"""
import collections
import importlib
import json
import os

Command = collections.namedtuple("Command", "path handler")

# Modules of the package that hold no commands.
_NOT_FAMILIES = ("registry", "state", "dispatch")
INDEX_FILE = "commands.json"
_COMMANDS = {}
_loaded = []


def command(path):
    """Register the decorated handler as the macOS command at absolute `path`."""
    name = os.path.basename(path)

    def register(handler):
        known = _COMMANDS.get(name)
        if known is not None and (known.path, _where(known.handler)) != (path, _where(handler)):
            raise ValueError("macOS command {} registered twice: {} ({}) and {} ({})".format(
                name, known.path, _where(known.handler), path, _where(handler)))
        _COMMANDS[name] = Command(path, handler)
        return handler
    return register


def _where(handler):
    return "{}.{}".format(handler.__module__, handler.__qualname__)


def _load_families():
    """Import every family module once: that runs their @command decorators."""
    if _loaded:
        return
    import pkgutil  # only here: most calls find their family through the index

    package = __name__.rpartition(".")[0]
    for info in sorted(pkgutil.iter_modules([os.path.dirname(os.path.abspath(__file__))])):
        if info.name not in _NOT_FAMILIES:
            importlib.import_module(package + "." + info.name)
    _loaded.append(True)


def commands():
    """{name: Command(path, handler)} of every command the shim provides."""
    _load_families()
    return dict(_COMMANDS)


def macos_paths():
    """{name: absolute macOS path}, e.g. {"ifconfig": "/sbin/ifconfig"}."""
    return {name: entry.path for name, entry in commands().items()}


def handlers():
    """{name: handler(host, args) -> rc}."""
    return {name: entry.handler for name, entry in commands().items()}


def write_index(directory):
    """Write INDEX_FILE into `directory` (an installed copy of this package): {name: module}."""
    index = {name: entry.handler.__module__ for name, entry in sorted(commands().items())}
    with open(os.path.join(directory, INDEX_FILE), "w") as handle:
        json.dump(index, handle, indent=1, sort_keys=True)
        handle.write("\n")
    return index


def _index():
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), INDEX_FILE)) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


def find(name):
    """The handler of command `name`, or None: through the installed index when it names the
    family (one import), else by loading every family (a source checkout, or a name it lacks)."""
    module = _index().get(name)
    if module is not None:
        importlib.import_module(module)
        if name in _COMMANDS:
            return _COMMANDS[name].handler
    entry = commands().get(name)
    return entry.handler if entry else None
