# -*- coding: utf-8 -*-
# PRIVATE to the collection: compares the owner's declared cabling with the cables found.
# Names and behaviour may change without notice. Stdlib only, Python 3.9 compatible.
"""`tb_cabling_differs`: which cable is missing, extra, swapped or moved, and the exact fix.

A declared cable is {a, a_port, b, b_port}; a port is a receptacle number (3, "3", "port 3",
"Thunderbolt 3") or a BSD interface ("en4"). Cables are compared by their two (host,
receptacle) ends, so the order of a and b does not matter.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ._topology_common import ERROR, TopologyError, describe_end, describe_port, make_problem, natural_key

CODE = "tb_cabling_differs"


def _resolve_end(host, value, records, entry):
    record = records[host]
    text = str(value).strip()
    for prefix in ("thunderbolt ", "port "):
        if text.lower().startswith(prefix):
            text = text[len(prefix):].strip()
    for port in record["ports"]:
        if (text.isdigit() and port["receptacle"] == int(text)) or port["interface"] == text:
            return {"host": host, "receptacle": port["receptacle"], "interface": port["interface"]}
    raise TopologyError("declared cable %r: %s has no Thunderbolt port %r (ports: %s)" % (
        entry, host, value,
        ", ".join(describe_port(p["interface"], p["receptacle"]) for p in record["ports"]) or "none"))


def _ends_key(end_a, end_b):
    return frozenset([(end_a["host"], end_a["receptacle"]), (end_b["host"], end_b["receptacle"])])


def _hosts_key(end_a, end_b):
    return frozenset([end_a["host"], end_b["host"]])


def _describe_cable(end_a, end_b):
    ends = sorted((end_a, end_b), key=lambda end: (natural_key(end["host"]), end["receptacle"]))
    return "%s <-> %s" % (describe_end(ends[0]), describe_end(ends[1]))


def _problem(message, fix, end, other, link_id=None):
    return make_problem(CODE, ERROR, message, fix, host=end["host"], port=end.get("interface"),
                        peer=other["host"], link_id=link_id)


def _normalise_declared(declared, records):
    if not isinstance(declared, list):
        raise TopologyError("declared cabling must be a list of {a, a_port, b, b_port}, got %s"
                            % type(declared).__name__)
    cables = []
    problems = []
    for entry in declared:
        if not isinstance(entry, dict) or any(entry.get(key) in (None, "") for key in ("a", "a_port", "b", "b_port")):
            raise TopologyError("declared cable %r needs a, a_port, b and b_port" % (entry,))
        missing_hosts = [str(entry[key]) for key in ("a", "b") if str(entry[key]) not in records]
        if missing_hosts:
            problems.append(make_problem(
                CODE, ERROR,
                "The declared cable %s port %s <-> %s port %s names %s, which has no facts in this run."
                % (entry["a"], entry["a_port"], entry["b"], entry["b_port"], " and ".join(missing_hosts)),
                "Add %s to the inventory and make it reachable, or remove the cable from the declared "
                "cabling." % " and ".join(missing_hosts),
                host=str(entry["a"]), peer=str(entry["b"])))
            continue
        cables.append((_resolve_end(str(entry["a"]), entry["a_port"], records, entry),
                       _resolve_end(str(entry["b"]), entry["b_port"], records, entry)))
    return cables, problems


def _take(candidates, used, predicate):
    for index, candidate in enumerate(candidates):
        if index not in used and predicate(candidate):
            used.add(index)
            return candidate
    return None


def _moves(declared_ends, actual_ends):
    """Plug moves that turn the actual cable into the declared one (matched end by end)."""
    moves = []
    for want in declared_ends:
        for have in actual_ends:
            if have["host"] == want["host"] and have["receptacle"] != want["receptacle"]:
                moves.append("on %s move the plug from %s to %s" % (
                    want["host"], describe_port(have["interface"], have["receptacle"]),
                    describe_port(want["interface"], want["receptacle"])))
    return moves


def _sentence(text):
    return text[:1].upper() + text[1:] + "."


def compare_declared_cabling(declared, records, links):
    """Return (problems, declared host pairs as sorted tuples)."""
    cables, problems = _normalise_declared(declared, records)
    declared_pairs = set(tuple(sorted((a["host"], b["host"]), key=natural_key)) for a, b in cables)
    actual = [(link["a"], link["b"], link) for link in links]
    used_actual = set()
    unmatched = []
    for end_a, end_b in cables:
        if _take(actual, used_actual, lambda cand: _ends_key(cand[0], cand[1]) == _ends_key(end_a, end_b)) is None:
            unmatched.append((end_a, end_b))

    still_unmatched = []
    for end_a, end_b in unmatched:
        same_hosts = _take(actual, used_actual, lambda cand: _hosts_key(cand[0], cand[1]) == _hosts_key(end_a, end_b))
        if same_hosts is not None:
            problems.append(_problem(
                "Swapped ports: the cable between %s and %s is %s, declared as %s."
                % (end_a["host"], end_b["host"], _describe_cable(same_hosts[0], same_hosts[1]),
                   _describe_cable(end_a, end_b)),
                _sentence("; ".join(_moves((end_a, end_b), same_hosts[:2]))),
                end_a, end_b, same_hosts[2]["id"]))
        else:
            still_unmatched.append((end_a, end_b))

    for end_a, end_b in still_unmatched:
        shared = None
        for fixed, wanted in ((end_a, end_b), (end_b, end_a)):
            key = (fixed["host"], fixed["receptacle"])
            shared = _take(actual, used_actual, lambda cand: key in _ends_key(cand[0], cand[1]))
            if shared is not None:
                break
        if shared is not None:
            far = shared[1] if (shared[0]["host"], shared[0]["receptacle"]) == key else shared[0]
            problems.append(_problem(
                "Moved cable: %s goes to %s, declared to go to %s."
                % (describe_end(fixed), describe_end(far), describe_end(wanted)),
                "Unplug the far end of the cable from %s and plug it into %s."
                % (describe_end(far), describe_end(wanted)),
                fixed, wanted, shared[2]["id"]))
            continue
        problems.append(_problem(
            "Missing cable: the declared cable %s is not there." % _describe_cable(end_a, end_b),
            "Connect %s to %s with a Thunderbolt 5 cable." % (describe_end(end_a), describe_end(end_b)),
            end_a, end_b))

    for index, (end_a, end_b, link) in enumerate(actual):
        if index in used_actual:
            continue
        problems.append(_problem(
            "Extra cable: %s is not in the declared cabling." % _describe_cable(end_a, end_b),
            "Unplug %s, or add it to the declared cabling if it is meant to be there."
            % _describe_cable(end_a, end_b),
            end_a, end_b, link["id"]))
    return problems, declared_pairs
