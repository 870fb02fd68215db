#!/usr/bin/env bash
# Makes a Docker engine usable for `mcpbench --runtime docker` on Debian 12 (root), idempotently:
#   1. docker.io from apt when no dockerd is installed;
#   2. dockerd started in the background when none answers on the socket (log: /var/log/mcpbench-dockerd.log);
#   3. compose v2 built from its Go module and installed as the CLI plugin `docker-compose` when
#      `docker compose version` does not answer v2 (Debian packages only compose v1).
# A second run only checks. An engine that already runs (yours, Docker Desktop, a CI service) is used
# as it is and never restarted. Exit 0 = `docker info` and `docker compose version` answer.
#   docker/setup-engine.sh            all of the above
#   docker/setup-engine.sh --check    report only, change nothing (exit 1 if something is missing)
set -euo pipefail
cd "$(dirname "$0")/.."

COMPOSE_VERSION=v2.40.3
PLUGIN_DIR=/usr/local/lib/docker/cli-plugins
DOCKERD_LOG=/var/log/mcpbench-dockerd.log
host=${DOCKER_HOST:-unix:///var/run/docker.sock}
case $host in unix://*) SOCKET=${host#unix://} ;; *) SOCKET="" ;; esac  # tcp:// etc.: not ours to start
export PATH="$PWD/.tools/bin:/usr/local/go/bin:$PATH"

log() { printf '\033[1m[docker-engine]\033[0m %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
check_only=false
[ "${1:-}" = "--check" ] && check_only=true

engine_answers() { timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
compose_v2() { timeout 20 docker compose version --short 2>/dev/null | grep -Eq '^v?2\.'; }

if $check_only; then
  ok=true
  command -v docker >/dev/null || { log "no docker CLI"; ok=false; }
  engine_answers || { log "no Docker daemon answers on ${DOCKER_HOST:-unix://$SOCKET}"; ok=false; }
  compose_v2 || { log "no compose v2 (docker compose)"; ok=false; }
  $ok && log "engine $(docker version --format '{{.Server.Version}}'), compose $(docker compose version --short)"
  $ok
  exit
fi

# One set-up at a time (the CLI, the tests and a user may all call this).
if [ -w /var/lock ] || [ -w /run/lock ]; then
  lockfile=/var/lock/mcpbench-docker-setup.lock
  exec 9>"$lockfile"
  flock 9
fi

need_root() { [ "$(id -u)" -eq 0 ] || die "$1 needs root: run this script as root (or do it yourself)"; }

# 1. The engine packages.
if ! command -v dockerd >/dev/null && ! engine_answers; then
  need_root "installing docker.io"
  log "apt-get install docker.io (Debian's Docker Engine 20.10)"
  apt-get update -qq
  # No service manager runs here; keep the package scripts from trying to start one.
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    docker.io iptables ca-certificates >/dev/null
  rm -f /usr/sbin/policy-rc.d
fi
command -v docker >/dev/null || die "no docker CLI on PATH after installing docker.io"

# 2. The daemon.
if ! engine_answers; then
  [ -n "$SOCKET" ] || die "DOCKER_HOST=$host does not answer and is not a local socket this script can start"
  need_root "starting dockerd"
  if [ -S "$SOCKET" ] && pgrep -x dockerd >/dev/null; then
    log "a dockerd is running but does not answer yet; waiting for it"
  else
    command -v dockerd >/dev/null || die "dockerd is not installed (apt-get install docker.io)"
    # --userland-proxy=false: loopback traffic to published ports is NATed by the kernel instead of
    # passing through one docker-proxy process per port (which would put a copy loop, on the harness's
    # CPUs, between the load generator and the server under test).
    log "starting dockerd (log: $DOCKERD_LOG)"
    rm -f /var/run/docker.pid
    # 9>&-: the daemon must not inherit the set-up lock, or every later set-up waits for it to exit.
    setsid nohup dockerd --host "unix://$SOCKET" --userland-proxy=false >>"$DOCKERD_LOG" 2>&1 </dev/null 9>&- &
  fi
  for _ in $(seq 1 120); do
    engine_answers && break
    sleep 0.5
  done
  engine_answers || die "dockerd did not answer within 60 s; its log: $DOCKERD_LOG
$(tail -n 20 "$DOCKERD_LOG" 2>/dev/null)"
fi
log "engine $(docker version --format '{{.Server.Version}}') ($(docker info --format '{{.Driver}}, cgroup v{{.CgroupVersion}}' 2>/dev/null))"

# 3. compose v2 as a CLI plugin, built from its Go module (no binary download is possible here).
if ! compose_v2; then
  command -v go >/dev/null || die "compose v2 builds with Go, and go is not on PATH"
  log "building compose $COMPOSE_VERSION from its Go module (a few minutes on 2 cores)"
  dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/docker/compose/v2@$COMPOSE_VERSION" \
        | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir" ] || die "go mod download github.com/docker/compose/v2@$COMPOSE_VERSION gave no directory"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  trap 'exit 130' INT TERM
  cp -r "$dir/." "$work/" && chmod -R u+w "$work"
  mkdir -p "$PLUGIN_DIR"
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath \
      -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
      -o "$PLUGIN_DIR/docker-compose" ./cmd)
  compose_v2 || die "compose was built into $PLUGIN_DIR/docker-compose but \`docker compose version\` does not answer v2"
fi
log "compose $(docker compose version --short)"
