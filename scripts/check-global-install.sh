#!/usr/bin/env bash
# Checks the install the docs describe (docs/install.md): scripts/install-global.sh into a
# temporary prefix from the built workspace, then, outside the clone, with a PATH and environment
# that know nothing of it: `awr init --accept` in a new project prints the stdio host
# configurations naming the installed awr-mcp, `awr --json status` reads the SQLite ledger (the
# driver is found in a global layout), and the configured `awr-mcp --project` answers an MCP
# initialize over stdio. In CI the install takes the tarballs `pnpm check:packages` packed from the
# same build (AWR_PACKED_TARBALLS, see scripts/pack-tarballs.sh); run alone, it packs them.
#
# Usage: scripts/check-global-install.sh   (after pnpm build)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d /tmp/awr-global-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
"$root/scripts/install-global.sh" --prefix "$prefix" --no-build >"$work/install.log" 2>&1 ||
  { tail -40 "$work/install.log"; echo "the global install failed" >&2; exit 1; }

project="$work/my-repo"
cp -r "$root/examples/demo-project" "$project"
outside() { (cd "$project" && env -i HOME="$work" PATH="$prefix/bin:/usr/bin:/bin" "$@"); }

init_out="$(outside awr init --accept)" || { echo "$init_out"; echo "awr init --accept failed" >&2; exit 1; }
grep -qF "\"command\": \"$prefix/bin/awr-mcp\", \"args\": [\"--project\",\"$project\"]" <<<"$init_out" ||
  { echo "$init_out"; echo "awr init --accept did not print a stdio config for $prefix/bin/awr-mcp" >&2; exit 1; }

status_out="$(outside awr --json status)" || { echo "$status_out"; echo "awr status failed" >&2; exit 1; }
node -e 'const s = JSON.parse(process.argv[1]); if (s.ok !== true || s.total < 1) process.exit(1)' "$status_out" ||
  { echo "$status_out"; echo "awr --json status did not read the ledger" >&2; exit 1; }

initialize='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"check-global-install","version":"1"}}}'
answer="$(printf '%s\n' "$initialize" | outside timeout 20 "$prefix/bin/awr-mcp" --project "$project" 2>"$work/awr-mcp.log" | head -n 1)"
node -e 'const a = JSON.parse(process.argv[1]); if (a.id !== 1 || a.result?.serverInfo?.name !== "awr-mcp") process.exit(1)' "$answer" ||
  { echo "$answer"; cat "$work/awr-mcp.log"; echo "awr-mcp --project did not answer initialize" >&2; exit 1; }
echo "global install: awr init --accept, awr status and awr-mcp --project work outside the clone"
