#!/usr/bin/env bash
# make e2e: the end-to-end suite as four streams on four labs side by side, then the secrets scan.
#   lab 1: the lab itself, its shims, the modules, each role, the collection;
#   lab 0: site.yml and the playbooks on the lab it converges (kept up with MACLAB_KEEP_UP=1);
#   lab 2: serve-model.yml and the day-2 operations on a lab one site.yml run converges (taken down when
#          it ends);
#   lab 3: reboot-cluster.yml's suite on a lab of its own shape, then support-bundle.yml's (a bundle and its
#          replay; taken down when it ends);
#   then, with E2E_AFTER_LAB1, a command on lab 1 (make test: molecule and the benchmark smoke runs).
# The run is CPU-bound, so what counts is that no core idles until the last stream ends: the short reboot
# suite runs beside the three long streams from the start rather than after one of them, where it ran
# alone at the end with a core idle.
# Each stream is a pytest session of its own on its own lab (MACLAB_ID, lab/macsim/layout.py). An
# end-to-end test spends most of its time waiting (SSH, boots, timeouts), so several streams share two
# cores well. tests/e2e/lab/test_98_secrets.py then reads every log they wrote (MACLAB_E2E_LOGS).
# JUnit: $JUNIT_DIR/e2e.lab1.xml, e2e.lab0.xml, e2e.lab2.xml, e2e.lab3.xml, e2e.secrets.xml
# (scripts/test_times.py reads them as the e2e stage). Extra pytest arguments: PYTEST_ARGS.
set -uo pipefail
cd "$(dirname "$0")/.."
read -r -a extra <<< "${PYTEST_ARGS:-}"
pytest_run() {  # pytest_run JUNIT_PART ARGS...
  local part=$1; shift
  local junit=()
  [ -n "${JUNIT_DIR:-}" ] && junit=(--junitxml="$JUNIT_DIR/e2e.$part.xml")
  .venv/bin/pytest -q -p no:cacheprovider -rfE -m "not wip" --durations=15 "${junit[@]}" "$@" "${extra[@]}"
}
logs=$(mktemp -d /tmp/macops-e2e-logs.XXXXXX)
# What each lane costs the machine, the nodes' side included (their sshd, modules, ranks are the lane's children): a
# cpuacct cgroup per lane where the kernel offers cgroup v1's cpuacct (CI's machines do), each lane's total printed at
# the end and each test's in $JUNIT_DIR/tests_cpu.jsonl (tests/e2e/conftest.py). The run is CPU-bound, so these say
# where a slower run's time went. Without cpuacct nothing is measured.
CPUACCT=/sys/fs/cgroup/cpuacct
lane_cgroup() {  # lane_cgroup NAME: this shell and what it starts into the lane's cgroup
  [ -w "$CPUACCT/tasks" ] || return 0
  mkdir -p "$CPUACCT/macops-e2e-$1" 2>/dev/null && echo "$BASHPID" > "$CPUACCT/macops-e2e-$1/tasks" 2>/dev/null || true
}
lane_cgroups_end() {  # print each lane's CPU seconds; hand what still runs (labs kept up) back, remove the groups
  [ -d "$CPUACCT" ] || return 0
  local group pid
  for group in "$CPUACCT"/macops-e2e-*; do
    [ -d "$group" ] || continue
    awk -v lane="${group##*-e2e-}" '{ printf "e2e: %s used %.0f s of CPU\n", lane, $1 / 1e9 }' "$group/cpuacct.usage"
    while read -r pid; do echo "$pid" > "$CPUACCT/tasks" 2>/dev/null || true; done < "$group/tasks"
    rmdir "$group" 2>/dev/null || true
  done
}
trap 'lane_cgroups_end; rm -rf "$logs"' EXIT
export MACLAB_E2E_LOGS=$logs
SECRETS=tests/e2e/lab/test_98_secrets.py

# E2E_AFTER_LAB1 (make test: molecule and the benchmark smoke runs): a command run on lab 1, kept
# up, once its stream passed, while lab 0's longer stream goes on; its status is the lab 1 lane's.
lab1_lane() {
  MACLAB_KEEP_UP=$([ -n "${E2E_AFTER_LAB1:-}" ] && echo 1 || echo 0) pytest_run lab1 --ignore="$SECRETS" \
    tests/e2e/collection tests/e2e/lab tests/e2e/lab_shims tests/e2e/modules tests/e2e/roles \
    2>&1 | sed -u 's/^/[lab 1] /'
  local status=${PIPESTATUS[0]}
  if [ "$status" -ne 0 ] || [ -z "${E2E_AFTER_LAB1:-}" ]; then return "$status"; fi
  bash -c "$E2E_AFTER_LAB1"
}
( lane_cgroup lab1; export MACLAB_ID=1; lab1_lane ) &
lab1=$!
( lane_cgroup lab0; MACLAB_ID=0 pytest_run lab0 tests/e2e/site 2>&1 | sed -u 's/^/[lab 0] /' ) &
lab0=$!
( lane_cgroup lab2; export MACLAB_ID=2 MACLAB_KEEP_UP=0; pytest_run lab2 tests/e2e/serve 2>&1 | sed -u 's/^/[lab 2] /' ) &
lab2=$!
( lane_cgroup lab3; export MACLAB_ID=3 MACLAB_KEEP_UP=0; pytest_run lab3 tests/e2e/reboot tests/e2e/bundle 2>&1 | sed -u 's/^/[lab 3] /' ) &
lab3=$!
wait "$lab1"; status1=$?
wait "$lab0"; status0=$?
wait "$lab2"; status2=$?
wait "$lab3"; status3=$?
echo "e2e: lab 1 stream exited $status1, lab 0 stream exited $status0, lab 2 stream exited $status2," \
  "lab 3 stream exited $status3; the secrets scan over all four"
MACLAB_ID=0 MACLAB_REUSE=1 pytest_run secrets "$SECRETS"
status=$?
# The first failure's status: a stream's, else the scan's.
for s in "$status1" "$status0" "$status2" "$status3" "$status"; do [ "$s" -ne 0 ] && exit "$s"; done
exit 0
