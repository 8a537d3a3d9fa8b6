#!/usr/bin/env bash
# The collection's documentation site (modules, action and filter plugins, roles with their
# argument specs) built by antsibull-docs and Sphinx into artifacts/docs-site/ (DOCS_SITE_DIR
# overrides). Fails on any documentation problem: antsibull-docs' lint first (markup, schema and
# every reference, to this collection and to the ones it depends on), then the site itself with
# every Sphinx warning an error. Needs no network.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=$ROOT/.venv/bin
OUT=${DOCS_SITE_DIR:-$ROOT/artifacts/docs-site}
export PATH="$BIN:$PATH"
# macops.cluster through the working tree's symlink; the dependencies (community.general,
# ansible.posix, community.crypto) are the `ansible` package's, in .venv.
export ANSIBLE_COLLECTIONS_PATH=$ROOT/collections
# antsibull-docs copies every collection it reads, with `git ls-files` when the collection sits
# in a git work tree: the dependencies in .venv (which git ignores) would come out empty and every
# reference to them would count as unknown. Git's search for a repository stops above the
# repository root (and above the directory that holds .venv, should .venv be a link), so the
# collection itself is still copied as git sees it, the rest whole.
export GIT_CEILING_DIRECTORIES="$ROOT:$(dirname "$(realpath "$ROOT/.venv")")"
work=$(mktemp -d /tmp/macops-docs.XXXXXX)
trap 'rm -rf "$work"' EXIT
# antsibull-docs' own temporary copies go in there too, so nothing outlives a killed run.
mkdir "$work/tmp"
export TMPDIR=$work/tmp
failed=0
step() { printf '\n== %s\n' "$*"; }

step "antsibull-docs lint-collection-docs --plugin-docs"
# rstcheck is skipped: the Sphinx build below parses the same RST, strictly.
antsibull-docs lint-collection-docs --plugin-docs --skip-rstcheck \
  --validate-collection-refs dependent --disallow-unknown-collection-refs . || failed=1

step "antsibull-docs sphinx-init"
# It writes only into an existing directory that no one else can write to.
mkdir -m 0755 "$work/site"
# --fail-on-error: a plugin whose documentation does not parse fails the build (antsibull-docs
# would otherwise write an error page in its place and carry on).
# docs/docsite/index.rst is the landing page (what the collection does, its playbooks, the guides).
antsibull-docs sphinx-init --use-current --fail-on-error --dest-dir "$work/site" \
  --index-rst-source docs/docsite/index.rst \
  --project macops.cluster --copyright "macops.cluster team" \
  --title "macops.cluster documentation" macops.cluster >/dev/null

# The generated conf.py loads intersphinx inventories from docs.python.org and docs.ansible.com,
# which a build machine may not reach (a failed fetch is a warning, so an error here). Without
# them, the references that only those sites define stay unresolved: the pages antsibull-docs
# writes for every module ("common return values", "action plugin", the configuration
# settings) and the plugins of ansible-core and of the collections this one depends on. The
# lint above has checked every reference to those plugins against the installed collections,
# so only those are let through, as plain text; a reference into macops.cluster must resolve.
cat >> "$work/site/conf.py" <<'EOF'

# Added by scripts/docs_site.sh: an offline build (see there).
intersphinx_mapping = {}
nitpick_ignore_regex = [
    ('std:ref', r'common_return_values|action_plugins|ansible_configuration_settings'),
    ('std:ref', r'ansible_collections\.(ansible\.builtin|ansible\.posix|community\.general|community\.crypto)\..+'),
]
EOF

step "build.sh: antsibull-docs collection, sphinx-build -W --keep-going"
log=$work/build.log
if bash "$work/site/build.sh" >"$log" 2>&1; then build_rc=0; else build_rc=$?; fi
# Sphinx fails on its warnings by itself (-W); antsibull-docs only logs some of its own, so a
# warning or error line from either fails the build as well.
if [ "$build_rc" -ne 0 ] || grep -qE '^(WARNING|ERROR|CRITICAL)[: ]|: (WARNING|ERROR|CRITICAL): ' "$log"; then
  grep -E 'WARNING|ERROR|CRITICAL' "$log" || true
  echo "-- the end of the build's output:"
  tail -n 15 "$log"
  echo "docs: the site build reported problems (rc $build_rc)"
  failed=1
else
  rm -rf "$OUT"
  mkdir -p "$(dirname "$OUT")"
  cp -r "$work/site/build/html" "$OUT"
  # The landing page is docs/docsite/index.rst, not antsibull-docs' placeholder.
  grep -q "One playbook per operation" "$OUT/index.html" ||
    { echo "docs: index.html is not docs/docsite/index.rst"; failed=1; }
  pages=$(find "$OUT" -name '*.html' | wc -l)
  echo "docs: $pages pages in $OUT (open $OUT/index.html)"
fi

echo
if [ "$failed" -ne 0 ]; then echo "docs: FAILED"; exit 1; fi
echo "docs: the site built without a warning"
