"""pfctl: pf's state, and its block rules as nftables rules in the host's namespace (pf_filter)."""
import time

from .. import pf, pf_filter
from .registry import command
from .state import Fail, err, out, require_root


PFCTL_OPTIONS = "AdeEghmNnOqRrvza:D:F:f:i:K:k:o:p:s:t:T:x:X:"
PFCTL_FLUSH_MESSAGES = ("rules cleared\n", "nat cleared\n", "0 tables deleted.\n")


def _pf_read(host):
    def read(path):
        with open(host.fs(path) if path != "-" else "/dev/stdin") as fh:
            return fh.read()
    return read


@command("/sbin/pfctl")
def cmd_pfctl(host, args):
    import getopt
    try:
        options, rest = getopt.getopt(args, PFCTL_OPTIONS)
    except getopt.GetoptError as exc:
        raise Fail(1, "pfctl: {}\nusage: pfctl [-AdeghmNnOqRrvz] [-a anchor] [-F modifier] [-f file] "
                      "[-s modifier] [-X token] ...\n".format(exc))
    if rest:
        raise Fail(1, "pfctl: unknown command line argument: {}\n".format(rest[0]))
    require_root(pf.NOT_ROOT)
    flags = {}
    for flag, value in options:
        flags[flag] = value
    anchor = flags.get("-a", "").rstrip("/*")
    read = _pf_read(host)
    if "-n" in flags:
        if "-f" not in flags:
            return 0
        try:
            pf.parse(flags["-f"], read(flags["-f"]))
        except (IOError, OSError):
            raise Fail(1, "pfctl: {}: No such file or directory\n".format(flags["-f"]))
        except pf.PfError as exc:
            raise Fail(1, str(exc))
        return 0
    with host.mutate():
        state = host.state.setdefault("pf", pf.default_state())
        if "-X" in flags:
            _pf_release(state, flags["-X"])
        if "-d" in flags:
            if not state["enabled"]:
                raise Fail(1, "pfctl: pf not enabled\n")
            state.update(enabled=False, tokens=[], enabled_since=None)
            err("pf disabled\n")
        if "-F" in flags:
            if flags["-F"] not in ("all", "rules", "nat", "Tables"):
                raise Fail(1, "pfctl: Unknown flush modifier '{}'\n".format(flags["-F"]))
            pf.flush(state, anchor)
            err("".join(PFCTL_FLUSH_MESSAGES))
        if "-f" in flags:
            try:
                text = read(flags["-f"])
            except (IOError, OSError):
                raise Fail(1, "pfctl: {}: No such file or directory\n".format(flags["-f"]))
            try:
                pf.load(state, anchor, flags["-f"], text, read)
            except pf.PfError as exc:
                raise Fail(1, str(exc))
            if not anchor:
                err(pf.MAIN_RULESET_WARNING)
        if "-E" in flags or "-e" in flags:
            _pf_enable(state, "-E" in flags)
        if any(flag in flags for flag in ("-X", "-d", "-F", "-f", "-E", "-e")):
            problem = pf_filter.apply(state)
            if problem:
                err("maclab: the packet filter could not follow pf's rules: %s\n" % problem)
    if "-s" in flags:
        out(_pf_show(host.state.get("pf") or pf.default_state(), flags["-s"], anchor))
    return 0


def _pf_enable(state, with_reference):
    err(pf.NO_ALTQ)
    if not with_reference and state["enabled"]:
        raise Fail(1, "pfctl: pf already enabled\n")
    if not state["enabled"]:
        state["enabled_since"] = time.time()
    state["enabled"] = True
    out("pf enabled\n")
    if with_reference:
        state["next_token"] = int(state.get("next_token") or pf.FIRST_TOKEN) + 1
        state["tokens"].append(state["next_token"])
        out("Token : {}\n".format(state["next_token"]))


def _pf_release(state, token):
    """-X: drop one enable reference; pf goes off with the last one (macOS's reference counting
    of -E/-X; what it prints then is unconfirmed)."""
    if not token.isdigit() or int(token) not in state["tokens"]:
        raise Fail(1, "pfctl: Invalid argument\n")
    state["tokens"].remove(int(token))
    if not state["tokens"] and state["enabled"]:
        state.update(enabled=False, enabled_since=None)
        err("pf disabled\n")


def _pf_show(state, what, anchor):
    if what == "info":
        return pf.info_text(state, time.time())
    if what in ("rules", "r"):
        return pf.show_rules(state, anchor)
    if what in ("nat", "n"):
        return pf.show_rules(state, anchor, "nat")
    if what == "dummynet":
        return pf.show_rules(state, anchor, "dummynet")
    if what in ("Anchors", "A"):
        return "".join("  {}\n".format(a) for a in sorted(state.get("rulesets", {})) if a)
    raise Fail(1, "pfctl: Unknown show modifier '{}' (the lab shows info, rules, nat, dummynet, Anchors)\n".format(what))
