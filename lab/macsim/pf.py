"""The lab's pf: a parser for the pf.conf subset Macs and the collection use, and the state
operations `pfctl` (shim) and launchd (boot) share. State only: nothing here filters packets.

State lives in state.json under "pf":
    {"enabled": bool, "tokens": [int], "next_token": int, "enabled_since": epoch,
     "rulesets": {"": [main rules], "com.apple": [...], "macops": [...]}}
Rules are stored as pfctl would print them back (`pfctl -s rules`): macros substituted, port
lists expanded one rule per port, `all` added to bare anchor rules. Tables are kept per anchor
under "tables" for completeness; nothing reads them.

Stock files: MACOS_PF_CONF and MACOS_COM_APPLE_ANCHOR are reconstructed from memory and from
third-party copies of macOS's /etc/pf.conf (krypted.com, "a cheat sheet for using pf in OS X"),
not from a capture of macOS 26: the comment block and the exact anchor list are unconfirmed.
"""
import re

MACOS_PF_CONF = """\
#
# Default PF configuration file.
#
# This file contains the main ruleset, which gets automatically loaded
# at startup.  PF will not be automatically enabled, however.  Instead,
# each component which utilizes PF is responsible for enabling and disabling
# PF via -E and -X as documented in pfctl(8).  That will ensure that PF
# is disabled only when the last enable reference is released.
#
# Care must be taken to ensure that the main ruleset does not get flushed,
# as the nested anchors rely on the anchor point defined here. In addition,
# to the anchors loaded by this file, some system services would dynamically
# insert anchors into the main ruleset. These anchors will be added only when
# the system service is used and would removed on termination of the service.
#
# See pf.conf(5) for syntax.
#

#
# com.apple anchor point
#
scrub-anchor "com.apple/*"
nat-anchor "com.apple/*"
rdr-anchor "com.apple/*"
dummynet-anchor "com.apple/*"
anchor "com.apple/*"
load anchor "com.apple" from "/etc/pf.anchors/com.apple"
"""

MACOS_COM_APPLE_ANCHOR = """\
#
# Default PF anchors for macOS.
#
# Rules in these anchors are added by system services (Internet Sharing, AirDrop, the
# Application Firewall, Network Link Conditioner) while they are in use.
#
scrub-anchor "100.InternetSharing/*"
scrub-anchor "300.NetworkLinkConditioner/*"
nat-anchor "100.InternetSharing/*"
rdr-anchor "100.InternetSharing/*"
anchor "100.InternetSharing/*"
anchor "200.AirDrop/*"
anchor "250.ApplicationFirewall/*"
dummynet-anchor "300.NetworkLinkConditioner/*"
anchor "300.NetworkLinkConditioner/*"
"""

# pf.conf(5): statements must come in this order (tables, macros and `load anchor` anywhere).
# Apple's com.apple anchor file has a dummynet-anchor after filter anchors, so dummynet rules
# are taken anywhere (ORDER_DUMMYNET is not compared).
ORDER_OPTIONS, ORDER_NORMALIZATION, ORDER_TRANSLATION, ORDER_FILTER, ORDER_DUMMYNET = range(5)
ORDER_OF = {
    "set": ORDER_OPTIONS, "scrub": ORDER_NORMALIZATION, "scrub-anchor": ORDER_NORMALIZATION,
    "nat": ORDER_TRANSLATION, "rdr": ORDER_TRANSLATION, "binat": ORDER_TRANSLATION,
    "nat-anchor": ORDER_TRANSLATION, "rdr-anchor": ORDER_TRANSLATION,
    "dummynet": ORDER_DUMMYNET, "dummynet-anchor": ORDER_DUMMYNET,
    "pass": ORDER_FILTER, "block": ORDER_FILTER, "anchor": ORDER_FILTER, "antispoof": ORDER_FILTER,
}
ORDER_ERROR = "Rules must be in order: options, normalization, queueing, translation, filtering"
NAT_RULES = ("nat", "rdr", "binat", "nat-anchor", "rdr-anchor")
SET_OPTIONS = ("block-policy", "skip", "fingerprints", "ruleset-optimization", "optimization", "limit",
               "timeout", "loginterface", "debug", "state-policy", "reassemble", "hostid")
RULE_WORDS = {
    "in", "out", "log", "quick", "on", "inet", "inet6", "proto", "from", "to", "port", "all", "any",
    "drop", "return", "return-rst", "return-icmp", "flags", "keep", "modulate", "synproxy", "state",
    "no", "label", "tag", "tagged", "user", "group", "icmp-type", "icmp6-type", "allow-opts",
    "self", "urpf-failed", "no-route", "route-to", "reply-to", "dup-to", "probability", "os",
    "max-mss", "min-ttl", "no-df", "random-id", "fragment", "reassemble", "tcp", "udp", "icmp",
    "icmp6", "esp", "ah", "gre", "->", "rtable", "divert-to", "received-on", "for",
}
# pfctl's messages: the per-line one and the closing one. Unconfirmed wording (from FreeBSD/
# OpenBSD pfctl as remembered; Apple's pfctl derives from it).
SYNTAX_TRAILER = "pfctl: Syntax error in config file: pf rules not loaded\n"
TOKEN_RE = re.compile(r'"[^"]*"|<[^>]*>|->|[{},!=]|[^\s{},!="<]+')


