#!/usr/bin/env bash
# Quick start: installs and builds the workspace, then serves a demo project (a small bookshop)
# through the shared AWR service and prints how to connect to it. Run it from anywhere; Ctrl-C
# stops the service.
#
#   ./quickstart.sh                    # http://127.0.0.1:8787/mcp
#   AWR_DEMO_PORT=9000 ./quickstart.sh
#
# It prints one line per step. What the installer and the compiler say goes to
# .awr-demo/quickstart.log, which is named (with its last lines) only when a step fails.
# First run: installs pnpm 12.4.2 if missing, installs the dependencies (better-sqlite3 compiles
# from source, about a minute), builds, copies examples/demo-project to .awr-demo/bookshop, runs
# `awr init --accept` on it and generates .awr-demo/token (mode 600) and .awr-demo/registry.toml.
# Later runs reuse all of that (same project_id, same token); install and build are then quick.
# Once the service listens, it runs the printed `awr` command against it before the summary.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$repo"

port="${AWR_DEMO_PORT:-8787}"
host="127.0.0.1"
demo="$repo/.awr-demo"
project_key="bookshop"
project="$demo/$project_key"
token_file="$demo/token"
registry="$demo/registry.toml"
log="$demo/quickstart.log"
token_env="AWR_DEMO_TOKEN"
client_id="demo-client"
pnpm_version="12.4.2"
steps=5

# better-sqlite3 is compiled here rather than downloaded: its installer would otherwise try (and,
# offline or behind a proxy, fail noisily) to fetch a prebuilt binary first.
export TURBO_TELEMETRY_DISABLED=1 npm_config_nodedir="${npm_config_nodedir:-/usr}" \
  npm_config_build_from_source=better-sqlite3 COREPACK_INTEGRITY_KEYS=0

tty=false
[ -t 1 ] && tty=true
die() { printf 'quickstart: %s\n' "$*" >&2; exit 1; }

