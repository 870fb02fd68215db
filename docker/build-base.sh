#!/usr/bin/env bash
# Builds the shared base image mcpbench/base:trixie WITHOUT any image registry:
#   1. debootstrap --variant=minbase trixie into a temporary directory (from Debian's mirror, ~1 min),
#      trimmed (no docs, man pages, locales, apt lists) and `docker import`ed as mcpbench/rootfs:trixie;
#   2. docker/base/Dockerfile on top: the host's extra CA certificates (/usr/local/share/ca-certificates)
#      + ca-certificates, so package installs inside later builds work behind a TLS-intercepting proxy.
# Idempotent: an existing mcpbench/base:trixie is kept unless --force.
#   docker/build-base.sh                     debootstrap path (no registry needed)
#   docker/build-base.sh --rootfs IMAGE      start from IMAGE instead (e.g. debian:trixie-slim, where a
#                                            registry is reachable; docker pulls it)
#   docker/build-base.sh --force             rebuild
# Environment: MCPBENCH_DEBIAN_MIRROR (default http://deb.debian.org/debian), MCPBENCH_DEBIAN_SUITE (trixie).
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE=${MCPBENCH_DEBIAN_SUITE:-trixie}
MIRROR=${MCPBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE=mcpbench/base:$SUITE
ROOTFS_IMAGE=mcpbench/rootfs:$SUITE
EXTRA_CA_DIR=${MCPBENCH_EXTRA_CA_DIR:-/usr/local/share/ca-certificates}

log() { printf '\033[1m[base-image]\033[0m %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

rootfs=""
force=false
while (($#)); do
  case $1 in
    --rootfs) rootfs=${2:?--rootfs needs an image}; shift 2 ;;
    --force) force=true; shift ;;
    *) die "unknown argument $1 (see the header of $0)" ;;
  esac
done

timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1 \
  || die "no Docker daemon answers: run docker/setup-engine.sh first"
if ! $force && docker image inspect "$BASE" >/dev/null 2>&1; then
  log "$BASE exists ($(docker image inspect -f '{{.Id}}' "$BASE" | cut -c8-19)); --force rebuilds it"
  exit 0
fi

work=$(mktemp -d /var/tmp/mcpbench-base.XXXXXX)
cleanup() { rm -rf --one-file-system "$work"; }
trap cleanup EXIT

if [ -z "$rootfs" ]; then
  [ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
  if ! command -v debootstrap >/dev/null; then
    log "apt-get install debootstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  log "debootstrap --variant=minbase $SUITE from $MIRROR"
  started=$(date +%s)
  debootstrap --variant=minbase "$SUITE" "$work/root" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || die "debootstrap failed:
$(tail -n 25 "$work/debootstrap.log")"
  # What the official slim images also leave out, and what docker provides at run time.
  cat >"$work/root/etc/dpkg/dpkg.cfg.d/90mcpbench-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
CFG
  cat >"$work/root/etc/apt/sources.list.d/debian.sources" <<SRC
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${MIRROR%/debian}/debian-security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  rm -f "$work/root/etc/apt/sources.list"
  find "$work/root/usr/share/doc" -mindepth 2 ! -name copyright ! -type d -delete 2>/dev/null || true
  find "$work/root/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
  rm -rf "$work/root/usr/share/man/"* "$work/root/usr/share/info/"* "$work/root/var/cache/apt/archives/"*.deb \
         "$work/root/var/lib/apt/lists/"* "$work/root/var/log/"*.log "$work/root/var/cache/debconf/"*-old
  find "$work/root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
  : >"$work/root/etc/resolv.conf"; : >"$work/root/etc/hostname"
  log "docker import -> $ROOTFS_IMAGE ($(du -sh --one-file-system "$work/root" | cut -f1) after trimming; $(( $(date +%s) - started )) s)"
  tar --numeric-owner --xattrs -C "$work/root" -c . \
    | docker import --change 'CMD ["bash"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --message "debootstrap --variant=minbase $SUITE $MIRROR" - "$ROOTFS_IMAGE" >/dev/null
  rootfs=$ROOTFS_IMAGE
fi

mkdir -p "$work/context/ca"
cp docker/base/Dockerfile "$work/context/Dockerfile"
if [ -d "$EXTRA_CA_DIR" ]; then
  find "$EXTRA_CA_DIR" -name '*.crt' -type f -exec cp {} "$work/context/ca/" \;
fi
log "extra CA certificates trusted: $(ls "$work/context/ca" | tr '\n' ' ')"
log "docker build $BASE from $rootfs"
DOCKER_BUILDKIT=0 docker build -q --build-arg "ROOTFS=$rootfs" -t "$BASE" "$work/context" >/dev/null 2>"$work/build.err" \
  || die "building $BASE failed:
$(tail -n 25 "$work/build.err")"
log "$BASE: $(docker image inspect -f '{{.Size}}' "$BASE" | awk '{printf "%.1f MB", $1/1e6}')"
