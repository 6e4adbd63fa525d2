#!/usr/bin/env bash
# Fails when the committed generated files (deepcopy functions, CRDs, the
# chart's copy of the CRDs) differ from what hack/generate.sh makes from
# the Go types. Generates into a copy of the tree, so the working tree is never
# touched. Needs only Go (and tar and diff); for CI and before committing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tmp="$work/tree"
mkdir "$tmp"

# A copy of the tree, without build outputs and git's own files.
tar -C "$root" --exclude=./.git --exclude=./bin -cf - . | tar -C "$tmp" -xf -
bash "$tmp/hack/generate.sh"

# Everything hack/generate.sh writes: its output folders, and zz_generated
# files (deepcopy) wherever they are, in either tree (a new or a
# deleted one is drift too).
paths=(config/crd/bases charts/strata/crds)
while IFS= read -r f; do
  paths+=("$f")
done < <( (cd "$root" && find pkg -name 'zz_generated.*.go'; cd "$tmp" && find pkg -name 'zz_generated.*.go') | sort -u)

drift=0
for p in "${paths[@]}"; do
  if ! diff -ruN "$root/$p" "$tmp/$p" >"$work/diff" 2>&1; then
    drift=1
    sed -e "s|$tmp/|regenerated: |g" -e "s|$root/|committed: |g" "$work/diff"
  fi
done
if [ "$drift" -ne 0 ]; then
  echo >&2
  echo "hack/verify-generate.sh: generated files are out of date with the Go types (diff above: committed, then regenerated)." >&2
  echo "Run hack/generate.sh and commit the result; do not edit generated files by hand." >&2
  exit 1
fi
echo "hack/verify-generate.sh: generated files are up to date."
