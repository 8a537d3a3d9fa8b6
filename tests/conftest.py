"""Test-wide setup: make `ansible_collections.macops.cluster` resolve to this working tree.

`collections/ansible_collections/macops/cluster` is a symlink to the repository root, the same
path `ansible.cfg` gives Ansible, so tests import exactly the code a playbook runs.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Helpers shared by unit and end-to-end tests (input_cases.py) live beside this file.
if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, "collections")
if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)
# `ansible_collections` is a namespace package shared with the `ansible` PyPI package's
# bundled collections; extend it rather than shadow it.
import ansible_collections  # noqa: E402

_ours = os.path.join(COLLECTIONS, "ansible_collections")
if _ours not in list(ansible_collections.__path__):
    ansible_collections.__path__.append(_ours)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "wip: an end-to-end test written against the lab that does not pass yet; `make e2e` leaves it "
        "out and `make e2e-wip` runs it (each says why in its reason, and the issue note lists them)")
