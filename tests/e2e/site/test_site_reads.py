"""Issue 14, acceptance 1 (site.yml half): the idempotent site.yml run reads each node once, so
the lab's shim logs show exactly one system_profiler and at most one sw_vers per node."""
import os
from collections import Counter

from labtools import HOSTS

COUNTED = ("system_profiler", "sw_vers")


def counted(entries):
    """The counted commands among the shim log entries, each with its time, argv, uid and rc."""
    return [entry for entry in entries if os.path.basename(entry["argv"][0]) in COUNTED]


def test_the_idempotent_run_reads_each_node_once(converged):
    entries = dict((host, counted(converged["second_shim"][host])) for host in HOSTS)
    counts = dict((host, Counter(os.path.basename(entry["argv"][0]) for entry in entries[host])) for host in HOSTS)
    assert dict((host, counts[host]["system_profiler"]) for host in HOSTS) == dict((host, 1) for host in HOSTS), entries
    assert all(counts[host]["sw_vers"] <= 1 for host in HOSTS), entries
