"""Fixtures of the shim's unit tests; the lab itself is built by shimlab.py."""
import os
import shutil
import subprocess
import tempfile

import pytest

from shimlab import AnsibleModuleStub, Lab, build_lab


@pytest.fixture(scope="session")
def booted_lab_template():
    """The lab right after boot (netapply done), built once and copied for every test."""
    root = tempfile.mkdtemp(prefix="maclab-unit-template-", dir="/tmp")
    try:
        build_lab(os.path.join(root, "lab"))
        yield os.path.join(root, "lab")
    finally:
        shutil.rmtree(root)


@pytest.fixture
def lab(booted_lab_template):
    # A world-readable root: some tests run the shim as `nobody`.
    root = tempfile.mkdtemp(prefix="maclab-unit-", dir="/tmp")
    os.chmod(root, 0o755)
    try:
        for name in os.listdir(booted_lab_template):
            src = os.path.join(booted_lab_template, name)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(root, name), symlinks=True)
            else:
                shutil.copy2(src, os.path.join(root, name))
        yield Lab(root)
    finally:
        shutil.rmtree(root)


@pytest.fixture
def ansible_module(lab):
    return AnsibleModuleStub(lab)


@pytest.fixture
def fake_launchd():
    """A process whose name is `launchd`, standing in for the host's PID 1."""
    tmp = tempfile.mkdtemp()
    link = os.path.join(tmp, "launchd")
    os.symlink("/bin/sleep", link)
    proc = subprocess.Popen([link, "60"])
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.unlink(link)
        os.rmdir(tmp)
