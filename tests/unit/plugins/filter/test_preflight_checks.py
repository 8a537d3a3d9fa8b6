"""macops.cluster.preflight_checks: every check's verdict from the node read, each failed check a catalogue
problem with its fix, the tools the roles need, and the build off the majority named."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.macops.cluster.plugins.filter.preflight_checks import preflight_checks
from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem

from preflight_read import mac, node, responded


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


def test_a_node_that_took_a_security_response_alone_is_named_with_its_release_and_the_way_forward():
    macs = {"mac1": mac("26.3.1", "25D2128"), "mac2": responded(), "mac3": mac("26.3.1", "25D2128")}
    odd = preflight_checks(macs["mac2"], node(), "mac2", macs)
    assert codes(odd) == [("macos_build_mismatch", "error", "mac2")]
    message = odd["problems"][0]["message"]
    assert message.startswith("mac2 runs macOS 26.3.1 (a) (build 25D771280a), the other nodes 26.3.1 (mac1, mac3, "
                              "build 25D2128)")
    assert "carries the security response (a), which the others do not" in message
    assert "macos_update_version=\"26.3.1 (a)\"" in message
    # The other way round: the nodes without it are told the others carry it.
    behind = {"mac1": responded(), "mac2": responded(), "mac3": mac("26.3.1", "25D2128")}
    late = preflight_checks(behind["mac3"], node(), "mac3", behind)
    assert "The others carry the security response (a), which it does not." in late["problems"][0]["message"]
    assert "macOS 26.3.1 (a)" in late["problems"][0]["fix"]
    # Different releases are no drift: no response sentence.
    moved = {"mac1": mac("26.3", "25D60"), "mac2": mac("26.3", "25D60"), "mac3": responded()}
    assert "security response" not in preflight_checks(moved["mac3"], node(), "mac3", moved)["problems"][0]["message"]


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


TOOLS = {"homebrew": ["/opt/homebrew/bin/brew"], "rust": ["~/.cargo/bin/cargo", "/opt/homebrew/bin/cargo"],
         "node": ["/opt/homebrew/bin/node"]}
# The settings site.yml's defaults give: python_env from Homebrew, exo with pip from its git tag.
SITE = {"python_env_interpreter_source": "homebrew", "exo_install": True, "exo_install_method": "pip",
        "exo_package_spec": "exo @ git+https://github.com/exo-explore/exo.git@v1.0.68"}


def with_programs(**there):
    read = node()
    read["programs"] = dict((path, there.get(path, False)) for paths in TOOLS.values() for path in paths)
    return read


def tool_codes(read, settings):
    result = preflight_checks(mac(), read, "mac1", {"mac1": mac()}, tools=TOOLS, settings=settings)
    return [c["name"] for c in result["checks"]][6:], codes(result), result["problems"]


def test_a_mac_without_homebrew_or_rust_fails_before_any_role_needs_them():
    names, found, problems = tool_codes(with_programs(), SITE)
    assert names == ["homebrew", "exo_build_tools"]
    assert found == [("homebrew_missing", "error", "mac1"), ("exo_build_tools_missing", "error", "mac1")]
    assert "python_env installs its interpreter with it (python_env_interpreter_source homebrew)" in problems[0]["message"]
    assert "mac1 lacks Rust's cargo (~/.cargo/bin/cargo or /opt/homebrew/bin/cargo)" in problems[1]["message"]
    assert "rustup toolchain install nightly" in problems[1]["fix"] and "macops_exo_enabled false" in problems[1]["fix"]


def test_any_one_path_of_a_tool_will_do_and_tools_no_role_needs_are_not_checked():
    ready = with_programs(**{"/opt/homebrew/bin/brew": True, "/opt/homebrew/bin/cargo": True})
    assert tool_codes(ready, SITE)[:2] == (["homebrew", "exo_build_tools"], [])
    # exo from a package index with built wheels builds nothing: no Rust needed, Homebrew still (exo's Python).
    index = dict(SITE, exo_package_spec="exo==1.0.68", python_env_interpreter_source="path")
    assert tool_codes(with_programs(), index)[:2] == (["homebrew"], [("homebrew_missing", "error", "mac1")])
    # A play without python_env or exo (preflight alone): nothing to check.
    assert tool_codes(with_programs(), {"python_env_interpreter_source": None, "exo_install": None})[:2] == ([], [])
    assert tool_codes(with_programs(), None)[:2] == ([], [])


def test_exo_from_source_needs_node_too_and_names_only_what_is_missing():
    source = dict(SITE, exo_install_method="source")
    _names, found, problems = tool_codes(with_programs(**{"/opt/homebrew/bin/brew": True,
                                                          "~/.cargo/bin/cargo": True}), source)
    assert found == [("exo_build_tools_missing", "error", "mac1")]
    assert "mac1 lacks node (/opt/homebrew/bin/node)" in problems[0]["message"]
    assert "brew install node" in problems[0]["fix"] and "rustup" not in problems[0]["fix"]
