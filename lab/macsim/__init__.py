"""macsim: the simulated Mac cluster ("the lab") behind `lab/maclab`.

Runs on the Linux controller (root namespace) and, as a copy under `$MACLAB_ROOT/code`, inside
every simulated host. Standard library only; the parts that run inside hosts stay Python 3.9
compatible because the hosts' Command Line Tools python is the oldest interpreter available.
"""
