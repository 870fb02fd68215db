#!/usr/bin/env bash
# A multi-host lab on one machine: a real Docker swarm whose "hosts" are network namespaces, each with a
# dockerd of its own (its own data root, exec root, socket, containerd and cgroup parent), joined by one
# bridge. `mcpbench … --runtime swarm` then runs exactly as on real VMs: it sees only Docker endpoints.
#
#   scripts/swarm-lab.sh up      namespaces, bridge, one dockerd each, swarm init/join, role labels,
#                                the endpoints file the swarm runtime reads by default
#   scripts/swarm-lab.sh up --registry
#                                also a registry (distribution, built from the Go module proxy) on the
#                                bridge, TLS with a certificate every engine here trusts (certs.d), named in
#                                the endpoints file: images then move by push/pull and deploy by digest
#   scripts/swarm-lab.sh down    everything above removed (services first), nothing left behind
#   scripts/swarm-lab.sh status  the nodes as the manager sees them
#   scripts/swarm-lab.sh registry  only build the registry `up --registry` runs (scripts/test.sh, ahead of time)
#
# Nodes: server (the manager; the server under test runs alone there), infra (Redis, the API service),
# load1 … loadN (the load driver; MCPBENCH_LAB_LOAD_NODES, default 2). The underlay is 192.168.231.0/24 on
# the bridge mcpblab0 (the host is .1): nothing in the lab is reachable from outside this machine.
# A second lab beside the first (the tests' own): MCPBENCH_LAB=<≤ 8 letters> and MCPBENCH_LAB_SUBNET=<a.b.c>
# give it other names, roots and underlay; MCPBENCH_SWARM_FILE another endpoints file.
#
# This kernel has no IPVS, so swarm's virtual-IP load balancing and its ingress routing mesh cannot work:
# the runtime deploys every service with DNS round-robin endpoints (endpoint_mode dnsrr) and publishes
# ports in host mode on the node that runs the task. Overlay networks (VXLAN) work.
#
# Needs root, iproute2, iptables, nsenter and dockerd (docker/setup-engine.sh installs it).
set -euo pipefail

LAB=${MCPBENCH_LAB:-mcpblab}        # interface names are "$LAB-load1": at most 15 characters
BRIDGE=${LAB}0
SUBNET_PREFIX=${MCPBENCH_LAB_SUBNET:-192.168.231}
STATE=/run/mcpbench-lab/$LAB         # sockets, exec roots, pid files, logs
DATA=/var/lib/mcpbench-lab/$LAB      # each node's data root (images survive a down/up only if KEEP_DATA=1)
ENDPOINTS=${MCPBENCH_SWARM_FILE:-/etc/mcpbench/swarm.json}
LOAD_NODES=${MCPBENCH_LAB_LOAD_NODES:-2}
# Swarm's overlay subnets, away from the underlay and from 10/8 networks the host may route.
ADDR_POOL=172.30.0.0/16

ROOT=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$ROOT/.tools/bin:/usr/local/go/bin:$PATH"
REGISTRY_VERSION=v3.1.2               # github.com/distribution/distribution/v3 (Apache-2.0)
REGISTRY_PORT=5000

