#!/usr/bin/env bash
# The changelog: `antsibull-changelog lint` on changelogs/; the committed CHANGELOG.md must be what
# `antsibull-changelog generate` renders from changelogs/changelog.yaml; and, when fragments wait
# for a release, that release is cut on a copy of the collection, so CI proves it renders every
# fragment without consuming the fragments here (keep_fragments is false: a release deletes them,
# which is a maintainer's step, README "Changelog"). The preview lands in
# artifacts/changelog/CHANGELOG.md (CHANGELOG_DIR overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.venv/bin
OUT=${CHANGELOG_DIR:-$ROOT/artifacts/changelog}
export PATH="$BIN:$PATH"
work=$(mktemp -d /tmp/macops-changelog.XXXXXX)
trap 'rm -rf "$work"' EXIT
# antsibull-changelog copies the collection again to list its plugins; keep that in here too.
mkdir "$work/tmp"
export TMPDIR=$work/tmp

printf '\n== antsibull-changelog lint\n'
antsibull-changelog lint
fragments=$(find changelogs/fragments -name '*.yml' -o -name '*.yaml' | wc -l)
echo "changelog: ok: lint ($fragments fragments)"
# How many releases changelogs/changelog.yaml holds, and the next release's version: galaxy.yml's
# (it carries the next release's version, tests/unit/test_runtime_routing.py checks that), or the
# minor after it in the moment between a release and galaxy.yml's next version.
read -r released version < <("$BIN/python" - <<'EOF'
import yaml
from packaging.version import Version
version = yaml.safe_load(open("galaxy.yml"))["version"]
released = yaml.safe_load(open("changelogs/changelog.yaml"))["releases"] or {}
if version in released:
    v = Version(version)
    version = "%d.%d.0" % (v.major, v.minor + 1)
print(len(released), version)
EOF
)

# What a release and generate read: galaxy.yml's version, changelogs/, and the plugins and roles
# for the "New Modules" sections (through ansible-doc, which needs an ansible_collections tree).
copy() {
  local tree=$work/$1/ansible_collections/macops/cluster
  mkdir -p "$tree"
  cp -r galaxy.yml changelogs meta plugins roles "$tree/"
  # The plugin list comes from the plugins themselves, not from a maintainer's cached one.
  rm -f "$tree/changelogs/.plugin-cache.yaml"
  [ ! -f CHANGELOG.md ] || cp CHANGELOG.md "$tree/"
  echo "$tree"
}

printf '\n== the committed CHANGELOG.md against changelogs/changelog.yaml\n'
if [ "$released" -gt 0 ]; then
  [ -f CHANGELOG.md ] || { echo "changelog: FAILED: changelogs/changelog.yaml has $released release(s) and there is no CHANGELOG.md"; exit 1; }
  tree=$(copy generate)
  (cd "$tree" && ANSIBLE_COLLECTIONS_PATH=$work/generate antsibull-changelog generate >"$work/generate.log" 2>&1) ||
    { cat "$work/generate.log"; echo "changelog: FAILED: antsibull-changelog generate"; exit 1; }
  if ! diff -u CHANGELOG.md "$tree/CHANGELOG.md" >"$work/generate.diff"; then
    head -n 40 "$work/generate.diff"
    echo "changelog: FAILED: CHANGELOG.md is not what antsibull-changelog generate writes; run it and commit the result"
    exit 1
  fi
  echo "changelog: ok: CHANGELOG.md is generate's rendering of $released release(s)"
else
  echo "changelog: nothing released yet"
fi

if [ "$fragments" -eq 0 ]; then
  echo "changelog: no fragments wait for a release"
  exit 0
fi

printf '\n== the next release, %s, cut on a copy\n' "$version"
tree=$(copy release)
(cd "$tree" && ANSIBLE_COLLECTIONS_PATH=$work/release antsibull-changelog release --version "$version" >"$work/release.log" 2>&1) ||
  { cat "$work/release.log"; echo "changelog: FAILED: antsibull-changelog release"; exit 1; }
md=$tree/CHANGELOG.md
[ -s "$md" ] || { echo "changelog: FAILED: the release wrote no CHANGELOG.md (changelogs/config.yaml output)"; exit 1; }

# Every fragment here must be in the release; the release must have consumed them on the copy.
"$BIN/python" - "$tree" "$version" <<'EOF'
import os, sys, yaml
tree, version = sys.argv[1:]
fragments = sorted(f for f in os.listdir("changelogs/fragments") if f.endswith((".yml", ".yaml")))
release = yaml.safe_load(open(os.path.join(tree, "changelogs/changelog.yaml")))["releases"][version]
missing = sorted(set(fragments) - set(release.get("fragments") or []))
if missing:
    sys.exit("changelog: FAILED: the release of %s lacks the fragments %s" % (version, ", ".join(missing)))
text = open(os.path.join(tree, "CHANGELOG.md"), encoding="utf-8").read()
if "## v%s" % version.replace(".", "\\.") not in text:
    sys.exit("changelog: FAILED: CHANGELOG.md has no section for v%s" % version)
left = [f for f in os.listdir(os.path.join(tree, "changelogs/fragments")) if f.endswith((".yml", ".yaml"))]
if left:
    sys.exit("changelog: FAILED: the release left fragments behind: %s" % ", ".join(sorted(left)))
print("changelog: ok: release %s of %d fragments, %d changes" % (
    version, len(fragments), sum(len(v) for k, v in release["changes"].items() if isinstance(v, list))))
EOF
mkdir -p "$OUT"
cp "$md" "$OUT/CHANGELOG.md"
echo "changelog: the $version release preview is in ${OUT#"$ROOT"/}/CHANGELOG.md"
