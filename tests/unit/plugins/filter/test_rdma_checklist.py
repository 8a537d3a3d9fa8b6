"""macops.cluster.rdma_checklist, as the rdma role calls it: one line when every node is ready, else the recovery
steps once, then each other error per host and port, then the nodes not ready."""
from ansible_collections.macops.cluster.plugins.filter import rdma_checklist
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

from cabling_builder import HOSTS, build_nodes, mesh_cables, ready_rdma


def test_every_node_ready_says_so_in_one_line():
    statuses = ready_rdma(build_nodes(HOSTS, mesh_cables(HOSTS)))
    assert rdma_checklist.rdma_checklist(statuses) == ["Not ready for RDMA: none"]


def test_recovery_steps_come_once_then_each_other_error_per_host_and_port():
    statuses = ready_rdma(build_nodes(HOSTS, mesh_cables(HOSTS)), down=[("mac2", "en3")], disabled=["mac3", "mac1"])
    fix = [p for p in statuses["mac1"]["problems"] if p["code"] == "rdma_disabled"][0]["fix"]
    statuses["mac2"]["problems"].append(problem("rdma_device_missing", "no device", "Check the cable.", port="en4",
                                                severity="warning"))
    statuses["mac4"]["problems"] = [problem("rdma_ctl_missing", "no rdma_ctl", "Update macOS.", severity="error")]
    statuses["mac4"]["ready"] = False
    down = [p for p in statuses["mac2"]["problems"] if p["code"] == "rdma_port_down"][0]
    assert rdma_checklist.rdma_checklist(statuses) == [
        "Enable RDMA on mac1, mac3: " + fix,
        "mac2 en3: [rdma_port_down] down FIX: %s" % down["fix"],  # the warning is left out
        "mac4: [rdma_ctl_missing] no rdma_ctl FIX: Update macOS.",
        "Not ready for RDMA: mac1, mac2, mac3, mac4"]
