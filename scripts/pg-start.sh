#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 server on loopback for the test suite and prints its URL.
# Usage: scripts/pg-start.sh [PORT] [DATA_DIR] [OWNER_PID]   (installs PostgreSQL if missing)
# Stop it with: runuser -u postgres -- pg_ctl -D DATA_DIR stop -m fast
# It also stops by itself: a watchdog stops it (and removes DATA_DIR) once OWNER_PID has exited,
# so a killed CI run or benchmark leaves no server behind, and in any case after
# AWR_PG_MAX_SECONDS (default 7200). The watchdog ends when the server stops.
set -euo pipefail
port="${1:-54329}"
data="${2:-/tmp/awr-pg-$port}"
owner="${3:-}"
max_seconds="${AWR_PG_MAX_SECONDS:-7200}"
bin=/usr/lib/postgresql/15/bin
if [ ! -x "$bin/pg_ctl" ]; then
  echo "installing PostgreSQL 15 from Debian packages" >&2
  apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq postgresql-15 >&2
fi
if ! runuser -u postgres -- "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  rm -rf "$data" && mkdir -p "$data" && chown postgres:postgres "$data"
  runuser -u postgres -- "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 >/dev/null
  runuser -u postgres -- "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k /tmp -c fsync=on -c max_connections=200" start >/dev/null
  # Detached, with no stdio shared with the caller (a `$(...)` would wait for it otherwise).
  setsid bash -c '
    bin=$1 data=$2 owner=$3 deadline=$((SECONDS + $4))
    while [ -f "$data/postmaster.pid" ]; do
      if [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then
        runuser -u postgres -- "$bin/pg_ctl" -D "$data" stop -m fast
        rm -rf "$data"
        exit 0
      fi
      if [ "$SECONDS" -ge "$deadline" ]; then
        runuser -u postgres -- "$bin/pg_ctl" -D "$data" stop -m fast
        exit 0
      fi
      sleep 2
    done' pg-watchdog "$bin" "$data" "$owner" "$max_seconds" </dev/null >/dev/null 2>&1 &
fi
echo "postgres://postgres@127.0.0.1:$port/postgres"