log() { printf '\033[1m[swarm-lab]\033[0m %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

nodes() {
  echo "server 11 server"
  echo "infra 12 infra"
  for i in $(seq 1 "$LOAD_NODES"); do echo "load$i $((12 + i)) load"; done
}

sock() { echo "unix://$STATE/$1.sock"; }
dk() { local node=$1; shift; docker -H "$(sock "$node")" "$@"; }

engine_answers() { timeout 5 docker -H "$(sock "$1")" version --format '{{.Server.Version}}' >/dev/null 2>&1; }

up_network() {
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$SUBNET_PREFIX.1/24" dev "$BRIDGE"
  fi
  ip link set "$BRIDGE" up
  # Docker sets the host's FORWARD policy to DROP and bridged frames pass iptables (br_netfilter):
  # let the lab's nodes talk to each other across the bridge.
  iptables -C FORWARD -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT 2>/dev/null \
    || iptables -I FORWARD 1 -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT
  while read -r node octet _; do
    local ns=$LAB-$node
    [ -e "/run/netns/$ns" ] || ip netns add "$ns"
    if ! ip link show "$LAB-$node" >/dev/null 2>&1; then
      ip link add "$LAB-$node" type veth peer name eth0 netns "$ns"
      ip link set "$LAB-$node" master "$BRIDGE" up
      ip -n "$ns" addr add "$SUBNET_PREFIX.$octet/24" dev eth0
      ip -n "$ns" link set eth0 up
      ip -n "$ns" link set lo up
    fi
  done < <(nodes)
}

up_engines() {
  mkdir -p "$STATE" "$DATA"
  while read -r node _ _; do
    engine_answers "$node" && continue
    local ns=$LAB-$node
    mkdir -p "$STATE/$node" "$DATA/$node"
    # nsenter --net (not `ip netns exec`, which remounts /sys and hides the cgroup hierarchy from dockerd);
    # a UTS namespace of its own so the node has a hostname of its own (`docker node ls`).
    nsenter --net="/run/netns/$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$LAB-$node" dockerd \
      --host "$(sock "$node")" --data-root "$DATA/$node" --exec-root "$STATE/$node" \
      --pidfile "$STATE/$node.pid" --cgroup-parent "$LAB-$node" --userland-proxy=false \
      --containerd-namespace "$LAB-$node" --containerd-plugins-namespace "$LAB-$node-plugins" \
      >"$STATE/$node.log" 2>&1 &
  done < <(nodes)
  while read -r node _ _; do
    for _ in $(seq 1 120); do engine_answers "$node" && break; sleep 0.5; done
    engine_answers "$node" || die "the $node node's dockerd did not start (log: $STATE/$node.log)"
  done < <(nodes)
}

up_swarm() {
  local state
  state=$(dk server info --format '{{.Swarm.LocalNodeState}}')
  if [ "$state" != active ]; then
    dk server swarm init --advertise-addr "$SUBNET_PREFIX.11" --listen-addr "$SUBNET_PREFIX.11:2377" \
      --default-addr-pool "$ADDR_POOL" >/dev/null
  fi
  local token
  token=$(dk server swarm join-token -q worker)
  while read -r node octet role; do
    if [ "$node" != server ] && [ "$(dk "$node" info --format '{{.Swarm.LocalNodeState}}')" != active ]; then
      dk "$node" swarm join --token "$token" --advertise-addr "$SUBNET_PREFIX.$octet" \
        --listen-addr "$SUBNET_PREFIX.$octet:2377" "$SUBNET_PREFIX.11:2377" >/dev/null
    fi
    local id
    id=$(dk "$node" info --format '{{.Swarm.NodeID}}')
    dk server node update --label-add "mcpbench.role=$role" "$id" >/dev/null
  done < <(nodes)
}

registry_address() { echo "$SUBNET_PREFIX.1:$REGISTRY_PORT"; }

build_registry() {
  if ! command -v registry >/dev/null; then
    log "building the registry (distribution $REGISTRY_VERSION) into .tools/bin"
    GOBIN="$ROOT/.tools/bin" go install "github.com/distribution/distribution/v3/cmd/registry@$REGISTRY_VERSION"
  fi
}

up_registry() {
  local dir=$STATE/registry address
  address=$(registry_address)
  build_registry
  if [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null; then return; fi
  mkdir -p "$dir" "$DATA/registry"
  # A certificate for the bridge address, trusted by every engine on this machine through certs.d (no
  # daemon restart, no insecure registry).
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=$LAB registry" \
    -addext "subjectAltName=IP:$SUBNET_PREFIX.1" -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
  mkdir -p "/etc/docker/certs.d/$address"
  cp "$dir/cert.pem" "/etc/docker/certs.d/$address/ca.crt"
  printf '%s\n' "version: 0.1" "log: {level: warn}" \
    "storage: {filesystem: {rootdirectory: $DATA/registry}, delete: {enabled: true}}" \
    "http: {addr: \"$address\", tls: {certificate: $dir/cert.pem, key: $dir/key.pem}}" >"$dir/config.yml"
  registry serve "$dir/config.yml" >"$dir/registry.log" 2>&1 &
  echo $! >"$dir/pid"
  for _ in $(seq 1 100); do curl -sf --cacert "$dir/cert.pem" "https://$address/v2/" >/dev/null && return; sleep 0.1; done
  die "the registry did not start (log: $dir/registry.log)"
}

write_endpoints() {
  # What the swarm runtime reads by default: the manager and every node's own engine (the runtime reads
  # each node's container stats, loads images and measures clocks through it).
  mkdir -p "$(dirname "$ENDPOINTS")"
  {
    printf '{\n  "name": "%s",\n  "manager": "%s",\n  "nodes": [\n' "$LAB" "$(sock server)"
    local first=true
    while read -r node octet role; do
      $first || printf ',\n'
      first=false
      printf '    {"hostname": "%s", "engine": "%s", "address": "%s", "role": "%s"}' \
        "$node" "$(sock "$node")" "$SUBNET_PREFIX.$octet" "$role"
    done < <(nodes)
    printf '\n  ]'
    if $WITH_REGISTRY; then printf ',\n  "registry": "%s/mcpbench"' "$(registry_address)"; fi
    printf '\n}\n'
  } >"$ENDPOINTS.tmp"
  mv "$ENDPOINTS.tmp" "$ENDPOINTS"
}

up() {
  [ "$(id -u)" -eq 0 ] || die "the lab needs root (network namespaces, a bridge, dockerd)"
  command -v dockerd >/dev/null || die "no dockerd: run docker/setup-engine.sh first"
  up_network
  up_engines
  up_swarm
  if $WITH_REGISTRY; then up_registry; fi
  write_endpoints
  log "lab up: $(dk server node ls --format '{{.Hostname}}' | wc -l) nodes; endpoints in $ENDPOINTS"
}

down() {
  if [ -S "$STATE/server.sock" ] && engine_answers server; then
    # Anything still deployed (ours or not) goes first, so no task is killed mid-way by its engine's end.
    dk server service ls -q | xargs -r docker -H "$(sock server)" service rm >/dev/null 2>&1 || true
  fi
  while read -r node _ _; do
    if [ -f "$STATE/$node.pid" ]; then
      local pid
      pid=$(cat "$STATE/$node.pid")
      if kill -0 "$pid" 2>/dev/null; then
        engine_answers "$node" && dk "$node" swarm leave --force >/dev/null 2>&1 || true
        kill "$pid"
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null || true
      fi
    fi
    # Whatever a killed dockerd left mounted under its roots.
    grep -E " ($STATE/$node|$DATA/$node)[/ ]" /proc/mounts | awk '{print $2}' | sort -r | xargs -r umount -l 2>/dev/null || true
    ip link del "$LAB-$node" 2>/dev/null || true
    ip netns del "$LAB-$node" 2>/dev/null || true
  done < <(nodes)
  if [ -f "$STATE/registry/pid" ]; then
    kill "$(cat "$STATE/registry/pid")" 2>/dev/null || true
    rm -rf "/etc/docker/certs.d/$(registry_address)"
  fi
  iptables -D FORWARD -i "$BRIDGE" -o "$BRIDGE" -j ACCEPT 2>/dev/null || true
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$STATE"
  [ "${KEEP_DATA:-0}" = 1 ] || rm -rf "$DATA"
  rm -f "$ENDPOINTS"
  log "lab down"
}

WITH_REGISTRY=false
[ "${2:-}" = "--registry" ] && WITH_REGISTRY=true
case ${1:-} in
  up) up ;;
  down) down ;;
  status) dk server node ls --format '{{.Hostname}} {{.Status}} {{.Availability}} {{.ManagerStatus}}' ;;
  registry) build_registry ;;
  *) echo "usage: $0 up|down|status|registry" >&2; exit 2 ;;
esac
