#!/usr/bin/env bash
# Puts the tarball of each (built) workspace package named into DEST, as `pnpm pack` makes it.
# When AWR_PACKED_TARBALLS names a directory that already holds a package's tarball (CI: the one
# `pnpm check:packages` packed from the same build, see scripts/check-tarballs.mjs), that tarball
# is copied instead of packing the package again; any package it lacks is packed. Used by
# scripts/check-packed-examples.sh and scripts/install-global.sh.
#
# Usage: scripts/pack-tarballs.sh DEST packages/<name> [apps/<name> ...]   (relative to the root)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ "$#" -ge 2 ] || { echo "usage: scripts/pack-tarballs.sh DEST DIR..." >&2; exit 2; }
dest="$(cd "$1" && pwd)"
shift
packed="${AWR_PACKED_TARBALLS:-}"
for dir in "$@"; do
  if [ -n "$packed" ]; then
    # pnpm's name for the tarball: the package name without its @, / as -, then the version.
    name="$(node -p 'const m = require(process.argv[1]); `${m.name.replace(/^@/, "").replace("/", "-")}-${m.version}.tgz`' \
      "$root/$dir/package.json")"
    if [ -f "$packed/$name" ]; then
      cp "$packed/$name" "$dest/"
      continue
    fi
  fi
  (cd "$root/$dir" && pnpm pack --pack-destination "$dest" >/dev/null)
done
