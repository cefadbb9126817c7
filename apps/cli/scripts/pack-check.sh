#!/usr/bin/env bash
# Checks that `awr` and `awr-mcp` work from packed tarballs, as a user would install them: packs
# @awr/cli, @awr/service and every workspace package they depend on (pnpm pack rewrites
# workspace:* ranges and applies publishConfig), installs the tarballs with npm into a temporary
# directory, and runs `awr --help`, `awr init --accept` and `awr --json status` on a copy of the
# demo project, then `awr-mcp --help`. Needs `pnpm build` first and the npm registry for
# third-party dependencies (better-sqlite3 compiles from source: allow a few minutes).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../../.." && pwd)"
work="$(mktemp -d /tmp/awr-pack-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tarballs" "$work/app"

cd "$repo"
for pkg in @awr/jsonrpc-core @awr/transport-stdio @awr/transport-http @awr/mcp-client \
  @awr/awr-ledger @awr/awr-server @awr/cli @awr/service; do
  pnpm --filter "$pkg" pack --pack-destination "$work/tarballs" >/dev/null
done
ls "$work/tarballs"

cd "$work/app"
npm init -y >/dev/null
# npm 11.19+ runs a dependency's install script only when allowed; better-sqlite3 builds its addon.
npm pkg set allowScripts.better-sqlite3=true --json
npm_config_nodedir="${npm_config_nodedir:-/usr}" npm install --no-audit --no-fund "$work"/tarballs/*.tgz

npx --no-install awr --help >"$work/help.txt" && head -3 "$work/help.txt"
cp -R "$repo/examples/demo-project" "$work/demo"
npx --no-install awr --project "$work/demo" init --accept >/dev/null
status="$(npx --no-install awr --project "$work/demo" --json status)"
echo "$status" | node -e '
  let t = ""; process.stdin.on("data", (c) => (t += c)).on("end", () => {
    const s = JSON.parse(t);
    if (typeof s.project_id !== "string" || typeof s.project_revision !== "number") process.exit(1);
    console.log(`awr --json status: project_id ${s.project_id}, revision ${s.project_revision}`);
  });'
npx --no-install awr-mcp --help >"$work/mcp-help.txt" 2>&1 && head -3 "$work/mcp-help.txt"
echo "pack-check: ok"
