# -*- coding: utf-8 -*-
# PRIVATE to the collection: the hpl suite, behind the benchmark_plan filter and the
# cluster_report action (its benchmark section). Names and behaviour may change without notice. Stdlib only, Python 3.9.
"""HPL (High-Performance Linpack) across the nodes: the problem sized from each node's memory, its
input file, and what `xhpl` prints.

Sizing as the TOP500 runs size it (geerlingguy/top500-benchmark's ``HPL.dat`` template:
N = sqrt(75 % of memory x nodes / 8) x 0.9, NB 256, Q >= P): the matrix of N x N doubles fills a
share of the cluster's memory. HPL spreads it evenly over the ranks,
so the smallest node bounds it: N = sqrt(fraction x smallest memory x nodes / 8), rounded down to a
multiple of NB. The process grid P x Q covers every rank, as square as it goes with P <= Q (HPL runs
best a little wider than tall).

`xhpl` prints, per test, a row `WR11C2R4  N  NB  P  Q  Time  Gflops` under the header
`T/V  N  NB  P  Q  Time  Gflops` and then its scaled residual check
`||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=  0.0058305 ...... PASSED` (or FAILED)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

ROW = re.compile(r"^(W[RC]\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9.eE+-]+)\s+([0-9.eE+-]+)\s*$")
RESIDUAL = re.compile(r"^\|\|Ax-b\|\|_oo/.*=\s*([0-9.eE+-]+)\s+\.+\s+(PASSED|FAILED)\s*$")
THRESHOLD = re.compile(r"scaled residuals are less than\s+([0-9.eE+-]+)")
VERSION = re.compile(r"^(HPLinpack \S+)")


class HplError(ValueError):
    pass


def grid(ranks):
    """(P, Q) with P x Q = ranks, P <= Q, P as large as that allows."""
    p = int(math.sqrt(ranks))
    while ranks % p:
        p -= 1
    return p, ranks // p


def problem_size(memory_bytes, nodes, fraction, nb):
    """N for `nodes` nodes of at least `memory_bytes` each, `fraction` of it for the matrix."""
    n = int(math.sqrt(fraction * memory_bytes * nodes / 8.0))
    return max(nb, n // nb * nb)


def hpl_plan(hosts, macs, fraction=0.75, nb=256, ranks_per_node=0, n=0):
    """The run: hosts with their slots, ranks, the grid and N; raises HplError naming what is missing."""
    if not hosts:
        raise HplError("no node to run HPL on")
    memories = [(macs.get(host) or {}).get("memory_bytes") for host in hosts]
    if not n and not all(isinstance(m, int) and m > 0 for m in memories):
        raise HplError("the node facts lack the memory of %s: give benchmark_hpl_n" % ", ".join(
            host for host, m in zip(hosts, memories) if not (isinstance(m, int) and m > 0)))
    if ranks_per_node:
        slots = ranks_per_node
    else:
        cores = [(macs.get(host) or {}).get("cores_performance") or (macs.get(host) or {}).get("cores_total")
                 for host in hosts]
        if not all(isinstance(c, int) and c > 0 for c in cores):
            raise HplError("the node facts lack the core counts: give benchmark_hpl_ranks_per_node")
        slots = min(cores)
    ranks = slots * len(hosts)
    p, q = grid(ranks)
    size = n or problem_size(min(memories), len(hosts), fraction, nb)
    return {"hosts": list(hosts), "slots": slots, "ranks": ranks, "p": p, "q": q, "n": size, "nb": nb,
            "fraction": fraction, "memory_bytes_per_node": None if n else min(memories),
            "matrix_bytes": 8 * size * size}


def hpl_dat(plan, threshold=16.0):
    """HPL.dat for one test of the plan's N, NB and P x Q, the TOP500 runs' algorithm settings,
    results to standard output."""
    lines = [
        ("HPLinpack benchmark input file", None), ("Innovative Computing Laboratory, University of Tennessee", None),
        ("HPL.out", "output file name (if any)"), ("6", "device out (6=stdout,7=stderr,file)"),
        ("1", "# of problems sizes (N)"), (str(plan["n"]), "Ns"), ("1", "# of NBs"), (str(plan["nb"]), "NBs"),
        ("0", "PMAP process mapping (0=Row-,1=Column-major)"), ("1", "# of process grids (P x Q)"),
        (str(plan["p"]), "Ps"), (str(plan["q"]), "Qs"), ("%g" % threshold, "threshold"),
        ("1", "# of panel fact"), ("2", "PFACTs (0=left, 1=Crout, 2=Right)"),
        ("1", "# of recursive stopping criterium"), ("4", "NBMINs (>= 1)"), ("1", "# of panels in recursion"),
        ("2", "NDIVs"), ("1", "# of recursive panel fact."), ("1", "RFACTs (0=left, 1=Crout, 2=Right)"),
        ("1", "# of broadcast"), ("1", "BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)"),
        ("1", "# of lookahead depth"), ("1", "DEPTHs (>=0)"), ("2", "SWAP (0=bin-exch,1=long,2=mix)"),
        ("64", "swapping threshold"), ("0", "L1 in (0=transposed,1=no-transposed) form"),
        ("0", "U  in (0=transposed,1=no-transposed) form"), ("1", "Equilibration (0=no,1=yes)"),
        ("8", "memory alignment in double (> 0)"),
    ]
    return "".join(("%-13s%s\n" % (value, words)) if words else value + "\n" for value, words in lines)


def parse_hpl(text):
    """{version, threshold, tests: [{variant, n, nb, p, q, seconds, gflops, residual, passed}]}."""
    found = {"version": None, "threshold": None, "tests": []}
    for line in (text or "").splitlines():
        line = line.strip()
        version = VERSION.match(line)
        if version and found["version"] is None:
            found["version"] = version.group(1)
        threshold = THRESHOLD.search(line)
        if threshold:
            found["threshold"] = float(threshold.group(1))
        row = ROW.match(line)
        if row:
            variant, n, nb, p, q, seconds, gflops = row.groups()
            found["tests"].append({"variant": variant, "n": int(n), "nb": int(nb), "p": int(p), "q": int(q),
                                   "seconds": float(seconds), "gflops": float(gflops), "residual": None,
                                   "passed": None})
            continue
        residual = RESIDUAL.match(line)
        if residual and found["tests"] and found["tests"][-1]["residual"] is None:
            found["tests"][-1].update(residual=float(residual.group(1)), passed=residual.group(2) == "PASSED")
    return found


def hpl_results(output, plan, launcher):
    """(results, problems): each test xhpl printed; no test is `bench_hpl_failed`, a failed
    residual check `bench_hpl_residual_failed` (a wrong answer, however fast)."""
    parsed = parse_hpl(output.get("stdout"))
    problems = []
    if not parsed["tests"]:
        words = ((output.get("stderr") or "") + "\n" + (output.get("stdout") or "")).strip().splitlines()
        problems.append(problem("bench_hpl_failed", "HPL on %d ranks (%d nodes) did not finish (rc %s): %s" % (
            plan["ranks"], len(plan["hosts"]), output.get("rc"), " / ".join(words[-2:])[-300:] or "no output"),
            host=launcher))
    results = []
    for test in parsed["tests"]:
        results.append(dict(test, unit="Gflops", ranks=plan["ranks"], nodes=len(plan["hosts"]),
                            version=parsed["version"], threshold=parsed["threshold"]))
        if test["passed"] is False:
            problems.append(problem("bench_hpl_residual_failed", "HPL N=%d NB=%d on %dx%d: the scaled residual %g is "
                                    "above the threshold %s, so its %.1f Gflops are not a valid result" % (
                                        test["n"], test["nb"], test["p"], test["q"], test["residual"],
                                        parsed["threshold"], test["gflops"]), host=launcher))
    return results, problems


def hpl_measurements(results):
    return [{"suite": "hpl", "name": "hpl_gflops", "subject": "N=%d NB=%d %dx%d" % (r["n"], r["nb"], r["p"], r["q"]),
             "value": r["gflops"], "unit": "Gflops", "repeats": [r["gflops"]]} for r in results if r["passed"]]
