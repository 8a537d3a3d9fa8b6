"""The `exo` distribution the lab's package index serves: the lab's exo stand-in
(lab/macsim/exo_standin.py, marked so in its metadata) packed as a pure-Python wheel, at the
collection's pinned exo version and the release before it. The exo role then installs exo from
the index as it would from a real cluster's (`exo_package_spec: exo==<version>`), and a node can
be put on the other version (`maclab fault exo-version`) to split the cluster as exo does.

A wheel is a zip with the package and a .dist-info (PEP 427, PEP 376's RECORD): written here with
the standard library, with fixed timestamps, so the same version always gives the same bytes."""
import base64
import hashlib
import os
import re
import zipfile

from . import layout

STANDIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exo_standin.py")
# The collection's pin (one home: the macops role's defaults), read as text (no YAML on the hosts' side).
PIN_FILE = os.path.join(layout.REPO_ROOT, "roles", "macops", "defaults", "main.yml")
SUMMARY = "The macops lab's stand-in for exo (serves exo's /state and /node_id; not exo)"
# exo's own pyproject asks for Python 3.13; the stand-in keeps that, so a wrong interpreter fails as with exo.
REQUIRES_PYTHON = ">=3.13"
FIXED_TIME = (2026, 1, 1, 0, 0, 0)


def pinned_version(path=PIN_FILE):
    with open(path) as handle:
        found = re.search(r'(?m)^macops_exo_version:\s*"?([0-9][^"\s]*)"?\s*$', handle.read())
    if found is None:
        raise RuntimeError("no macops_exo_version in %s" % path)
    return found.group(1)


def other_version(version):
    """The release before VERSION (1.0.71 -> 1.0.70): what a node left behind runs."""
    parts = version.split(".")
    if not parts[-1].isdigit() or int(parts[-1]) == 0:
        raise RuntimeError("cannot name the release before %s" % version)
    return ".".join(parts[:-1] + [str(int(parts[-1]) - 1)])


def lab_versions():
    pinned = pinned_version()
    return [pinned, other_version(pinned)]


def _files(version):
    info = "exo-%s.dist-info" % version
    with open(STANDIN) as handle:
        program = handle.read()
    return [
        ("exo/__init__.py", '"""%s."""\n__version__ = "%s"\n' % (SUMMARY, version)),
        ("exo/main.py", program),
        (info + "/METADATA", "Metadata-Version: 2.1\nName: exo\nVersion: %s\nSummary: %s\nRequires-Python: %s\n\n"
         % (version, SUMMARY, REQUIRES_PYTHON)),
        (info + "/WHEEL", "Wheel-Version: 1.0\nGenerator: macops-lab\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (info + "/entry_points.txt", "[console_scripts]\nexo = exo.main:main\n"),
    ]


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d\n" % (name, digest, len(data))


def build(directory, version):
    """Write exo-VERSION-py3-none-any.whl into DIRECTORY; return its file name."""
    name = "exo-%s-py3-none-any.whl" % version
    record_name = "exo-%s.dist-info/RECORD" % version
    record = []
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, text in _files(version):
            data = text.encode("utf-8")
            entry = zipfile.ZipInfo(path, FIXED_TIME)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
            record.append(_record_line(path, data))
        entry = zipfile.ZipInfo(record_name, FIXED_TIME)
        entry.external_attr = 0o644 << 16
        wheel.writestr(entry, "".join(record) + "%s,,\n" % record_name)
    return name


def build_all(directory):
    """The lab's exo wheels (pinned and the release before) in DIRECTORY; their file names."""
    os.makedirs(directory, exist_ok=True)
    return [build(directory, version) for version in lab_versions()]
