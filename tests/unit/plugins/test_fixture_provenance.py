"""Every fixture says where its format comes from (issue 12): command output cannot carry a
comment, so each directory's README.md has one line per file naming its source: documentation
(a public document such as Apple TN3205, the upstream code that reads the format, or a man page),
a published capture (named), or none (a malformed output made up to test rejection)."""
import os
import re

import pytest
from fixture_files import FIXTURES

SOURCE_WORDS = ("documentation", "capture", "no source", "no capture")


def directories():
    return sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))


@pytest.mark.parametrize("directory", directories())
def test_every_fixture_has_a_provenance_line(directory):
    readme_path = os.path.join(FIXTURES, directory, "README.md")
    assert os.path.exists(readme_path), \
        "%s/ has no README.md naming its fixtures' sources (one line per file: - `file`: source)" % directory
    with open(readme_path) as handle:
        lines = handle.read().splitlines()
    for name in sorted(os.listdir(os.path.join(FIXTURES, directory))):
        if name == "README.md":
            continue
        # a list line that names the file in backquotes and says what kind of source it has
        named = [line for line in lines if line.startswith("- ") and re.search(r"`%s`" % re.escape(name), line)]
        assert named, "%s/%s is not listed in %s/README.md: add a line - `%s`: <documentation, capture " \
                      "(named) or no source>: ..." % (directory, name, directory, name)
        assert any(word in line for line in named for word in SOURCE_WORDS), (directory, name, named)
