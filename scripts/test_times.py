#!/usr/bin/env python3
"""Where `make test` spends its time, from the JUnit files it writes (artifacts/junit/).

    scripts/test_times.py summary [DIR]        the stages' wall times and test counts, the 20 slowest tests
    scripts/test_times.py compare OLD NEW      which tests got slower (or faster) between two runs

summary reads DIR/stages.jsonl (one line per stage: name, seconds, exit status, start and end
times; written by scripts/test_stages.sh), every DIR/*.xml and DIR/playbooks.jsonl (one line per playbook
run of the end-to-end tests: lab, test, playbook, wall and controller CPU seconds). compare takes two JUnit files or two such
directories (each test keyed by its file and name) and lists the tests whose time changed most,
the tests only one side ran, and the totals, so a slower CI run can be pinned on its tests.
"""
import argparse
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

SLOWEST = 20
# Lines of each failure's text the summary ends with: CI shows a run's tail, so why it failed is there.
FAILURE_LINES = 12
# The class of the one test case scripts/test_stages.sh writes for a stage whose tools write no JUnit.
STAGE_CLASS = "make"


def read_junit(path, failures=None):
    """[(stage, test id, seconds, outcome)] of one JUnit file (pytest's, or a stage's own). A stage
    that runs several pytest sessions names their files <stage>.<part>.xml (e2e.lab0.xml). With a
    list for `failures`, each failed test's (stage, test id, text) is added to it: the failure's
    message and the last FAILURE_LINES lines of its text (a stage's own case carries its log's tail)."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    stage = os.path.basename(path).split(".")[0]
    found = []
    for suite in suites:
        for case in suite.iter("testcase"):
            outcome = "passed"
            test_id = "%s::%s" % (case.get("classname", ""), case.get("name", ""))
            for child in case:
                if child.tag in ("failure", "error"):
                    outcome = "failed"
                    if failures is not None:
                        lines = (child.text or "").rstrip().splitlines()[-FAILURE_LINES:]
                        failures.append((stage, test_id, "\n".join([child.get("message") or child.tag] + lines)))
                elif child.tag == "skipped":
                    outcome = "skipped"
            found.append((stage, test_id, float(case.get("time") or 0), outcome))
    return found


def read_tests(path, failures=None):
    """Every test of a JUnit file or of every JUnit file in a directory (failures: as read_junit)."""
    paths = sorted(glob.glob(os.path.join(path, "*.xml"))) if os.path.isdir(path) else [path]
    tests = []
    for name in paths:
        tests.extend(read_junit(name, failures))
    return tests


def read_lines(directory, name):
    """The JSON lines of DIR/NAME, [] where the run wrote none."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_stages(directory):
    return read_lines(directory, "stages.jsonl")


def counts(tests):
    found = {"passed": 0, "failed": 0, "skipped": 0}
    for _, _, _, outcome in tests:
        found[outcome] += 1
    return found


def summary(directory, out=None):
    out = out or sys.stdout
    stages = read_stages(directory)
    failures = []
    tests = read_tests(directory, failures)
    by_stage = {}
    for test in tests:
        by_stage.setdefault(test[0], []).append(test)
    out.write("== where the time went (%s)\n" % directory)
    out.write("%-20s %9s  %6s  %s\n" % ("stage", "wall s", "status", "tests (passed/failed/skipped)"))
    for stage in stages:
        ran = counts(by_stage.get(stage["name"], []))
        out.write("%-20s %9.1f  %6s  %d/%d/%d\n" % (stage["name"], stage["seconds"],
                                                    "ok" if stage["status"] == 0 else "rc %d" % stage["status"],
                                                    ran["passed"], ran["failed"], ran["skipped"]))
    if stages:
        out.write("%-20s %9.1f\n" % ("total", sum(s["seconds"] for s in stages)))
        # Stages that ran side by side (the checks beside unit) overlap: the run's own wall time.
        if all("started" in s and "ended" in s for s in stages):
            out.write("%-20s %9.1f\n" % ("wall", max(s["ended"] for s in stages) - min(s["started"] for s in stages)))
    out.write("\n== the %d slowest tests\n" % SLOWEST)
    # A stage's own test case (its tools write no JUnit) is its wall time, shown above.
    ran = [t for t in tests if not t[1].startswith(STAGE_CLASS + "::")]
    for stage, test_id, seconds, outcome in sorted(ran, key=lambda t: -t[2])[:SLOWEST]:
        out.write("%8.1f s  %-6s %s%s\n" % (seconds, stage, test_id, "" if outcome == "passed" else "  (%s)" % outcome))
    playbook_runs(directory, out)
    lane_cpu(directory, out)
    failed_stages = [s["name"] for s in stages if s["status"] != 0]
    if failures or failed_stages:
        out.write("\n== what failed: %d tests; stages %s\n" % (len(failures), ", ".join(failed_stages) or "none"))
        for stage, test_id, text in failures:
            out.write("-- %s %s\n    %s\n" % (stage, test_id, text.replace("\n", "\n    ")))
    return stages, tests


