#!/usr/bin/env bash
# The changelog: `antsibull-changelog lint` on changelogs/, then the next release cut on a copy
# of the collection, so CI proves that `antsibull-changelog release` and `generate` work and
# render every fragment, without the release consuming the fragments here (keep_fragments is
# false: a release deletes them, which is a maintainer's step, README "Changelog"). The preview
# lands in artifacts/changelog/CHANGELOG.md (CHANGELOG_DIR overrides).
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
echo "changelog: ok: lint ($(find changelogs/fragments -name '*.yml' -o -name '*.yaml' | wc -l) fragments)"

printf '\n== antsibull-changelog release and generate, on a copy\n'
# What the release reads: galaxy.yml's version, the fragments, and the plugins and roles for
# its "New Modules" sections (through ansible-doc, which needs an ansible_collections tree).
tree=$work/ansible_collections/macops/cluster
mkdir -p "$tree"
cp -r galaxy.yml changelogs meta plugins roles "$tree/"
version=$("$BIN/python" -c 'import yaml; print(yaml.safe_load(open("galaxy.yml"))["version"])')
(cd "$tree" && ANSIBLE_COLLECTIONS_PATH=$work antsibull-changelog release --version "$version" >"$work/release.log" 2>&1) ||
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

# generate renders changelogs/changelog.yaml alone: it must give the release's page again.
cp "$md" "$work/released.md"
(cd "$tree" && antsibull-changelog generate >"$work/generate.log" 2>&1) ||
  { cat "$work/generate.log"; echo "changelog: FAILED: antsibull-changelog generate"; exit 1; }
if ! diff -u "$work/released.md" "$md" >"$work/generate.diff"; then
  head -n 40 "$work/generate.diff"
  echo "changelog: FAILED: generate does not reproduce the release's CHANGELOG.md"
  exit 1
fi
echo "changelog: ok: generate reproduces CHANGELOG.md"
mkdir -p "$OUT"
cp "$md" "$OUT/CHANGELOG.md"
echo "changelog: the $version release preview is in ${OUT#"$ROOT"/}/CHANGELOG.md"
