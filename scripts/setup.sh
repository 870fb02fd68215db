#!/usr/bin/env bash
# Installs whatever this machine lacks for mcpbench (Debian 12): redis-server and chromium from apt,
# and the orchestrator's Python environment (.venv) from requirements.lock.
# Idempotent: a second run only checks. Language toolchains (go, cargo, node, JDK 21+, mvn) are expected
# from the machine image; a missing one is reported and the servers that need it are skipped, not failed.
set -euo pipefail
cd "$(dirname "$0")/.."

export PATH="$PWD/.tools/bin:$PATH"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# --gate: only what `mcpbench ci` needs (scripts/ci-gate.sh on a CI runner): Redis and the venv, no browser and no
# third-party servers.
gate=0
[ "${1:-}" = "--gate" ] && gate=1
apt_packages=()
command -v redis-server >/dev/null || apt_packages+=(redis-server)
[ "$gate" -eq 1 ] || command -v chromium >/dev/null || apt_packages+=(chromium)
if ((${#apt_packages[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    log "missing ${apt_packages[*]}: run this script as root (or install them) first"; exit 1
  fi
  log "apt-get install ${apt_packages[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi
# Debian's package starts a redis-server on 6379 where it can; the suite runs its own on a free port.
if command -v systemctl >/dev/null && systemctl is-active --quiet redis-server 2>/dev/null; then
  systemctl stop redis-server || true
fi


if [ ! -x .venv/bin/python ] || ! cmp -s requirements.lock .venv/.requirements.lock; then
  log "creating .venv from requirements.lock"
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -r requirements.lock
  cp requirements.lock .venv/.requirements.lock
fi
.venv/bin/pip install -q --no-deps --no-build-isolation -e . 2>/dev/null || .venv/bin/pip install -q --no-deps -e .

for tool in go cargo node npm mvn; do
  command -v "$tool" >/dev/null || log "WARNING: $tool is not installed; servers that need it will be skipped"
done
# MCP servers nobody on this project wrote, pinned (package-lock.json): what the tests and the README's "Your own
# server" measure as targets given on the command line.
for dir in benchmark/third-party/*/; do
  [ "$gate" -eq 0 ] && [ -f "$dir/package-lock.json" ] && command -v npm >/dev/null || continue
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    log "installing $dir (npm ci)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || log "WARNING: npm ci failed in $dir"
  fi
done
ls /usr/lib/jvm/*/release 2>/dev/null | xargs -r grep -l 'JAVA_VERSION="2[1-9]' >/dev/null \
  || log "WARNING: no JDK 21+ in /usr/lib/jvm; the Java servers will be skipped"
log "ready: $(redis-server --version | cut -d' ' -f3), .venv/bin/mcpbench"