def playbook_runs(directory, out):
    """Per lab and playbook: how many runs, their wall and controller CPU seconds; then the tests whose
    runs took most CPU. The run is CPU-bound, so the CPU column is what a lane costs the others."""
    runs = read_lines(directory, "playbooks.jsonl")  # tests/e2e/labtools.py: record_playbook_run
    if not runs:
        return
    totals = {}
    for run in runs:
        key = (run["lab"], run["playbook"])
        count, seconds, cpu = totals.get(key, (0, 0.0, 0.0))
        totals[key] = (count + 1, seconds + run["seconds"], cpu + run["controller_cpu"])
    out.write("\n== playbook runs: %d, %.0f s, %.0f s of controller CPU\n" % (
        len(runs), sum(r["seconds"] for r in runs), sum(r["controller_cpu"] for r in runs)))
    out.write("%-4s %-24s %5s %9s %9s\n" % ("lab", "playbook", "runs", "wall s", "cpu s"))
    for (lab, playbook), (count, seconds, cpu) in sorted(totals.items(), key=lambda item: -item[1][2]):
        out.write("%-4s %-24s %5d %9.1f %9.1f\n" % (lab, playbook, count, seconds, cpu))
    by_test = {}
    for run in runs:
        count, cpu = by_test.get(run["test"], (0, 0.0))
        by_test[run["test"]] = (count + 1, cpu + run["controller_cpu"])
    out.write("\n== the %d tests whose playbook runs took most controller CPU\n" % SLOWEST)
    for test, (count, cpu) in sorted(by_test.items(), key=lambda item: -item[1][1])[:SLOWEST]:
        out.write("%8.1f s  %3d runs  %s\n" % (cpu, count, test))


def lane_cpu(directory, out):
    """The tests that cost their lane most CPU, the nodes' side included (tests/e2e/labtools.py: record_test_cpu;
    measured where the machine has cgroup v1's cpuacct), and each lane's sum over its tests."""
    tests = read_lines(directory, "tests_cpu.jsonl")
    if not tests:
        return
    lanes = {}
    for test in tests:
        lanes[test["lab"]] = lanes.get(test["lab"], 0.0) + test["lane_cpu"]
    out.write("\n== CPU by lane, over its tests: %s\n" % ", ".join(
        "lab %s %.0f s" % (lab, cpu) for lab, cpu in sorted(lanes.items(), key=lambda item: str(item[0]))))
    out.write("== the %d tests that cost their lane most CPU\n" % SLOWEST)
    for test in sorted(tests, key=lambda t: -t["lane_cpu"])[:SLOWEST]:
        out.write("%8.1f s  %7.1f s wall  lab %s  %s\n" % (test["lane_cpu"], test["seconds"], test["lab"], test["test"]))


def compare(old_path, new_path, limit=SLOWEST, out=None):
    out = out or sys.stdout
    old = dict(((t[0], t[1]), t[2]) for t in read_tests(old_path))
    new = dict(((t[0], t[1]), t[2]) for t in read_tests(new_path))
    both = [(key, old[key], new[key]) for key in old if key in new]
    both.sort(key=lambda item: -(item[2] - item[1]))
    out.write("== slower in %s than in %s (top %d by seconds added)\n" % (new_path, old_path, limit))
    for (stage, test_id), before, after in [b for b in both if b[2] > b[1]][:limit]:
        out.write("%+8.1f s  %7.1f -> %7.1f  %s %s\n" % (after - before, before, after, stage, test_id))
    out.write("\n== faster (top %d)\n" % limit)
    for (stage, test_id), before, after in [b for b in reversed(both) if b[2] < b[1]][:limit]:
        out.write("%+8.1f s  %7.1f -> %7.1f  %s %s\n" % (after - before, before, after, stage, test_id))
    only_old = sorted(set(old) - set(new))
    only_new = sorted(set(new) - set(old))
    out.write("\n== only in the old run: %d tests, %.1f s\n" % (len(only_old), sum(old[k] for k in only_old)))
    for stage, test_id in only_old[:limit]:
        out.write("          %s %s\n" % (stage, test_id))
    out.write("== only in the new run: %d tests, %.1f s\n" % (len(only_new), sum(new[k] for k in only_new)))
    for stage, test_id in only_new[:limit]:
        out.write("          %s %s\n" % (stage, test_id))
    out.write("\n== totals: %d tests %.1f s -> %d tests %.1f s\n" % (len(old), sum(old.values()), len(new),
                                                                   sum(new.values())))
    return both, only_old, only_new


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("summary", help="stage wall times and the slowest tests of one run")
    show.add_argument("directory", nargs="?", default="artifacts/junit")
    diff = sub.add_parser("compare", help="which tests got slower between two runs")
    diff.add_argument("old")
    diff.add_argument("new")
    diff.add_argument("--limit", type=int, default=SLOWEST)
    args = parser.parse_args(argv)
    if args.command == "summary":
        summary(args.directory)
    else:
        compare(args.old, args.new, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
