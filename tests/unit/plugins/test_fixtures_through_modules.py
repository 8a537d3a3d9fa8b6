"""Every parser fixture through the module that runs its command (issue 12, acceptance 3).

Each fixture is what one macOS command prints; here it becomes that command's output in the
module that runs it on a Mac (every other command answers as a healthy Mac does), and the module
must end the way Ansible expects: a result, or a failure whose message names the command. An
uncaught exception would escape main() and fail the test with its traceback.
"""
import inspect
import os

import pytest
from fixture_files import FIXTURES, read_fixture
from module_harness import run_module

from ansible_collections.macops.cluster.plugins.module_utils import (_apfs_users, _networksetup, _softwareupdate, _sudo_rules,
                                                                  _system_profiler)
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.plugin_utils import _bench_exo, _bench_generate, _bench_hpl
from ansible_collections.macops.cluster.plugins.modules import (
    link_bench,
    node_facts,
    pf_status,
    pmset,
    rdma_status,
    system_profiler,
    tb_network,
)

NS = "/usr/sbin/networksetup"


def ok(fixture):
    return (0, read_fixture(fixture), "")


# What a healthy Mac Studio answers, by argv prefix (the first matching prefix wins).
HEALTHY = [
    (["/usr/sbin/system_profiler", "-json"], ok("system_profiler/studio_m3_ultra.json")),
    ([NS, "-listallhardwareports"], ok("networksetup/listallhardwareports_studio.txt")),
    ([NS, "-listnetworkserviceorder"], ok("networksetup/listnetworkserviceorder.txt")),
    ([NS, "-getinfo"], ok("networksetup/getinfo_manual.txt")),
    ([NS, "-getMTU"], (0, "Active MTU: 1500 (Current Setting: 1500)\n", "")),
    (["/sbin/ifconfig"], ok("ifconfig/bridge0_two_members.txt")),
    (["/usr/bin/sw_vers"], ok("sw_vers/tahoe_26_2.txt")),
    (["/usr/bin/rdma_ctl"], ok("rdma_ctl/enabled.txt")),
    (["/usr/bin/ibv_devices"], ok("ibv_devices/studio.txt")),
    (["/usr/bin/ibv_devinfo"], ok("ibv_devinfo/studio_ready_v.txt")),
    (["/bin/df"], ok("df/studio_root.txt")),
    (["/usr/bin/fdesetup", "supportsauthrestart"], (0, "false\n", "")),
    (["/usr/bin/fdesetup"], ok("fdesetup/off.txt")),
    (["/bin/launchctl", "print-disabled"], ok("launchctl/print_disabled_macos14.txt")),
    (["/bin/launchctl"], (0, "system/com.openssh.sshd = {\n\tstate = waiting\n}\n", "")),
    (["/sbin/pfctl", "-s", "info"], ok("pfctl/info_enabled.txt")),
    (["/sbin/pfctl", "-a"], ok("pfctl/anchor_rules.txt")),
    (["/usr/bin/pmset", "-g"], ok("pmset/studio_cluster.txt")),
    (["/sbin/route", "-n", "get", "default"], ok("route/default_en0.txt")),
    (["/sbin/route"], ok("route/peer_on_en3.txt")),
    (["/sbin/ping"], ok("ping/macos_two_replies.txt")),
]


class PrefixMac(object):
    """A Mac answering by argv prefix: `substitute` (the fixture under test) before HEALTHY."""

    def __init__(self, prefix, output):
        self.answers = [(prefix, output)] + HEALTHY
        self.prefix = prefix
        self.calls = []

    def get_bin_path(self, name, required=False, opt_dirs=None):
        return "%s/%s" % (opt_dirs[0], name)

    def run_command(self, args, **kwargs):
        self.calls.append(list(args))
        for prefix, output in self.answers:
            if list(args[:len(prefix)]) == prefix:
                return output
        return (0, "", "")

    def fed(self):
        return any(call[:len(self.prefix)] == self.prefix for call in self.calls)


LINK = {"interface": "en3", "peer_ip": "198.19.0.2", "peer_host": "mac2"}
# One cable measured as the client; no waiting for a server that never comes (connect_wait 0).
CABLE = {"tests": [{"link_id": "mac1:en3--mac2:en3", "client_ip": "198.19.0.1", "server_ip": "198.19.0.2"}],
         "connect_wait": 0}
