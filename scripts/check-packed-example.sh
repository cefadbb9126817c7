#!/usr/bin/env bash
# Packs a built workspace package (and the workspace packages it depends on), installs the
# tarballs into an empty directory with npm, and runs the first ```js block of its README there.
# Usage: scripts/check-packed-example.sh packages/jsonrpc-core [more workspace dirs to pack first]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="$1"; shift
work="$(mktemp -d /tmp/awr-pack-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
tarballs=()
for dir in "$@" "$target"; do
  (cd "$root/$dir" && pnpm pack --pack-destination "$work" >/dev/null)
done
for t in "$work"/*.tgz; do tarballs+=("$t"); done
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund "${tarballs[@]}" >/dev/null
sed -n '/^```js$/,/^```$/p' "$root/$target/README.md" | sed '1d;$d' | awk 'BEGIN{n=0} /^```/{exit} {print}' > example.mjs
[ -s example.mjs ] || { echo "no js example in $target/README.md" >&2; exit 1; }
node example.mjs
echo "packed example of $target ran"