# Tenths of a second since an arbitrary start (bash 5's EPOCHREALTIME, else whole seconds).
now() {
  if [ -n "${EPOCHREALTIME:-}" ]; then
    local t="${EPOCHREALTIME/[.,]/}"
    echo $((10#$t / 100000))
  else
    echo $((SECONDS * 10))
  fi
}
tenths() { printf '%d.%ds' $(($1 / 10)) $(($1 % 10)); }

# step N TITLE COMMAND...: runs COMMAND with its output appended to the log and prints one line
# "[N/5] TITLE ... ok 12.3s". On a terminal the line shows a spinner and the time so far while it
# runs. On failure it prints the last lines of the log, names the log, and exits.
step() {
  local n="$1" title="$2" start spin='|/-\' i=0 code=0
  shift 2
  start="$(now)"
  printf '\n==> [%s/%s] %s: %s\n' "$n" "$steps" "$title" "$*" >>"$log"
  "$@" >>"$log" 2>&1 </dev/null &
  local pid=$!
  if $tty; then
    while kill -0 "$pid" 2>/dev/null; do
      printf '\r[%s/%s] %-34s %s %s ' "$n" "$steps" "$title" "${spin:i++%4:1}" \
        "$(tenths $(($(now) - start)))"
      sleep 0.1
    done
    printf '\r\033[K'
  fi
  wait "$pid" || code=$?
  local took
  took="$(tenths $(($(now) - start)))"
  if [ "$code" -ne 0 ]; then
    printf '[%s/%s] %-34s FAILED after %s\n' "$n" "$steps" "$title" "$took"
    echo "----- last lines of $log -----"
    tail -n 25 "$log"
    echo "-----"
    die "$title failed (exit $code); the whole output is in $log"
  fi
  printf '[%s/%s] %-34s ok  %6s\n' "$n" "$steps" "$title" "$took"
}

if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
  die "AWR_DEMO_PORT must be a port number (1-65535), not \"$port\""
fi
command -v node >/dev/null 2>&1 || die "Node.js 20 or newer is needed (apt-get install nodejs, or see nodejs.org)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 20 ] || die "Node.js 20 or newer is needed; this is $(node --version)"
if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
  die "port $port on $host is already in use; choose another: AWR_DEMO_PORT=9000 ./quickstart.sh"
fi

mkdir -p "$demo"
chmod 700 "$demo"
: >"$log"
echo "AWR quick start: Node $(node --version), demo in $demo"

install_pnpm() {
  if [ "$(pnpm --version 2>/dev/null || true)" != "$pnpm_version" ]; then
    npm install -g "pnpm@$pnpm_version"
  fi
  pnpm --version
}

awr() { node "$repo/apps/cli/dist/main.js" "$@"; }

# Copies the demo project and initialises its ledger, once; later runs reuse it.
init_demo() {
  if [ -f "$project/.awr/project.toml" ]; then
    echo "reusing the demo project initialised earlier"
    return
  fi
  rm -rf "$project"
  cp -R "$repo/examples/demo-project" "$project"
  awr --project "$project" init --accept
}

# The token (generated once, mode 600) and the registry, regenerated every run from the same
# inputs so that it stays identical between runs; then checked as the service will check it.
write_registry() {
  local root project_id
  root="$(cd "$project" && pwd -P)"
  project_id="$(awr --project "$root" --json status | node -e '
    let text = "";
    process.stdin.on("data", (chunk) => (text += chunk)).on("end", () => {
      const id = JSON.parse(text).project_id;
      if (typeof id !== "string" || id === "") process.exit(1);
      process.stdout.write(id);
    });')"
  if [ ! -s "$token_file" ]; then
    (umask 077 && awr token new >"$token_file")
  fi
  chmod 600 "$token_file"
  (umask 077 && cat >"$registry") <<TOML
# AWR service registry for the quick-start demo (generated by quickstart.sh).
version = 1

[[projects]]
key = "$project_key"
root = "$root"
project_id = "$project_id"

[[clients]]
id = "$client_id"
token_env = "$token_env"
write = ["$project_key"]
TOML
  chmod 600 "$registry"
  env "$token_env=$(tr -d '\n' <"$token_file")" \
    node "$repo/apps/cli/dist/main.js" registry check "$registry"
}

step 1 "pnpm $pnpm_version" install_pnpm
step 2 "install dependencies" pnpm install --frozen-lockfile
step 3 "build" pnpm build
step 4 "demo project \"$project_key\"" init_demo
step 5 "token and registry" write_registry

url="http://$host:$port/mcp"
printf -v quoted_token_file '%q' "$token_file"
export_line="export $token_env=\"\$(cat $quoted_token_file)\""
awr_line="pnpm exec awr --url $url --token-env $token_env --project-key $project_key status"

# Runs in the background once the service (exec'd below, so that it receives Ctrl-C itself and
# stops gracefully with exit code 0) listens: runs the printed awr command exactly as printed,
# in a fresh shell, then prints the summary. If the check fails, it says so and stops the service.
check_and_summarise() {
  local service=$$ waited=0 answer
  until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
    kill -0 "$service" 2>/dev/null || exit 0 # the service failed to start and said why
    [ "$waited" -lt 300 ] || { echo "quickstart: the service did not listen within 30 s" >&2; kill -TERM "$service"; exit 1; }
    waited=$((waited + 1))
    sleep 0.1
  done
  if ! answer="$(cd "$repo" && bash -c "$export_line && $awr_line" 2>&1)"; then
    printf 'quickstart: the awr check failed:\n  %s\n%s\n' "$awr_line" "$answer" >&2
    kill -TERM "$service"
    exit 1
  fi
  echo "checked: awr status over HTTP answered ($(head -n 1 <<<"$answer"))"
  cat <<INFO

AWR demo service is running at $url (Ctrl-C stops it)
  project   "$project_key", served from $project
  token     in $token_file; every configuration below reads it from \$$token_env

1. In the shell that starts your agent host (and for awr below), set the token:
     $export_line

2. Add the server to your host (these files name the variable, never the token):
   Claude Code, .mcp.json in your project:
     {
       "mcpServers": {
         "awr": {
           "type": "http",
           "url": "$url",
           "headers": { "Authorization": "Bearer \${$token_env}" }
         }
       }
     }
   Cursor, .cursor/mcp.json:
     {
       "mcpServers": {
         "awr": {
           "url": "$url",
           "headers": { "Authorization": "Bearer \${env:$token_env}" }
         }
       }
     }
   Codex, ~/.codex/config.toml:
     [mcp_servers.awr]
     url = "$url"
     bearer_token_env_var = "$token_env"
   The host sees awr_projects_list and 8 domain tools (awr_query, awr_context, awr_work, ...):
   call a domain with only "project": "$project_key" for its child tools, then with
   "project", "child_tool" and "arguments" to run one. For every tool by its own name (32 + 1),
   start awr-mcp with AWR_MCP_TOOL_EXPOSURE_MODE=flat.

3. Or drive it from a terminal in $repo:
     $awr_line
INFO
}

export "$token_env=$(tr -d '\n' <"$token_file")"
check_and_summarise &
exec node "$repo/apps/service/dist/main.js" --registry "$registry" --listen "$host:$port"
