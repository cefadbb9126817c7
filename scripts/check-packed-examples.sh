#!/usr/bin/env bash
# Checks what the packages' READMEs promise a reader: packs the (built) workspace packages named
# and every workspace package they depend on with `pnpm pack` (scripts/pack-tarballs.sh: in CI,
# the tarballs `pnpm check:packages` packed already), installs the tarballs (with the
# peer dependencies they declare, as their READMEs tell a reader to) into one empty directory
# with npm, saves each README's marked code blocks in a directory of its own there and runs them.
#
# Usage: scripts/check-packed-examples.sh packages/<name> [apps/<name> ...]
#
# Marking, in any README: an HTML comment on the line before a fenced code block.
#   <!-- example: example.mjs -->     save the block as example.mjs and run `node example.mjs`
#   <!-- example: example.sh -->      save the block as example.sh and run it with bash
#                                     (the installed bins, e.g. awr, are on the PATH)
#   <!-- example-file: server.mjs --> save the block as server.mjs (a file the examples use)
# Examples run in the order they appear, each bounded by EXAMPLE_TIMEOUT seconds (60), with the
# README's directory as working directory; any non-zero exit fails the check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ "$#" -gt 0 ] || { echo "usage: scripts/check-packed-examples.sh packages/<name> [...]" >&2; exit 2; }
targets=()
for target in "$@"; do
  target="${target%/}"
  [ -f "$root/$target/package.json" ] || { echo "no package.json in $target" >&2; exit 2; }
  [ -f "$root/$target/README.md" ] || { echo "no README.md in $target" >&2; exit 2; }
  targets+=("$target")
done
work="$(mktemp -d /tmp/awr-pack-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# The packages and their workspace dependencies (transitively), as directories relative to root,
# then one line with the peer dependencies they declare (name@range ...).
mapfile -t plan < <(node - "$root" "${targets[@]}" <<'NODE'
const { readFileSync, readdirSync, existsSync } = require("node:fs");
const { join } = require("node:path");
const [root, ...targets] = process.argv.slice(2);
const byName = new Map();
for (const group of ["packages", "apps"]) {
  if (!existsSync(join(root, group))) continue;
  for (const entry of readdirSync(join(root, group))) {
    const file = join(root, group, entry, "package.json");
    if (existsSync(file)) byName.set(JSON.parse(readFileSync(file, "utf8")).name, `${group}/${entry}`);
  }
}
const seen = new Set();
const peers = new Map();
function visit(dir) {
  if (seen.has(dir)) return;
  seen.add(dir);
  const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  for (const [name, range] of Object.entries(manifest.peerDependencies ?? {}))
    if (!byName.has(name)) peers.set(name, range);
  for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }))
    if (String(range).startsWith("workspace:") && byName.has(name)) visit(byName.get(name));
}
for (const target of targets) visit(target);
console.log([...seen].join("\n"));
console.log(`peers: ${[...peers].map(([name, range]) => `${name}@${range}`).join(" ")}`);
NODE
)
peers="${plan[-1]#peers: }"
unset 'plan[-1]'
for dir in "${plan[@]}"; do
  [ -d "$root/$dir/dist" ] || { echo "$dir is not built: run pnpm build first" >&2; exit 2; }
done
"$root/scripts/pack-tarballs.sh" "$work" "${plan[@]}"

cd "$work"
npm init -y >/dev/null
# Native addons compile from source against the local Node headers (no prebuilt download),
# unless a local prebuild of better-sqlite3 is named (CI names the one the workspace compiled:
# .ci/sqlite-local-prebuild).
from_source=true
[ -z "${npm_config_better_sqlite3_local_prebuilds:-}" ] || from_source=false
# shellcheck disable=SC2086
npm_config_build_from_source=$from_source npm install --no-audit --no-fund ./*.tgz $peers >"$work/npm-install.log" 2>&1 ||
  { tail -40 "$work/npm-install.log"; echo "npm install of the packed tarballs failed" >&2; exit 1; }
export PATH="$work/node_modules/.bin:$PATH"

for target in "${targets[@]}"; do
  dir="$work/examples/$(basename "$target")"
  mkdir -p "$dir"
  # The marked blocks: files first written, then the examples listed in order.
  mapfile -t examples < <(node - "$root/$target/README.md" "$dir" <<'NODE'
const { readFileSync, writeFileSync } = require("node:fs");
const { join, basename } = require("node:path");
const [readme, dir] = process.argv.slice(2);
const lines = readFileSync(readme, "utf8").split("\n");
const run = [];
for (let i = 0; i < lines.length; i++) {
  const mark = /^<!--\s*example(-file)?:\s*(\S+)\s*-->\s*$/.exec(lines[i]);
  if (!mark) continue;
  const name = basename(mark[2]);
  const open = lines.findIndex((line, j) => j > i && /^```/.test(line));
  const close = lines.findIndex((line, j) => j > open && /^```\s*$/.test(line));
  if (open !== i + 1 || close < 0) {
    console.error(`${readme}:${i + 1}: the marker must stand right before a fenced code block`);
    process.exit(2);
  }
  writeFileSync(join(dir, name), `${lines.slice(open + 1, close).join("\n")}\n`);
  if (!mark[1]) run.push(name);
}
if (run.length === 0) {
  console.error(`${readme}: no <!-- example: NAME.mjs --> block`);
  process.exit(2);
}
console.log(run.join("\n"));
NODE
  )
  for example in "${examples[@]}"; do
    echo "--- $target: $example"
    case "$example" in
      *.sh) (cd "$dir" && timeout "${EXAMPLE_TIMEOUT:-60}" bash -e "$example") ;;
      *) (cd "$dir" && timeout "${EXAMPLE_TIMEOUT:-60}" node "$example") ;;
    esac
  done
  echo "packed examples of $target ran (${#examples[@]})"
done