READ_ONLY_NETWORK = {"services": [{"device": "en3", "address": "198.19.0.1"}], "bridge": "absent",
                     "_ansible_check_mode": True}
# Nothing to change, then the cable check (route and ping per link); a silent cable is a problem, not a failure.
VERIFY_ONLY = {"services": [], "bridge": "keep", "order": False, "links": [LINK], "host": "mac1",
               "require_links": False}

# fixture directory (and file-name prefix) -> the argv prefix that prints it, and the module runs
# (main, module args) that run that command.
ROUTES = [
    ("system_profiler/", ".json", ["/usr/sbin/system_profiler", "-json"],
     [(system_profiler.main, {}), (rdma_status.main, {"mac_facts": True})]),
    ("networksetup/listallhardwareports", "", [NS, "-listallhardwareports"],
     [(system_profiler.main, {}), (rdma_status.main, {}), (tb_network.main, READ_ONLY_NETWORK)]),
    ("networksetup/listnetworkserviceorder", "", [NS, "-listnetworkserviceorder"], [(tb_network.main, READ_ONLY_NETWORK)]),
    ("networksetup/getinfo", "", [NS, "-getinfo"], [(tb_network.main, READ_ONLY_NETWORK)]),
    ("ifconfig/", "", ["/sbin/ifconfig"], [(tb_network.main, READ_ONLY_NETWORK)]),
    ("sw_vers/", "", ["/usr/bin/sw_vers"], [(node_facts.main, {"gather": ["macos"]}), (rdma_status.main, {})]),
    ("df/", "", ["/bin/df"], [(node_facts.main, {"gather": ["disk"]})]),
    ("lsof/", "", ["/usr/sbin/lsof"], [(node_facts.main, {"gather": ["listening"]})]),
    ("vm_stat/", "", ["/usr/bin/vm_stat"], [(node_facts.main, {"gather": ["memory"]})]),
    ("fdesetup/", "", ["/usr/bin/fdesetup", "status"], [(node_facts.main, {"gather": ["filevault"]})]),
    ("launchctl/print_disabled", "", ["/bin/launchctl", "print-disabled"],
     [(node_facts.main, {"gather": ["launchd_disabled"], "launchd_labels": ["org.macops.serve"]})]),
    ("rdma_ctl/", "", ["/usr/bin/rdma_ctl"], [(rdma_status.main, {})]),
    ("ibv_devices/", "", ["/usr/bin/ibv_devices"], [(rdma_status.main, {})]),
    ("ibv_devinfo/", "", ["/usr/bin/ibv_devinfo"], [(rdma_status.main, {})]),
    ("pfctl/", "", ["/sbin/pfctl"], [(pf_status.main, {"anchor": "macops"})]),
    ("pmset/", "", ["/usr/bin/pmset", "-g"], [(pmset.main, {"settings": {"sleep": 0}, "_ansible_check_mode": True})]),
    ("route/", "", ["/sbin/route"], [(tb_network.main, VERIFY_ONLY)]),
    ("ping/", "", ["/sbin/ping"], [(tb_network.main, VERIFY_ONLY)]),
    ("iperf3/", ".json", ["/opt/homebrew/bin/iperf3", "-c"], [(link_bench.main, CABLE)]),
    ("softwareupdate/list", "", ["/usr/sbin/softwareupdate", "--list"], [(node_facts.main, {"gather": ["updates"]})]),
]

