#!/usr/bin/python3
"""The lab's macOS commands: one multi-call program, argv[0]'s basename picks the command.

A thin entry point: the commands live in the package `macsim.shims` (one module per command
family, one registry of macOS path -> handler; see lab/DESIGN.md "Shim"). Hosts run the shim
through `$MACLAB_ROOT/code/bin/macsim-shim`, which calls `macsim.shims.dispatch.main`; this file
is what tests import and run, and `shim.py COMMAND ARGS...` also works (debugging).
"""
import os
import sys

_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
if _PACKAGE_PARENT not in sys.path:
    sys.path.insert(0, _PACKAGE_PARENT)

from macsim.shims.dispatch import main  # noqa: E402

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
