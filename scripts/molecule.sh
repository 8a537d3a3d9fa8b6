#!/usr/bin/env bash
# make molecule / make molecule-destroy: the scenario `default` (molecule/default) on the lab
# $MACLAB_ID names (the Makefile exports its inventory and root).
#   scripts/molecule.sh           create = lab up, converge = site.yml, idempotence, verify, destroy;
#                                 with MOLECULE_REUSE_LAB=1 converge, idempotence and verify one by
#                                 one on the lab that is up (MOLECULE_STEPS, when given, names them),
#                                 then destroy, unless MACLAB_KEEP_UP=1 keeps a lab that passed up
#                                 (make test's benchmark smoke runs)
#   scripts/molecule.sh destroy   the lab down
# Molecule installs the collection under test into ~/.ansible/collections; a copy left there would
# shadow the working tree for later runs (ansible-lint finds it first), so it goes again unless it
# was there before.
set -uo pipefail
cd "$(dirname "$0")/.."
MOLECULE=.venv/bin/molecule
INSTALLED_COPY=$HOME/.ansible/collections/ansible_collections/macops/cluster
had=no
[ -e "$INSTALLED_COPY" ] && had=yes

scenario() {
  if [ "${1:-}" = destroy ]; then
    "$MOLECULE" destroy --scenario-name default
  elif [ "${MOLECULE_REUSE_LAB:-}" = 1 ]; then
    local rc=0 step steps
    read -r -a steps <<< "${MOLECULE_STEPS:-converge idempotence verify}"
    for step in "${steps[@]}"; do
      "$MOLECULE" "$step" --scenario-name default || { rc=$?; break; }
    done
    if [ "$rc" -ne 0 ] || [ "${MACLAB_KEEP_UP:-}" != 1 ]; then
      "$MOLECULE" destroy --scenario-name default || rc=$?
    fi
    return "$rc"
  else
    "$MOLECULE" test --scenario-name default
  fi
}

scenario "$@"
rc=$?
if [ "$had" = no ]; then
  rm -rf "$INSTALLED_COPY"
  rmdir "$(dirname "$INSTALLED_COPY")" 2>/dev/null || true
fi
exit "$rc"
