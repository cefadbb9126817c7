#!/usr/bin/env bash
# Installs Debian's Chromium (the browser the Inspector's page tests drive, headless) when it is
# missing. Needs root and apt; prints what to do otherwise and exits 1. Nothing is downloaded
# by the npm install: the tests use the system browser at /usr/bin/chromium.
set -uo pipefail
if [ -x /usr/bin/chromium ]; then
  /usr/bin/chromium --version 2>/dev/null || true
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Chromium is missing: install Debian's package as root (apt-get install chromium)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Another install (PostgreSQL's, in CI) may hold the dpkg lock: wait for it.
apt=(apt-get -o DPkg::Lock::Timeout=300)
installed=0
for attempt in 1 2 3; do
  if "${apt[@]}" install -y -q --no-install-recommends chromium >/dev/null 2>&1 ||
    { "${apt[@]}" update -q >/dev/null 2>&1 &&
      "${apt[@]}" install -y -q --no-install-recommends chromium >/dev/null 2>&1; }; then
    installed=1
    break
  fi
  sleep $((attempt * 10))
done
[ "$installed" -eq 1 ] || { echo "apt-get install chromium failed three times" >&2; exit 1; }
/usr/bin/chromium --version
