"""make test's smoke run of benchmarks/shards (issue 16's targets; the full run is outside make test):
on the shared converged lab, with the small model, every figure is measured and printed, the payload
crosses the cables once, the resume moves only what was missing, and the lab is left as it was."""
import json
import os
import re
import subprocess
import sys

from labtools import HOSTS, REPO, ROOT, read_json

SCRIPT = os.path.join(REPO, "benchmarks", "shards")


def test_the_shards_benchmark_measures_every_figure_and_leaves_the_lab_as_it_was(converged):
    proc = subprocess.run([sys.executable, SCRIPT, "--smoke", "--reuse-lab"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=1200)
    match = re.search(r"^result: (\S+)$", proc.stdout, re.M)
    assert match and proc.returncode in (0, 1), proc.stdout[-4000:]
    path = match.group(1)
    try:
        with open(path) as handle:
            result = json.load(handle)
    finally:
        os.remove(path)
    assert result["smoke"] is True and [r["copies"] for r in result["runs"]] == ["full", "per-rank"]
    for run in result["runs"]:
        assert run["payload_over_needed"] == 1.0 and 1.0 <= run["wire_over_needed"] < 1.1
        assert run["transfer_seconds"] > 0 and run["bound_seconds"] > 0 and run["saved_over_naive"] > 0
    assert result["resume"]["interrupted"] and result["resume"]["moved_over_missing"] <= 1.05
    for label in ("payload", "transfer", "naive copy", "resume after a cut"):
        assert label in proc.stdout
    # Left as found: no fault, no model copies, the cables at the lab's rate.
    lab = read_json("lab.json")
    assert not lab.get("faults") and all(c["rate"] == lab["link_rate"] for c in lab["cables"])
    for host in HOSTS:
        assert not os.path.exists(os.path.join(ROOT, "hosts", host, "fs", "Users", "admin", "models", "bench-qwen2"))
