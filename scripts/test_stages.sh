#!/usr/bin/env bash
# `make test`: every stage in order, each timed, each leaving a JUnit file in artifacts/junit/
# (pytest's own for unit and e2e, one test case per stage for the others), then where the time
# went: each stage's wall time and the 20 slowest tests (scripts/test_times.py). Stops at the
# first failing stage, as make would; the summary is printed either way.
#
# Molecule (converge and verify on a lab that is up, not a second lab from bare) and then the benchmark
# smoke runs (the first, converge's, is the idempotence run) go on lab 1 as soon as e2e's lab 1 stream
# passed, inside the e2e stage beside lab 0's longer stream; run without e2e they use the lab that is up.
# Both labs stay up (MACLAB_KEEP_UP) until lab-down (molecule's destroy of each), or any failure, takes
# them down.
set -uo pipefail
cd "$(dirname "$0")/.."
JUNIT_DIR=${JUNIT_DIR:-artifacts/junit}
# TEST_STAGES_NESTED=1: stages run from inside another run's e2e stage (its lab 1 lane, below), adding
# to that run's JUnit directory and summary.
NESTED=${TEST_STAGES_NESTED:-}
[ -n "$NESTED" ] || rm -rf "$JUNIT_DIR"
mkdir -p "$JUNIT_DIR"
export JUNIT_DIR
# TEST_STAGES="unit e2e ..." runs those stages only (a rerun after a fix); make test runs them all.
read -r -a STAGES <<< "${TEST_STAGES:-lint collection-checks sanity unit e2e molecule bench-smoke lab-down}"
PYTEST_STAGES=" unit e2e "

# One JUnit test case for a stage whose tools write none: its time, and its output's tail on failure.
stage_junit() {
  local name=$1 seconds=$2 status=$3 log=$4
  .venv/bin/python - "$name" "$seconds" "$status" "$log" "$JUNIT_DIR/$name.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET
name, seconds, status, log, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
suite = ET.Element("testsuite", name=name, tests="1", failures="1" if status else "0", time=seconds)
case = ET.SubElement(suite, "testcase", classname="make", name=name, time=seconds)
if status:
    with open(log, errors="replace") as handle:
        ET.SubElement(case, "failure", message="make %s exited %d" % (name, status)).text = handle.read()[-20000:]
ET.ElementTree(suite).write(out, encoding="unicode")
EOF
}

finish() {
  echo
  .venv/bin/python scripts/test_times.py summary "$JUNIT_DIR" || true
}
[ -n "$NESTED" ] || trap finish EXIT

# Molecule's steps on the lab that is up. No idempotence step when the benchmark smoke runs follow: their
# converge smoke run is site.yml's idempotent run on the same lab, and fails on any change.
molecule_steps() {
  if [[ " ${STAGES[*]} " == *" bench-smoke "* ]]; then echo "converge verify"; else echo "converge idempotence verify"; fi
}

# One stage, timed, its output in $JUNIT_DIR/<stage>.log (and on stdout, each line prefixed with
# the stage's name when it runs beside another); 0 or its exit status.
run_stage() {
  local stage=$1 prefix=${2:-} log="$JUNIT_DIR/$1.log" started ended status seconds
  started=$(date +%s.%N)
  case $stage in
    e2e) MACLAB_KEEP_UP=1 E2E_AFTER_LAB1=${AFTER_LAB1:-} make --no-print-directory e2e 2>&1 | tee "$log" ;;
    molecule) MACLAB_KEEP_UP=1 MOLECULE_REUSE_LAB=1 MOLECULE_STEPS=$(molecule_steps) \
                make --no-print-directory molecule 2>&1 | tee "$log" ;;
    # Whichever lab molecule used: lab 1 when it ran in e2e's lab 1 lane, lab 0 when it ran after e2e.
    lab-down) { make --no-print-directory molecule-destroy && MACLAB_ID=1 make --no-print-directory molecule-destroy; } \
                2>&1 | tee "$log" ;;
    *) make --no-print-directory "$stage" 2>&1 | tee "$log" | sed -u "s/^/$prefix/" ;;
  esac
  status=${PIPESTATUS[0]}
  ended=$(date +%s.%N)
  seconds=$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')
  printf '{"name": "%s", "seconds": %s, "status": %d, "started": %s, "ended": %s}\n' \
    "$stage" "$seconds" "$status" "$started" "$ended" >> "$JUNIT_DIR/stages.jsonl"
  [[ $PYTEST_STAGES == *" $stage "* ]] || stage_junit "$stage" "$seconds" "$status" "$log"
  if [ "$status" -ne 0 ]; then
    echo "test: stage $stage failed (rc $status)"
    # Whatever failed after the lab came up, leave no simulated Mac running (nested: only its own lab,
    # the other stream goes on).
    if [ -n "$NESTED" ]; then
      case $stage in molecule|bench-smoke) lab/maclab down >/dev/null 2>&1 || true ;; esac
    else
      case $stage in e2e|molecule|bench-smoke) make --no-print-directory lab-down >/dev/null 2>&1 || true ;; esac
    fi
  fi
  return "$status"
}

# The checks that need no lab run in two lanes, one per core: lint then collection-checks in one, the
# unit tests (four processes, often waiting on timers) then sanity in the other (scripts/test_times.py
# shows each stage's own wall time; the summary's "wall" line the run's). A stage given alone runs alone.
BESIDE_UNIT=" lint collection-checks "
AFTER_UNIT=" sanity "
lane_checks=() lane_after=() rest=()
for stage in "${STAGES[@]}"; do
  if [[ $BESIDE_UNIT == *" $stage "* ]]; then lane_checks+=("$stage")
  elif [[ $AFTER_UNIT == *" $stage "* ]]; then lane_after+=("$stage")
  else rest+=("$stage"); fi
done
if [[ " ${rest[*]} " == *" unit "* ]] && [ $(( ${#lane_checks[@]} + ${#lane_after[@]} )) -gt 0 ]; then
  ( for stage in "${lane_checks[@]}"; do run_stage "$stage" "[$stage] " || exit $?; done ) &
  checks=$!
  ( run_stage unit "[unit] " || exit $?
    for stage in "${lane_after[@]}"; do run_stage "$stage" "[$stage] " || exit $?; done ) &
  units=$!
  wait "$checks"; checks_status=$?
  wait "$units"; unit_status=$?
  for s in "$checks_status" "$unit_status"; do [ "$s" -ne 0 ] && exit "$s"; done
  others=()
  for stage in "${rest[@]}"; do [ "$stage" = unit ] || others+=("$stage"); done
  rest=("${others[@]}")
else
  rest=("${lane_checks[@]}" "${lane_after[@]}" "${rest[@]}")
fi
# Molecule and the benchmark smoke runs, given with e2e, run on lab 1 once its stream passed, beside
# lab 0's longer stream (scripts/e2e_streams.sh, E2E_AFTER_LAB1): a lab and a core that would idle.
AFTER_LAB1=
if [ -z "$NESTED" ] && [[ " ${rest[*]} " == *" e2e "* ]]; then
  after=() others=()
  for stage in "${rest[@]}"; do
    case $stage in molecule|bench-smoke) after+=("$stage") ;; *) others+=("$stage") ;; esac
  done
  if [ ${#after[@]} -gt 0 ]; then
    AFTER_LAB1="TEST_STAGES='${after[*]}' TEST_STAGES_NESTED=1 bash scripts/test_stages.sh"
    rest=("${others[@]}")
  fi
fi
for stage in "${rest[@]}"; do
  run_stage "$stage" || exit $?
done
