"""Test-wide setup: make `ansible_collections.macops.cluster` resolve to this working tree.

`collections/ansible_collections/macops/cluster` is a symlink to the repository root, the same
path `ansible.cfg` gives Ansible, so tests import exactly the code a playbook runs.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, "collections")
if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)
# `ansible_collections` is a namespace package shared with the `ansible` PyPI package's
# bundled collections; extend it rather than shadow it.
import ansible_collections  # noqa: E402

_ours = os.path.join(COLLECTIONS, "ansible_collections")
if _ours not in list(ansible_collections.__path__):
    ansible_collections.__path__.append(_ours)
