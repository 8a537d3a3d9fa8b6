#!/usr/bin/env bash
# ansible-test sanity on exactly what the collection ships. ansible-test must run from
# .../ansible_collections/<namespace>/<name>, so the built tarball is unpacked into a temporary
# tree (with tests/sanity for the ignore file) and tested there.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.venv/bin
work=$(mktemp -d /tmp/macops-sanity.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$BIN/ansible-galaxy" collection build --force --output-path "$work" >/dev/null
tree=$work/ansible_collections/macops/cluster
mkdir -p "$tree"
tar -xzf "$work"/macops-cluster-*.tar.gz -C "$tree"
mkdir -p "$tree/tests"
cp -r tests/sanity "$tree/tests/"
# ansible-test uses git to list files when it finds a repository; a fresh one holds exactly
# the shipped files.
printf '/tests/output/\n' > "$tree/.gitignore"
git -C "$tree" init -q && git -C "$tree" add -A && git -C "$tree" -c user.email=ci@local \
  -c user.name=ci commit -qm sanity

# ansible-test --venv bootstraps pip with a script from a host these machines cannot reach;
# give it a stand-in that uses ensurepip and PyPI (scripts/ansible_test_get_pip.py says why).
pip_version=$("$BIN/python" -c 'from ansible_test._internal.python_requirements import get_venv_packages as g
class P: version = ""
print(g(P())["pip"])')
mkdir -p ~/.ansible/test/cache
cp scripts/ansible_test_get_pip.py ~/.ansible/test/cache/get_pip_${pip_version//./_}.py

cd "$tree"
export PATH="$BIN:$PATH"
controller=$("$BIN/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
failed=0
echo "sanity: all tests on Python $controller"
"$BIN/ansible-test" sanity --venv --python "$controller" --color no || failed=1
# Beside the controller's, the oldest Python (3.9, as macOS ships it: the modules run there) and the newest present:
# compile and import. The versions between add no case those two miss; lint's py_compile covers every one.
mapfile -t pythons < <(bash "$ROOT/scripts/pythons.sh")
for py in $(printf '%s\n' "${pythons[0]}" "${pythons[-1]}" | awk '!seen[$0]++'); do
  v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
  [ "$v" = "$controller" ] && continue
  echo "sanity: compile and import on Python $v ($py)"
  PATH="$(dirname "$py"):$PATH" "$BIN/ansible-test" sanity --venv --python "$v" \
    --test compile --test import --color no || failed=1
done
if [ "$failed" -ne 0 ]; then echo "sanity: 1 failed"; exit 1; fi
echo "sanity: all passed"
