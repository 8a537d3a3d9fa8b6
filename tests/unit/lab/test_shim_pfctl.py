"""pfctl: root only, -nf parse checks of what the firewall role writes, loading per anchor,
-E/-X reference counting, -d, -F, and -s info/rules. State only: nothing is filtered."""
import os

import pytest

from macsim import hostfs, pf
from shimlab import NOBODY

# What roles/firewall/templates/macops.pf.j2 renders for the lab inventory.
MACOPS_ANCHOR = """\
# Managed by macops.cluster (role firewall); local changes are overwritten.
table <macops_cluster> const { 198.19.0.0/16, 198.18.0.0/24 }
block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port { 52415, 52414 }
block drop in quick on ! lo0 proto udp from ! <macops_cluster> to any port { 52413 }
block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port 32323:32386
"""
# The block roles/firewall/tasks/configure.yml appends to pf.conf with blockinfile.
MACOPS_PF_CONF_BLOCK = """\
# BEGIN macops.cluster firewall
anchor "macops"
load anchor "macops" from "/etc/pf.anchors/macops"
# END macops.cluster firewall
"""


@pytest.fixture
def pf_files(lab):
    """The host's /etc as `up` writes it, plus the firewall role's anchor file."""
    hostfs.write_pf_files(lab.fs)
    with open(os.path.join(lab.fs, "etc", "pf.anchors", "macops"), "w") as fh:
        fh.write(MACOPS_ANCHOR)
    with open(os.path.join(lab.fs, "etc", "pf.conf"), "a") as fh:
        fh.write(MACOPS_PF_CONF_BLOCK)
    return os.path.join(lab.fs, "etc")