NOT_ROOT = "pfctl: /dev/pf: Permission denied\n"
# Printed to stderr by Apple's pfctl on -f of the main ruleset and on -e/-E (no ALTQ in XNU).
MAIN_RULESET_WARNING = ("pfctl: Use of -f option, could result in flushing of rules\n"
                        "present in the main ruleset added by the system at startup.\n"
                        "See /etc/pf.conf for further details.\n")
NO_ALTQ = "No ALTQ support in kernel\nALTQ related functions disabled\n"
# -E tokens on macOS are large opaque numbers; the lab counts up from here.
FIRST_TOKEN = 7251184389652094976


class PfError(Exception):
    """A pfctl failure: the message pfctl prints (lines already formatted) and rc 1."""


def default_state():
    return {"enabled": False, "tokens": [], "next_token": 0, "enabled_since": None,
            "rulesets": {}, "tables": {}}


def _logical_lines(text):
    """(line number, text) with comments removed and backslash continuations joined."""
    pending, start = "", None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].rstrip()
        if start is None:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        if pending.strip():
            yield start, pending.strip()
        pending, start = "", None
    if pending.strip():
        yield start, pending.strip()


def _is_address(token):
    token = token.strip('"')
    if token in ("any", "self", "all", "no-route", "urpf-failed"):
        return True
    return bool(re.match(r"^\d{1,3}(\.\d{1,3}){0,3}(/\d{1,2})?$", token)
                or re.match(r"^[0-9a-fA-F:]+:[0-9a-fA-F:]*(/\d{1,3})?$", token)
                or re.match(r"^\(?[a-z][a-z0-9]*\d+(:network|:broadcast|:peer|:0)?\)?$", token))


def _is_port(token):
    return bool(re.match(r"^\d{1,5}(:\d{1,5})?$", token)) and all(
        0 <= int(p) <= 65535 for p in token.split(":"))


class Parser(object):
    """Parses one pf.conf text. `read_file(path)` opens files named by `load anchor`."""

    def __init__(self, name, text):
        self.name = name
        self.text = text
        self.macros = {}
        self.errors = []
        self.rules = []          # (kind, printed rule)
        self.tables = {}
        self.load_anchors = []   # (anchor, file)
        self.order = ORDER_OPTIONS

    def error(self, number, message):
        self.errors.append("%s:%d: %s" % (self.name, number, message))

    def parse(self):
        for number, line in _logical_lines(self.text):
            self.statement(number, line)
        if self.errors:
            raise PfError("".join(e + "\n" for e in self.errors) + SYNTAX_TRAILER)
        return self

    def expand(self, number, line):
        def substitute(match):
            name = match.group(1)
            if name not in self.macros:
                self.error(number, "macro '%s' not defined" % name)
                return ""
            return self.macros[name]
        return re.sub(r"\$([A-Za-z_][A-Za-z0-9_]*)", substitute, line)

    def statement(self, number, line):
        macro = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+)$", line)
        if macro:
            value = macro.group(2).strip()
            self.macros[macro.group(1)] = value[1:-1] if value.startswith('"') and value.endswith('"') else value
            return
        line = self.expand(number, line)
        tokens = TOKEN_RE.findall(line)
        if not tokens:
            return
        keyword = tokens[0]
        if keyword == "table":
            return self.table(number, tokens)
        if keyword == "load":
            if len(tokens) == 5 and tokens[1] == "anchor" and tokens[3] == "from":
                self.load_anchors.append((tokens[2].strip('"'), tokens[4].strip('"')))
                return
            return self.error(number, "syntax error")
        if keyword not in ORDER_OF:
            return self.error(number, "syntax error")
        rank = ORDER_OF[keyword]
        if rank != ORDER_DUMMYNET:
            if rank < self.order:
                return self.error(number, ORDER_ERROR)
            self.order = rank
        if keyword == "set":
            if len(tokens) < 3 or tokens[1] not in SET_OPTIONS:
                return self.error(number, "syntax error")
            return
        if keyword.endswith("anchor"):
            return self.anchor_rule(number, keyword, tokens)
        return self.rule(number, tokens)

    def table(self, number, tokens):
        if len(tokens) < 2 or not re.match(r"^<[A-Za-z0-9_.-]+>$", tokens[1]):
            return self.error(number, "syntax error")
        rest = tokens[2:]
        while rest and rest[0] in ("const", "persist", "counters"):
            rest = rest[1:]
        addresses = []
        if rest:
            if rest[0] == "file" and len(rest) == 2:
                addresses = ["file " + rest[1]]
            elif rest[0] == "{" and rest[-1] == "}":
                addresses = [t for t in rest[1:-1] if t not in (",", "!")]
                if not all(_is_address(a) for a in addresses):
                    return self.error(number, "syntax error")
            else:
                return self.error(number, "syntax error")
        self.tables[tokens[1][1:-1]] = addresses

    def anchor_rule(self, number, keyword, tokens):
        if len(tokens) < 2 or not tokens[1].startswith('"'):
            return self.error(number, "syntax error")
        rest = tokens[2:]
        if rest and not self.valid_words(rest):
            return self.error(number, "syntax error")
        self.rules.append((keyword, " ".join([keyword, tokens[1]] + (rest or ["all"]))))

    def valid_words(self, tokens):
        for token in tokens:
            if token in RULE_WORDS or token in ("{", "}", ",", "!", "=") or token.startswith('"'):
                continue
            if re.match(r"^<[A-Za-z0-9_.-]+>$", token) or _is_address(token) or _is_port(token):
                continue
            if re.match(r"^[A-Z]+/[A-Z]+$", token) or re.match(r"^[a-z][a-z0-9]*\d+$", token):
                continue  # TCP flags (S/SA), interface names (en0, lo0, bridge0)
            return False
        return True

    def rule(self, number, tokens):
        if not self.valid_words(tokens[1:]):
            return self.error(number, "syntax error")
        if tokens.count("{") != tokens.count("}"):
            return self.error(number, "syntax error")
        for printed in _expand_port_lists(tokens):
            self.rules.append((tokens[0], printed))


