"""The lab's pf filters packets: the block rules of the loaded rulesets, while pf is enabled, as nftables
rules in the host's network namespace (table inet maclab_pf). A Mac's kernel does this; the lab does it at
the same moments pf's state changes (the pfctl shim, and launchd at boot, when pf is off).

The subset is the one the collection and macOS's stock anchors write, as pfctl prints it back:
    block drop in quick on ! lo0 proto tcp|udp from ! <table> to any port = N | port N:M
Other rules stay state only (nothing else filters), as before. Stdlib only, Python 3.9.
"""
import re
import subprocess

from .netapply import linux_tool

TABLE = "maclab_pf"
BLOCK = re.compile(r"^block drop in quick on ! lo0 proto (?P<proto>tcp|udp) from ! <(?P<table>[\w.-]+)> to any "
                   r"port (?:= (?P<port>\d+)|(?P<first>\d+):(?P<last>\d+))$")


def _set_name(anchor, table):
    return "t_" + re.sub(r"[^A-Za-z0-9_]", "_", "%s_%s" % (anchor or "main", table))


def nft_script(pf_state):
    """The nft script that makes the host's packet filter what `pf_state` says: the table replaced by the rules
    of every ruleset when pf is enabled, removed when it is not."""
    lines = ["table inet %s" % TABLE, "delete table inet %s" % TABLE]
    if not pf_state.get("enabled"):
        return "\n".join(lines) + "\n"
    tables = pf_state.get("tables") or {}
    sets, rules = {}, []
    for anchor, ruleset in sorted((pf_state.get("rulesets") or {}).items()):
        for rule in ruleset:
            match = BLOCK.match(rule)
            addresses = (tables.get(anchor) or {}).get(match.group("table")) if match else None
            if addresses is None:
                continue
            name = _set_name(anchor, match.group("table"))
            sets[name] = addresses
            port = match.group("port") or "%s-%s" % (match.group("first"), match.group("last"))
            rules.append('    iifname != "lo" meta l4proto %s ip saddr != @%s %s dport %s drop' % (
                match.group("proto"), name, match.group("proto"), port))
    lines.append("table inet %s {" % TABLE)
    for name, addresses in sorted(sets.items()):
        elements = ("; elements = { %s }" % ", ".join(addresses)) if addresses else ""
        lines.append("  set %s { type ipv4_addr; flags interval; auto-merge%s; }" % (name, elements))
    lines += ["  chain input {", "    type filter hook input priority 0; policy accept;"] + rules + ["  }", "}"]
    return "\n".join(lines) + "\n"


def apply(pf_state):
    """Load nft_script(pf_state) into this network namespace; the error text, or None."""
    nft = linux_tool("nft")
    if nft is None:
        return "nft(8) not found"
    done = subprocess.run([nft, "-f", "-"], input=nft_script(pf_state), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    return done.stderr.strip() if done.returncode else None
