#!/usr/bin/env bash
# Installs `awr` and `awr-mcp` from this clone for the current user, the way a published install
# would: builds the workspace, packs its eight packages with `pnpm pack` (workspace ranges become
# versions) and installs the tarballs globally with npm. Afterwards `awr` and `awr-mcp` are on the
# PATH of npm's global bin directory, independent of the clone (it can be moved or deleted).
#
# Usage: scripts/install-global.sh [--prefix DIR] [--no-build]
#   --prefix DIR   install under DIR (bins in DIR/bin) instead of npm's global prefix
#   --no-build     use the existing dist/ directories (after pnpm build)
#
# better-sqlite3 compiles its native addon in its install script (a minute or two the first
# time); npm 11.19+ runs a dependency's install script only when allowed, hence
# --allow-scripts=better-sqlite3 (npm accepts it for global installs).
#
# The packing is scripts/pack-tarballs.sh's (CI reuses the tarballs it packed already).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
prefix=()
build=1
while [ "$#" -gt 0 ]; do
  case "$1" in
    --prefix) [ "$#" -ge 2 ] || { echo "--prefix needs a directory" >&2; exit 2; }; prefix=(--prefix "$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
  { echo "Node.js 20 or newer is needed (found $(node --version))" >&2; exit 1; }
cd "$root"
if [ "$build" -eq 1 ]; then
  command -v pnpm >/dev/null || npm install -g pnpm@12.4.2
  export npm_config_nodedir="${npm_config_nodedir:-/usr}"
  pnpm install --frozen-lockfile
  pnpm build
fi
# Tarballs packed before this build would be stale: a fresh build packs its own.
[ "$build" -eq 0 ] || unset AWR_PACKED_TARBALLS
packs="$(mktemp -d /tmp/awr-install.XXXXXX)"
trap 'rm -rf "$packs"' EXIT
dirs=(packages/jsonrpc-core packages/transport-stdio packages/transport-http packages/mcp-client
  packages/awr-ledger packages/awr-server apps/cli apps/service)
for dir in "${dirs[@]}"; do
  [ -d "$dir/dist" ] || { echo "$dir is not built: run without --no-build, or pnpm build first" >&2; exit 1; }
done
"$root/scripts/pack-tarballs.sh" "$packs" "${dirs[@]}"
npm install -g "${prefix[@]}" --no-audit --no-fund --allow-scripts=better-sqlite3 "$packs"/*.tgz
bin="$(npm prefix -g "${prefix[@]}")/bin"
[ "${#prefix[@]}" -eq 0 ] || bin="${prefix[1]}/bin"
echo "Installed awr and awr-mcp in $bin."
case ":$PATH:" in
  *":$bin:"*) ;;
  *) echo "Add it to your PATH: export PATH=\"$bin:\$PATH\"" ;;
esac
echo "Next, in your own repository: awr init (preview), then awr init --accept; it prints the stdio"
echo "configurations for Claude Code, Cursor and Codex."
