#!/usr/bin/env bash
# The owner's controller, proven the way a Mac owner installs it: `scripts/setup.sh --controller`
# (what `make setup` does on macOS) puts requirements/controller.txt into a fresh venv with pip
# alone, no apt; then every playbook passes `ansible-playbook --syntax-check` from that venv
# against the documented inventory (inventories/example), with nothing of .venv on PATH and the settings
# docs/control-machine.md gives a Mac (OBJC_DISABLE_INITIALIZE_FORK_SAFETY; Linux has no Objective-C
# runtime to test it against, so this proves only that nothing objects to it).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d /tmp/macops-controller.XXXXXX)
trap 'rm -rf "$venv"' EXIT
started=$(date +%s)
SETUP_VENV="$venv" bash scripts/setup.sh --controller
echo "controller: toolchain installed in $(( $(date +%s) - started )) s"
"$venv/bin/python" -m pip check
failed=0
for playbook in $(grep -l import_playbook ./*.yml) playbooks/*.yml; do
  if env -i HOME="$HOME" PATH="$venv/bin:/usr/bin:/bin" ANSIBLE_CONFIG="$PWD/ansible.cfg" OBJC_DISABLE_INITIALIZE_FORK_SAFETY=YES \
      "$venv/bin/ansible-playbook" -i inventories/example --syntax-check "$playbook" >/tmp/macops-syntax.$$ 2>&1; then
    echo "controller: ok: $playbook"
  else
    echo "controller: FAILED: ansible-playbook --syntax-check $playbook"; cat /tmp/macops-syntax.$$; failed=1
  fi
done
rm -f /tmp/macops-syntax.$$
[ "$failed" -eq 0 ] || exit 1
echo "controller: every playbook passes --syntax-check from a pip-only venv"
