#!/usr/bin/env bash
# make e2e: the end-to-end suite as three streams on three labs side by side, then the secrets scan.
#   lab 1: the lab itself, its shims, the modules, each role, the collection;
#   lab 0: site.yml and the playbooks on the lab it converges (kept up with MACLAB_KEEP_UP=1);
#   lab 2: serve-model.yml and the day-2 operations on a lab one site.yml run converges (taken down when
#          it ends), then reboot-cluster.yml's suite on a fresh lab 2 (a session of its own: its own lab shape);
#   then, with E2E_AFTER_LAB1, a command on lab 1 (make test: molecule and the benchmark smoke runs).
# The suites are spread so that the three lanes end together: the run is CPU-bound, and a lane that ends
# early leaves a core idle while the longest one goes on.
# Each stream is a pytest session of its own on its own lab (MACLAB_ID, lab/macsim/layout.py). An
# end-to-end test spends most of its time waiting (SSH, boots, timeouts), so two streams share two
# cores well. tests/e2e/lab/test_98_secrets.py then reads every log both wrote (MACLAB_E2E_LOGS).
# JUnit: $JUNIT_DIR/e2e.lab1.xml, e2e.lab0.xml, e2e.lab2.xml, e2e.lab2-reboot.xml, e2e.secrets.xml
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
trap 'rm -rf "$logs"' EXIT
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
( export MACLAB_ID=1; lab1_lane ) &
lab1=$!
( MACLAB_ID=0 pytest_run lab0 tests/e2e/site 2>&1 | sed -u 's/^/[lab 0] /' ) &
lab0=$!
lab2_lane() {
  pytest_run lab2 tests/e2e/serve && pytest_run lab2-reboot tests/e2e/reboot
}
( export MACLAB_ID=2 MACLAB_KEEP_UP=0; lab2_lane 2>&1 | sed -u 's/^/[lab 2] /' ) &
lab2=$!
wait "$lab1"; status1=$?
wait "$lab0"; status0=$?
wait "$lab2"; status2=$?
echo "e2e: lab 1 stream exited $status1, lab 0 stream exited $status0, lab 2 stream exited $status2;" \
  "the secrets scan over all three"
MACLAB_ID=0 MACLAB_REUSE=1 pytest_run secrets "$SECRETS"
status=$?
# The first failure's status: a stream's, else the scan's.
for s in "$status1" "$status0" "$status2" "$status"; do [ "$s" -ne 0 ] && exit "$s"; done
exit 0
