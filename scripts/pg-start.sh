#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 server on loopback for the test suite and prints its URL.
# Usage: scripts/pg-start.sh [PORT] [DATA_DIR]   (installs PostgreSQL from Debian if missing)
# Stop it with: runuser -u postgres -- pg_ctl -D DATA_DIR stop -m fast
set -euo pipefail
port="${1:-54329}"
data="${2:-/tmp/awr-pg-$port}"
bin=/usr/lib/postgresql/15/bin
if [ ! -x "$bin/pg_ctl" ]; then
  echo "installing PostgreSQL 15 from Debian packages" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
fi
if ! runuser -u postgres -- "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  rm -rf "$data" && mkdir -p "$data" && chown postgres:postgres "$data"
  runuser -u postgres -- "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 >/dev/null
  runuser -u postgres -- "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k /tmp -c fsync=on -c max_connections=200" start >/dev/null
fi
echo "postgres://postgres@127.0.0.1:$port/postgres"
