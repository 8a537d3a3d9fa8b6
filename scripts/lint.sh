#!/usr/bin/env bash
# Static checks: YAML, Ansible content (production profile), and Python 3.9 compatibility of
# everything that runs on a Mac (macOS's own python3 is 3.9).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
failed=0
step() { printf '\n== %s\n' "$*"; }
run() { if "$@"; then echo "lint: ok: $*"; else echo "lint: FAILED: $*"; failed=1; fi; }

step "yamllint"
run "$BIN/yamllint" --strict .

step "ansible-lint --profile production"
run "$BIN/ansible-lint" --profile production --offline --nocolor

step "vermin: plugins/ must run on Python 3.9"
run "$BIN/vermin" --no-tips --violations --target=3.9- --eval-annotations plugins/

step "py_compile on every Python 3 interpreter present"
mapfile -t pys < <(bash scripts/pythons.sh)
for py in "${pys[@]}"; do
  run "$py" scripts/compile_check.py plugins
done

echo
if [ "$failed" -ne 0 ]; then echo "lint: 1 failed"; exit 1; fi
echo "lint: all checks passed"
