"""Pin host keys for testinfra's paramiko backend.

testinfra's paramiko backend accepts unknown host keys with a warning. The lab's known_hosts
(written by `lab/maclab up`) pins every simulated Mac's key, so load it and reject anything else,
as the OpenSSH connection Ansible uses does (StrictHostKeyChecking=yes).
"""
import os

import paramiko
import pytest

KNOWN_HOSTS = os.path.join(os.environ.get("MACLAB_ROOT", "/var/lib/maclab"), "controller", "known_hosts")


class PinnedSSHClient(paramiko.SSHClient):
    def __init__(self):
        super().__init__()
        self.load_host_keys(KNOWN_HOSTS)
        super().set_missing_host_key_policy(paramiko.RejectPolicy())

    def set_missing_host_key_policy(self, policy):
        """testinfra asks for WarningPolicy: keep rejecting unknown keys."""


@pytest.fixture(autouse=True, scope="session")
def _pin_host_keys():
    original = paramiko.SSHClient
    paramiko.SSHClient = PinnedSSHClient
    yield
    paramiko.SSHClient = original