def write(lab, name, text):
    path = os.path.join(lab.fs, "tmp", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    return "/tmp/" + name


def test_non_root_gets_permission_denied(lab, pf_files):
    for args in (["-s", "info"], ["-nf", "/etc/pf.conf"], ["-E"]):
        result = lab.run_process("pfctl", *args, uid=NOBODY)
        assert (result.rc, result.err) == (1, "pfctl: /dev/pf: Permission denied\n"), args


def test_parse_check_accepts_the_stock_and_the_roles_files(lab, pf_files):
    assert lab.run("pfctl", "-nf", "/etc/pf.conf").rc == 0
    assert lab.run("pfctl", "-n", "-f", "/etc/pf.anchors/macops").rc == 0
    assert lab.run("pfctl", "-nf", "/etc/pf.anchors/com.apple").rc == 0
    assert "pf" not in lab.state(), "-n must not load anything"


@pytest.mark.parametrize("text, message", [
    ("block drop in quick on ! lo0 proto tcp from any to any port { 1, 2 }\nthis is not pf\n",
     "/tmp/bad.conf:2: syntax error\n"),
    ("block in all\nnat-anchor \"x/*\"\n",
     "/tmp/bad.conf:2: Rules must be in order: options, normalization, queueing, translation, filtering\n"),
    ("block in proto tcp from $nowhere to any\n", "/tmp/bad.conf:1: macro 'nowhere' not defined\n"),
])
def test_parse_check_rejects_garbage_like_pfctl(lab, pf_files, text, message):
    result = lab.run("pfctl", "-nf", write(lab, "bad.conf", text))
    assert result.rc == 1
    assert result.err == message + "pfctl: Syntax error in config file: pf rules not loaded\n"


def test_load_main_ruleset_loads_its_anchors_and_enable_hands_out_tokens(lab, pf_files):
    info = lab.run("pfctl", "-s", "info")
    assert info.rc == 0 and info.out.startswith("Status: Disabled ")
    loaded = lab.run("pfctl", "-E", "-f", "/etc/pf.conf")
    assert loaded.rc == 0, loaded
    assert "Use of -f option, could result in flushing of rules" in loaded.err
    assert loaded.out.splitlines()[0] == "pf enabled"
    token = loaded.out.splitlines()[1]
    assert token.startswith("Token : ") and token[len("Token : "):].isdigit()
    assert lab.run("pfctl", "-s", "info").out.startswith("Status: Enabled for 0 days 00:00:")
    main = lab.run("pfctl", "-sr").out.splitlines()
    assert main == ['scrub-anchor "com.apple/*" all', 'anchor "com.apple/*" all', 'anchor "macops" all']
    assert lab.run("pfctl", "-s", "nat").out.splitlines() == [
        'nat-anchor "com.apple/*" all', 'rdr-anchor "com.apple/*" all']
    assert 'anchor "200.AirDrop/*" all' in lab.run("pfctl", "-a", "com.apple", "-s", "rules").out
    macops = lab.run("pfctl", "-a", "macops", "-s", "rules").out.splitlines()
    assert macops == [
        "block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port = 52415",
        "block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port = 52414",
        "block drop in quick on ! lo0 proto udp from ! <macops_cluster> to any port = 52413",
        "block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port 32323:32386"]


def test_enable_references_and_disable(lab, pf_files):
    first = lab.run("pfctl", "-E").out.split()[-1]
    second = lab.run("pfctl", "-E").out.split()[-1]
    assert int(second) == int(first) + 1
    assert lab.run("pfctl", "-X", first).rc == 0
    assert lab.state()["pf"]["enabled"], "pf stays on while a reference is held"
    assert lab.run("pfctl", "-X", first).rc == 1, "a token is released once"
    assert lab.run("pfctl", "-X", second).rc == 0
    assert lab.run("pfctl", "-s", "info").out.startswith("Status: Disabled")
    assert lab.run("pfctl", "-e").out == "pf enabled\n"
    assert lab.run("pfctl", "-e").err.endswith("pfctl: pf already enabled\n")
    disabled = lab.run("pfctl", "-d")
    assert (disabled.rc, disabled.err) == (0, "pf disabled\n")
    assert lab.run("pfctl", "-d").err == "pfctl: pf not enabled\n"


def test_anchor_load_and_flush_leave_other_anchors_alone(lab, pf_files):
    assert lab.run("pfctl", "-f", "/etc/pf.conf").rc == 0
    assert lab.run("pfctl", "-a", "macops", "-F", "all").rc == 0
    assert lab.run("pfctl", "-a", "macops", "-s", "rules").out == ""
    assert lab.run("pfctl", "-a", "com.apple", "-s", "rules").out != ""
    assert lab.run("pfctl", "-sr").out.count("\n") == 3
    reloaded = lab.run("pfctl", "-a", "macops", "-f", "/etc/pf.anchors/macops")
    assert reloaded.rc == 0 and "flushing" not in reloaded.err, "only a main-ruleset load warns"
    assert len(lab.run("pfctl", "-a", "macops", "-s", "rules").out.splitlines()) == 4


def test_a_failed_load_keeps_the_running_rules(lab, pf_files):
    assert lab.run("pfctl", "-f", "/etc/pf.conf").rc == 0
    before = lab.state()["pf"]["rulesets"]
    assert lab.run("pfctl", "-a", "macops", "-f", write(lab, "bad.conf", "pass inn all\n")).rc == 1
    assert lab.run("pfctl", "-f", "/nonexistent.conf").err == "pfctl: /nonexistent.conf: No such file or directory\n"
    assert lab.state()["pf"]["rulesets"] == before


def test_boot_reset_turns_pf_off_and_reloads_pf_conf(lab, pf_files):
    state = pf.default_state()
    state.update(enabled=True, tokens=[5], rulesets={"macops": ["block all"], "stale": ["pass all"]})

    def read(path):
        with open(os.path.join(lab.fs, path.lstrip("/"))) as fh:
            return fh.read()
    assert pf.boot_reset(state, read) is None
    assert not state["enabled"] and state["tokens"] == []
    assert sorted(state["rulesets"]) == ["", "com.apple", "macops"]
    assert len(state["rulesets"]["macops"]) == 4


def test_boot_reset_reports_a_broken_pf_conf(lab, pf_files):
    state = pf.default_state()
    problem = pf.boot_reset(state, lambda path: "garbage line\n")
    assert "syntax error" in problem and state["rulesets"] == {} and not state["enabled"]
