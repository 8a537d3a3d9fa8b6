"""The checklist the rdma role prints when RDMA is not ready (plugins/plugin_utils/_rdma_checklist.py): the recovery
steps once for every node with RDMA disabled, then each other error per node and port (warnings left out), then the
nodes not ready, in the order given; a node without a result, or without ready, is not ready."""
from ansible_collections.macops.cluster.plugins.plugin_utils._rdma_checklist import rdma_checklist

STEPS = "Boot into recoveryOS, run `rdma_ctl enable`, reboot."


def disabled():
    return {"ready": False, "problems": [{"code": "rdma_disabled", "severity": "error", "port": None,
                                          "message": "RDMA is disabled", "fix": STEPS}]}


def test_every_node_ready_is_one_line():
    assert rdma_checklist({"mac1": {"ready": True}, "mac2": {"ready": True, "problems": []}}) == [
        "Not ready for RDMA: none"]


def test_recovery_once_then_errors_per_node_and_port_in_the_order_given():
    statuses = {
        "mac3": disabled(),
        "mac1": {"ready": False, "problems": [
            {"code": "rdma_port_down", "severity": "error", "port": "en4", "message": "down", "fix": "Reseat it."},
            {"code": "rdma_device_missing", "severity": "warning", "port": "en5", "message": "no device", "fix": "x"},
            {"code": "rdma_ctl_missing", "severity": "error", "port": None, "message": "no rdma_ctl",
             "fix": "Update macOS."}]},
        "mac2": disabled(),
        "mac4": {"ready": True},
    }
    assert rdma_checklist(statuses) == [
        "Enable RDMA on mac3, mac2: " + STEPS,
        "mac1 en4: [rdma_port_down] down FIX: Reseat it.",
        "mac1: [rdma_ctl_missing] no rdma_ctl FIX: Update macOS.",
        "Not ready for RDMA: mac3, mac1, mac2"]


def test_a_node_without_a_result_or_without_ready_is_not_ready():
    assert rdma_checklist({"mac1": None, "mac2": {}, "mac3": {"ready": True}}) == ["Not ready for RDMA: mac1, mac2"]
