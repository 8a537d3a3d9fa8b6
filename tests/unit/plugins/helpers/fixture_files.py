"""Read the command-output fixtures shared by the parser and module tests."""
import os

# The captures stay beside the parser tests that read most of them.
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils", "fixtures")


def read_fixture(relative_path):
    """Text of ``fixtures/<command>/<case>``, exactly as the command would print it."""
    with open(os.path.join(FIXTURES, relative_path)) as handle:
        return handle.read()