# Fixtures of parsers no module runs (yet): fed to their parser, which must answer or raise ParseError.
PARSER_ONLY = {
    "networksetup/listallnetworkservices.txt": _networksetup.parse_all_services,
    "system_profiler/studio_thunderbolt.txt": _system_profiler.parse_thunderbolt_text,
    "system_profiler/studio_thunderbolt_dock_and_ssd.txt": _system_profiler.parse_thunderbolt_text,
    "system_profiler/intel_thunderbolt3.txt": _system_profiler.parse_thunderbolt_text,
    "system_profiler/studio_hardware.txt": _system_profiler.parse_hardware_text,
    "system_profiler/studio_hardware_lower_case_cores.txt": _system_profiler.parse_hardware_text,
    # The sudoers role reads `sudo -n -l` raw and audits it on the controller (the sudo_rules action).
    "sudo/list_default_rules_lab.txt": _sudo_rules.parse_listing,
    # The benchmark role's runs are parsed on the controller by the cluster_report action's benchmark section.
    "mlx_lm_benchmark/one_node.txt": _bench_generate.parse_benchmark_output,
    "mlx_lm_benchmark/pipeline_4_ranks.txt": _bench_generate.parse_benchmark_output,
    "mlx_lm_benchmark/pipeline_peer_lost.txt": _bench_generate.parse_benchmark_output,
    "exo_bench/two_placements.json": _bench_exo.parse_exo_bench,
    "exo_bench/no_placement.json": _bench_exo.parse_exo_bench,
    "hpl/one_test_passed.txt": _bench_hpl.parse_hpl,
    "hpl/two_sizes_passed.txt": _bench_hpl.parse_hpl,
    "hpl/residual_failed.txt": _bench_hpl.parse_hpl,
    # macos_update_install follows softwareupdate's output as it comes (its test runs a stand-in softwareupdate);
    # macos_update_owner reads dscl first (its test feeds the listings through the module).
    "softwareupdate/install_ventura_13_3.txt": _softwareupdate.parse_install,
    "diskutil_apfs/list_users_owner_and_recovery.txt": _apfs_users.parse_users,
    "diskutil_apfs/list_users_two_accounts.txt": _apfs_users.parse_users,
}
MODULES = (link_bench, node_facts, pf_status, pmset, rdma_status, system_profiler, tb_network)


def fixture_files():
    found = []
    for directory in sorted(os.listdir(FIXTURES)):
        for name in sorted(os.listdir(os.path.join(FIXTURES, directory))):
            if name != "README.md":
                found.append("%s/%s" % (directory, name))
    return found


def route_of(fixture):
    for start, end, prefix, runs in ROUTES:
        if fixture.startswith(start) and fixture.endswith(end):
            return prefix, runs
    return None


CASES = [(fixture, main, args) for fixture in fixture_files() if route_of(fixture)
         for main, args in route_of(fixture)[1]]


def test_every_fixture_is_fed_to_a_module_or_its_parser():
    unrouted = [f for f in fixture_files() if route_of(f) is None and f not in PARSER_ONLY]
    assert unrouted == [], ("fed to nothing: add each to ROUTES (the module whose command prints it) or to "
                            "PARSER_ONLY (its parser, when no module runs it, e.g. a filter over a raw read)")
    assert all(f in fixture_files() for f in PARSER_ONLY)
    # a parser-only fixture stops being one as soon as a module runs its parser: route it then
    used = "".join(inspect.getsource(module) for module in MODULES)
    assert not any(parser.__name__ in used for parser in PARSER_ONLY.values())


@pytest.mark.parametrize("fixture, main, args", CASES,
                         ids=["%s-%s" % (c[0], c[1].__module__.rsplit(".", 1)[1]) for c in CASES])
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_fixture_through_the_module_never_raises(monkeypatch, capsys, fixture, main, args, stream):
    prefix, _runs = route_of(fixture)
    text = read_fixture(fixture)
    # as the command's output, and as its error text after a failed run
    output = (0, text, "") if stream == "stdout" else (1, "", text)
    mac = PrefixMac(prefix, output)
    result, _calls = run_module(monkeypatch, capsys, main, dict(args), mac)
    assert mac.fed(), "the module never ran %s" % " ".join(prefix)
    assert "exception" not in result and "Traceback" not in str(result.get("msg", ""))
    if result.get("failed"):
        # a clean failure names the command whose output it could not use
        assert os.path.basename(prefix[0]) in result["msg"], result["msg"]


@pytest.mark.parametrize("fixture", sorted(PARSER_ONLY))
def test_parser_only_fixtures_parse_or_fail_cleanly(fixture):
    try:
        PARSER_ONLY[fixture](read_fixture(fixture))
    except ParseError as error:
        assert error.command and error.reason
