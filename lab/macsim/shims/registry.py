"""The one table of the lab's macOS commands.

`@command(PATH)` on a handler `handler(host, args) -> rc` records where the command lives on
macOS and what runs it; argv[0]'s basename picks it. The dispatcher (`dispatch.main`) and the
installer (`hostfs`: macroot symlinks, /opt/homebrew/bin) read only this table, so a command's
path and its handler cannot drift apart. Every module of this package other than the ones in
`_NOT_FAMILIES` is a command family and is imported (which registers it) on first use.
"""
import collections
import importlib
import os
import pkgutil

Command = collections.namedtuple("Command", "path handler")

# Modules of the package that hold no commands.
_NOT_FAMILIES = ("registry", "state", "dispatch")
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
