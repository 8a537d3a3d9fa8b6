#!/usr/bin/env bash
# Install what the lab and the tests need: Debian packages and the pinned Python toolchain in
# .venv. Idempotent; when nothing changed since the last run it returns in well under a second.
#
# On a macOS controller (or with --controller anywhere) only the controller toolchain is installed,
# with pip alone: requirements/controller.txt into the venv, no apt, no test tools, no lab (the lab
# needs Linux namespaces). SETUP_VENV names another venv directory than .venv (scripts/controller_check.sh
# installs into a fresh one that way, as CI's proof of that path).
set -euo pipefail
cd "$(dirname "$0")/.."

CONTROLLER_ONLY=
if [ "${1:-}" = --controller ] || [ "$(uname -s)" = Darwin ]; then CONTROLLER_ONLY=1; fi
VENV=${SETUP_VENV:-.venv}

APT_PACKAGES=(openssh-server openssh-client sudo iproute2 iperf3 iputils-ping rsync graphviz
  procps psmisc kmod git make python3-venv ca-certificates curl nftables gcc libc6-dev)
REQS=(requirements/test.txt requirements/lab.txt)
STAMP=$VENV/.setup-stamp
# No byte-compiling at install: the `ansible` package alone is some 40,000 modules, and compiling all of
# them is four fifths of its install's CPU time (about 20 s of a core); Python compiles a module the first
# time it is imported instead, and keeps the result, so only what runs is ever compiled.
PIP_INSTALL=(-m pip install -q --disable-pip-version-check --no-compile)

note() { printf 'setup: %s\n' "$*"; }

# A Python >= 3.12 for ansible-core 2.21; pyenv installs count (CI machines carry them).
pick_python() {
  local c v
  for c in python3.12 python3.13 python3.14 \
           /root/.pyenv/versions/3.12*/bin/python3.12 /root/.pyenv/versions/3.13*/bin/python3.13 \
           /opt/homebrew/bin/python3.12 /opt/homebrew/bin/python3.13 /usr/bin/python3 python3; do
    command -v "$c" >/dev/null 2>&1 || [ -x "$c" ] || continue
    v=$("$c" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
    case "$v" in
      3.12|3.13|3.14) "$c" -c 'import sys; print(sys.executable)'; return 0 ;;
    esac
  done
  return 1
}

# The controller alone (macOS's bash is 3.2: no empty arrays under set -u here).
if [ -n "$CONTROLLER_ONLY" ]; then
  PY=$(pick_python) || { echo "setup: no Python >= 3.12 found (brew install python@3.12)" >&2; exit 1; }
  want=$(cat requirements/controller.txt scripts/setup.sh | cksum | cut -d" " -f1)
  if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "controller $want" ]; then exit 0; fi
  [ -x "$VENV/bin/python" ] || { note "creating $VENV with $PY"; "$PY" -m venv "$VENV"; }
  note "pip: installing the controller toolchain (requirements/controller.txt) into $VENV"
  "$VENV/bin/python" "${PIP_INSTALL[@]}" -U pip
  "$VENV/bin/python" "${PIP_INSTALL[@]}" -r requirements/controller.txt
  echo "controller $want" > "$STAMP"
  note "ready (controller only): $("$VENV/bin/ansible" --version | sed -n 1p)"
  exit 0
fi

missing_apt=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing_apt+=("$p")
done

if PY=$(pick_python); then
  CONTROLLER_REQ=requirements/controller.txt
else
  PY=$(command -v python3)
  CONTROLLER_REQ=requirements/controller-py311.txt
  note "no Python >= 3.12 found: using $("$PY" --version) with ansible-core 2.19 (2.20+ needs 3.12)."
  note "install python3.12 (or pyenv) and run 'rm -rf .venv && make setup' for the current line."
fi

want=$(cat "$CONTROLLER_REQ" "${REQS[@]}" scripts/setup.sh lab/macsim/wheelhouse.py | sha256sum | cut -d' ' -f1)
if [ ${#missing_apt[@]} -eq 0 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
  exit 0
fi

if [ ${#missing_apt[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "setup: run as root to install: ${missing_apt[*]}" >&2; exit 1; }
  note "apt: installing ${missing_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # policy-rc.d (present on CI images) keeps the machine-wide sshd from starting; the lab runs
  # its own sshd per simulated Mac.
  apt-get install -y -qq --no-install-recommends "${missing_apt[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  note "creating $VENV with $PY"
  "$PY" -m venv "$VENV"
fi
note "pip: installing pinned toolchain ($CONTROLLER_REQ ${REQS[*]})"
"$VENV/bin/python" "${PIP_INSTALL[@]}" -U pip
"$VENV/bin/python" "${PIP_INSTALL[@]}" -r "$CONTROLLER_REQ" "${REQS[@]/#/-r}"
# The lab's package source: the simulated Macs have no internet, so their pip installs MLX
# from a wheelhouse the controller fills from PyPI (lab/macsim/wheelhouse.py), as an air-gapped
# real cluster would from an internal mirror.
note "lab wheelhouse: pip download of the hosts' packages into .cache/wheelhouse"
wheels_log=$(mktemp /tmp/macops-wheels.XXXXXX)
.venv/bin/python lab/maclab wheels >"$wheels_log" 2>&1 || { cat "$wheels_log" >&2; rm -f "$wheels_log"; exit 1; }
rm -f "$wheels_log"
echo "$want" > "$STAMP"
note "ready: $(.venv/bin/ansible --version | sed -n 1p)"
