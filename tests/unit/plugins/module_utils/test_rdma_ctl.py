"""rdma_ctl status (plugins/module_utils/_rdma_ctl.py): enabled, disabled, a failed run unknown; invalid output
refused."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _rdma_ctl
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture


@pytest.mark.parametrize("text, status", [
    (read_fixture("rdma_ctl/enabled.txt"), "enabled"),
    (read_fixture("rdma_ctl/disabled.txt"), "disabled"),
    ("  Enabled \n", "enabled"),
])
def test_rdma_ctl_status(text, status):
    assert _rdma_ctl.parse_status(text) == status
    assert _rdma_ctl.status_from_result(0, text) == status


@pytest.mark.parametrize("text", ["", "\n", "enabled disabled\n", "rdma_ctl: Operation not permitted\n"])
def test_rdma_ctl_status_rejects(text):
    with pytest.raises(ParseError, match="rdma_ctl status"):
        _rdma_ctl.parse_status(text)


def test_rdma_ctl_failed_run_is_unknown():
    assert _rdma_ctl.status_from_result(1, "enabled\n") == "unknown"


@pytest.mark.parametrize("status, flag", [("enabled", True), ("disabled", False), ("unknown", None)])
def test_rdma_ctl_enabled_flag(status, flag):
    assert _rdma_ctl.enabled_flag(status) is flag
