"""macops.cluster.preflight_checks: every check's verdict from the node read, and the one decision
on the macOS build (most nodes win; on a tie the newest)."""
import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.preflight_checks import preflight_checks
from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem
from ansible_collections.macops.cluster.plugins.plugin_utils._preflight_checks import cluster_build

GIB = 1073741824


def mac(version="26.2", build="25C56", memory_gb=512):
    return {"macos_version": version, "macos_build": build, "memory_bytes": memory_gb * GIB}


def node(free_gb=500.0, filevault=("off", False, "FileVault is Off."), sshd=True):
    state, on, status = filevault
    return {"volumes": {"/": {"free_gb": free_gb}}, "filevault": {"state": state, "on": on, "status": status},
            "launchd": {"com.openssh.sshd": sshd}}


def codes(result):
    return [(p["code"], p["severity"], p["host"]) for p in result["problems"]]


def test_a_healthy_node_passes_every_check():
    result = preflight_checks(mac(), node(), "mac1", {"mac1": mac(), "mac2": mac()})
    assert [c["name"] for c in result["checks"]] == ["macos_version", "macos_build", "memory", "free_disk",
                                                   "filevault", "remote_login"]
    assert all(c["ok"] for c in result["checks"]) and result["problems"] == []


def test_each_failed_check_is_a_catalogue_problem_with_its_fix():
    result = preflight_checks(mac("26.1", "25B78", memory_gb=8), node(free_gb=12.5, sshd=False), "mac2",
                              {"mac2": mac("26.1", "25B78", 8)}, min_free_disk_gb=20)
    assert codes(result) == [("macos_too_old", "error", "mac2"), ("memory_too_small", "error", "mac2"),
                             ("disk_space_low", "error", "mac2"), ("remote_login_off", "error", "mac2")]
    assert all(is_problem(p) for p in result["problems"])
    disk = result["problems"][2]
    assert disk["message"] == "mac2 has 12.5 GiB free on its boot volume; the cluster needs 20 GiB."
    assert "tmutil listlocalsnapshots" in disk["fix"]


def test_the_build_off_the_majority_is_named_with_the_target():
    macs = {"mac1": mac(), "mac2": mac(), "mac3": mac("26.2", "25C57")}
    odd = preflight_checks(macs["mac3"], node(), "mac3", macs)
    assert codes(odd) == [("macos_build_mismatch", "error", "mac3")]
    assert "to build 25C56 (macOS 26.2" in odd["problems"][0]["fix"] and "mac1, mac2" in odd["problems"][0]["message"]
    assert preflight_checks(macs["mac1"], node(), "mac1", macs)["problems"] == []
    lenient = preflight_checks(macs["mac3"], node(), "mac3", macs, require_same_build=False)
    assert codes(lenient) == [("macos_build_mismatch", "warning", "mac3")]
    assert "build 25C57" in odd["problems"][0]["message"]


def test_a_tie_goes_to_the_newest_build_so_the_older_nodes_update():
    macs = {"mac1": mac("26.2", "25C56"), "mac2": mac("26.3", "25D60")}
    assert cluster_build(macs) == ("25D60", "26.3", ["mac2"])
    assert codes(preflight_checks(macs["mac1"], node(), "mac1", macs)) == [("macos_build_mismatch", "error", "mac1")]
    # numbers compare as numbers: 26.10 is newer than 26.9
    assert cluster_build({"a": mac("26.9", "x"), "b": mac("26.10", "y")})[0] == "y"


def test_filevault_on_and_pending():
    on = preflight_checks(mac(), node(filevault=("on", True, "FileVault is On.")), "mac1", {"mac1": mac()})
    assert codes(on) == [("filevault_on", "warning", "mac1")]
    assert "fdesetup authrestart" in on["problems"][0]["fix"]
    pending = preflight_checks(mac(), node(filevault=("pending", True, "FileVault is Off, but will be enabled "
                                                                  "after the next restart.")),
                               "mac1", {"mac1": mac()}, filevault_allowed=False)
    assert codes(pending) == [("filevault_on", "error", "mac1")]
    assert pending["problems"][0]["message"].startswith("FileVault is about to be turned on on mac1")
    assert pending["problems"][0]["fix"].startswith("Restart mac1 once with someone at the Mac")


def test_limits_print_as_given():
    result = preflight_checks(mac(memory_gb=8), node(), "mac1", {"mac1": mac(memory_gb=8)}, min_memory_gb=16.0)
    assert "at least 16 GiB per node" in result["problems"][0]["message"]


def test_a_node_read_without_its_groups_is_a_clear_error():
    with pytest.raises(AnsibleFilterError, match="the node read lacks"):
        preflight_checks(mac(), {"launchd": {}}, "mac1", {"mac1": mac()})
    with pytest.raises(AnsibleFilterError, match="must be dicts"):
        preflight_checks(None, node(), "mac1", {})
