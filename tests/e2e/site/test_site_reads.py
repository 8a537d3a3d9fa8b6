"""Issue 14, acceptance 1 (site.yml half): the idempotent site.yml run reads each node once, so
the lab's shim logs show exactly one system_profiler and at most one sw_vers per node."""
import os
from collections import Counter

from labtools import HOSTS, log_lines

COUNTED = ("system_profiler", "sw_vers")


def commands_run(host, since, until):
    """How often each counted command ran on host between shim log entries `since` and `until`."""
    return Counter(name for name in (os.path.basename(entry["argv"][0])
                                     for entry in log_lines(host, "shim.log")[since:until])
                   if name in COUNTED)


def test_the_idempotent_run_reads_each_node_once(converged):
    counts = dict((host, commands_run(host, converged["second_shim_marks"][host],
                                                converged["second_shim_ends"][host])) for host in HOSTS)
    assert dict((host, counts[host]["system_profiler"]) for host in HOSTS) == dict((host, 1) for host in HOSTS), counts
    assert all(counts[host]["sw_vers"] <= 1 for host in HOSTS), counts
