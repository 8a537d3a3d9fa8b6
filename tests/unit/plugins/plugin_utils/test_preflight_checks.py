"""The one decision on the macOS build (plugins/plugin_utils/_preflight_checks.py): most nodes win; on a tie the
newest, and a security response over its release."""
from ansible_collections.macops.cluster.plugins.filter.preflight_checks import preflight_checks
from ansible_collections.macops.cluster.plugins.plugin_utils._preflight_checks import cluster_build

from preflight_read import mac, node, responded


def codes(result):
    return [(p["code"], p["severity"], p["host"]) for p in result["problems"]]


def test_a_tie_goes_to_the_newest_build_so_the_older_nodes_update():
    macs = {"mac1": mac("26.2", "25C56"), "mac2": mac("26.3", "25D60")}
    assert cluster_build(macs) == ("25D60", "26.3", ["mac2"])
    assert codes(preflight_checks(macs["mac1"], node(), "mac1", macs)) == [("macos_build_mismatch", "error", "mac1")]
    # numbers compare as numbers: 26.10 is newer than 26.9
    assert cluster_build({"a": mac("26.9", "x"), "b": mac("26.10", "y")})[0] == "y"


def test_a_tie_between_a_release_and_its_security_response_goes_to_the_response():
    macs = {"mac1": mac("26.3.1", "25D2128"), "mac2": responded()}
    assert cluster_build(macs) == ("25D771280a", "26.3.1 (a)", ["mac2"])
