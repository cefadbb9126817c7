#!/usr/bin/env bash
# Checks what a package's README promises a reader: packs the (built) workspace package and every
# workspace package it depends on with `pnpm pack`, installs the tarballs into an empty directory
# with npm, saves the README's marked code blocks there and runs the examples with node.
#
# Usage: scripts/check-packed-examples.sh packages/<name>
#
# Marking, in any README: an HTML comment on the line before a fenced code block.
#   <!-- example: example.mjs -->    save the block as example.mjs and run `node example.mjs`
#   <!-- example-file: server.mjs --> save the block as server.mjs (a file the examples use)
# Examples run in the order they appear, each bounded by EXAMPLE_TIMEOUT seconds (60), with the
# scratch directory as working directory; any non-zero exit fails the check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: scripts/check-packed-examples.sh packages/<name>}"
target="${target%/}"
[ -f "$root/$target/package.json" ] || { echo "no package.json in $target" >&2; exit 2; }
[ -f "$root/$target/README.md" ] || { echo "no README.md in $target" >&2; exit 2; }
work="$(mktemp -d /tmp/awr-pack-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT

# The package and its workspace dependencies (transitively), as directories relative to root.
mapfile -t dirs < <(node - "$root" "$target" <<'NODE'
const { readFileSync, readdirSync, existsSync } = require("node:fs");
const { join } = require("node:path");
const [root, target] = process.argv.slice(2);
const byName = new Map();
for (const group of ["packages", "apps"]) {
  if (!existsSync(join(root, group))) continue;
  for (const entry of readdirSync(join(root, group))) {
    const file = join(root, group, entry, "package.json");
    if (existsSync(file)) byName.set(JSON.parse(readFileSync(file, "utf8")).name, `${group}/${entry}`);
  }
}
const seen = new Set();
(function visit(dir) {
  if (seen.has(dir)) return;
  seen.add(dir);
  const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies }))
    if (String(range).startsWith("workspace:") && byName.has(name)) visit(byName.get(name));
})(target);
console.log([...seen].join("\n"));
NODE
)
for dir in "${dirs[@]}"; do
  [ -d "$root/$dir/dist" ] || { echo "$dir is not built: run pnpm build first" >&2; exit 2; }
  (cd "$root/$dir" && pnpm pack --pack-destination "$work" >/dev/null)
done

# The marked blocks: files first written, then the examples listed in order.
mapfile -t examples < <(node - "$root/$target/README.md" "$work" <<'NODE'
const { readFileSync, writeFileSync } = require("node:fs");
const { join, basename } = require("node:path");
const [readme, work] = process.argv.slice(2);
const lines = readFileSync(readme, "utf8").split("\n");
const run = [];
let saved = 0;
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
  writeFileSync(join(work, name), `${lines.slice(open + 1, close).join("\n")}\n`);
  saved++;
  if (!mark[1]) run.push(name);
}
if (run.length === 0) {
  console.error(`${readme}: no <!-- example: NAME.mjs --> block`);
  process.exit(2);
}
console.log(run.join("\n"));
NODE
)

cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund ./*.tgz >/dev/null
for example in "${examples[@]}"; do
  echo "--- $target: node $example"
  timeout "${EXAMPLE_TIMEOUT:-60}" node "$example"
done
echo "packed examples of $target ran (${#examples[@]})"