def _expand_port_lists(tokens):
    """`port { 1, 2 }` -> one rule per port, `port N` -> `port = N`, as pfctl prints them."""
    for index, token in enumerate(tokens):
        if token == "port" and index + 1 < len(tokens):
            following = tokens[index + 1]
            if following == "{":
                end = tokens.index("}", index)
                ports = [t for t in tokens[index + 2:end] if t != ","]
                expanded = []
                for port in ports:
                    expanded.extend(_expand_port_lists(tokens[:index + 1] + [port] + tokens[end + 1:]))
                return expanded
            if re.match(r"^\d+$", following):
                return _expand_port_lists(tokens[:index + 1] + ["=", following] + tokens[index + 2:])
    return [" ".join(tokens)]


def parse(name, text):
    return Parser(name, text).parse()


def load(pf_state, anchor, name, text, read_file):
    """`pfctl [-a ANCHOR] -f FILE`: replace the anchor's ruleset; from the main ruleset, also
    the anchors its `load anchor` lines name. Raises PfError without changing anything."""
    parsed = parse(name, text)
    rulesets = {anchor: [printed for _, printed in parsed.rules]}
    tables = {anchor: parsed.tables}
    for sub_anchor, path in parsed.load_anchors:
        try:
            sub_text = read_file(path)
        except (IOError, OSError):
            raise PfError("pfctl: %s: No such file or directory\n" % path)
        sub = parse(path, sub_text)
        rulesets[sub_anchor] = [printed for _, printed in sub.rules]
        tables[sub_anchor] = sub.tables
    pf_state.setdefault("rulesets", {}).update(rulesets)
    pf_state.setdefault("tables", {}).update(tables)


def flush(pf_state, anchor):
    pf_state.setdefault("rulesets", {})[anchor] = []
    pf_state.setdefault("tables", {})[anchor] = {}


def show_rules(pf_state, anchor, section="rules"):
    """`pfctl -s rules|nat|dummynet`: each shows its own kind of rule (macOS lists dummynet
    rules apart from filter rules)."""
    def section_of(rule):
        keyword = rule.split()[0]
        if keyword in NAT_RULES:
            return "nat"
        return "dummynet" if keyword.startswith("dummynet") else "rules"
    rules = pf_state.get("rulesets", {}).get(anchor, [])
    return "".join(r + "\n" for r in rules if section_of(r) == section)


def boot_reset(pf_state, read_file, conf="/etc/pf.conf"):
    """What a Mac's pf looks like after boot: disabled, no enable references, the rules of
    /etc/pf.conf loaded (com.apple.pfctl does `pfctl -f /etc/pf.conf`). A LaunchDaemon that runs
    `pfctl -E` is what turns it on again. Returns the parse error text, or None."""
    pf_state.update(enabled=False, tokens=[], enabled_since=None, rulesets={}, tables={})
    try:
        load(pf_state, "", conf, read_file(conf), read_file)
    except (PfError, IOError, OSError) as exc:
        return str(exc)
    return None


def info_text(pf_state, now):
    """`pfctl -s info`, first lines only. Unconfirmed layout: the first line is `Status: Enabled
    for D days HH:MM:SS` or `Status: Disabled`, padded, then `Debug: Urgent`, as in FreeBSD's
    pfctl and third-party macOS transcripts; consumers should match `Status:\\s+Enabled`."""
    if pf_state.get("enabled"):
        seconds = max(0, int(now - (pf_state.get("enabled_since") or now)))
        status = "Status: Enabled for %d days %02d:%02d:%02d" % (
            seconds // 86400, seconds // 3600 % 24, seconds // 60 % 60, seconds % 60)
    else:
        status = "Status: Disabled"
    return ("%-46sDebug: Urgent\n\n"
            "State Table                          Total             Rate\n"
            "  current entries                        0               \n" % status)
