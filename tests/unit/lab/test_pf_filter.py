"""The lab's pf filters packets (lab/macsim/pf_filter.py): the collection's block rules, as pfctl prints them
back, become nftables rules while pf is enabled, and nothing is filtered once it is off."""
from macsim import pf, pf_filter

CONF = """\
table <macops_cluster> const { 198.19.0.0/16, 198.18.0.0/24 }
block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port { 52415, 52414 }
block drop in quick on ! lo0 proto udp from ! <macops_cluster> to any port 52413
block drop in quick on ! lo0 proto tcp from ! <macops_cluster> to any port 32323:32386
pass in quick proto tcp from any to any port 22
"""


def loaded(enabled=True):
    state = pf.default_state()
    pf.load(state, "macops", "/etc/pf.anchors/macops", CONF, lambda path: "")
    state["enabled"] = enabled
    return state


def test_each_block_rule_drops_what_its_table_does_not_hold_off_loopback():
    script = pf_filter.nft_script(loaded())
    assert "elements = { 198.19.0.0/16, 198.18.0.0/24 }" in script
    rules = [line.strip() for line in script.splitlines() if line.strip().startswith("iifname")]
    assert rules == [
        'iifname != "lo" meta l4proto tcp ip saddr != @t_macops_macops_cluster tcp dport 52415 drop',
        'iifname != "lo" meta l4proto tcp ip saddr != @t_macops_macops_cluster tcp dport 52414 drop',
        'iifname != "lo" meta l4proto udp ip saddr != @t_macops_macops_cluster udp dport 52413 drop',
        'iifname != "lo" meta l4proto tcp ip saddr != @t_macops_macops_cluster tcp dport 32323-32386 drop']


def test_nothing_is_filtered_while_pf_is_off():
    script = pf_filter.nft_script(loaded(enabled=False))
    assert script.splitlines() == ["table inet maclab_pf", "delete table inet maclab_pf"]


def test_a_rule_naming_a_table_the_ruleset_lacks_filters_nothing():
    state = loaded()
    state["tables"]["macops"] = {}
    assert "dport" not in pf_filter.nft_script(state)
