#!/usr/bin/env bash
# The test command (README, CI): install what is missing, lint and types (ruff, mypy, go vet: zero findings),
# then every test — unit, integration (real servers against real Redis and the API service), end-to-end smoke
# run, report browser test — in two pytest sessions: the unit tests while the servers and the Docker images
# build, then the rest.
#   scripts/test.sh              everything
#   scripts/test.sh -m "not integration"   …or any pytest arguments
set -euo pipefail
cd "$(dirname "$0")/.."
# Where the time goes, phase by phase (printed as each ends, and all together at the end).
t0=$(date +%s) mark=$t0 phases=""
phase() { local now; now=$(date +%s); phases+="  $1: $(( now - mark )) s\n"; echo "[test] $1: $(( now - mark )) s"; mark=$now; }
scripts/setup.sh
phase "set-up"
if [ $# -eq 0 ]; then
  # Every server is built while the unit tests run: they use one core, and a fresh clone's builds (crates, Maven
  # and npm downloads) another; the integration tests then find them built and take the toolchains' cached path.
  build_logs=$(mktemp -d -t mcpbench-build.XXXXXX)  # never results/: tests do not write there
  .venv/bin/mcpbench build --logs "$build_logs" >"$build_logs/build.out" 2>&1 &
  build_pid=$!
  # So are the Docker engine, the base image and the images of the servers tests/docker runs (4-12 min on a
  # fresh machine, much of it downloads: debootstrap, apt and module fetches inside the builds). A failure
  # here is tests/docker's to report; the images are built again there, from the layers that got built.
  export MCPBENCH_DOCKER_SERVERS=${MCPBENCH_DOCKER_SERVERS:-baseline,python}  # tests/docker's default
  image_pid=""
  if [ -z "${MCPBENCH_SKIP_DOCKER:-}" ]; then
    { .venv/bin/mcpbench images build ${MCPBENCH_DOCKER_SERVERS//,/ } --logs "$build_logs/docker"
      bash scripts/swarm-lab.sh registry; } >"$build_logs/images.out" 2>&1 &  # the swarm lab's registry, too
    image_pid=$!
  fi
  trap 'kill $build_pid $image_pid 2>/dev/null || true' EXIT  # SIGTERM: each kills the builds it runs
  trap 'exit 130' INT TERM  # Ctrl-C ends the whole command, not only the pytest session it lands in
fi
scripts/lint.sh
phase "lint and types"
# The API service's own tests prove the workload's catalog and cart values (docs/workload.md §1).
(cd infra/api-service && go test -count=1 ./...)
# The load driver's own tests: its wire format, checks and schedules (load.js's, byte for byte).
(cd benchmark/load-driver && go test -count=1 ./...)
# The Go servers' shared contract code (servers/common-go: the host guard, the tools' logic).
(cd servers/common-go && go test -count=1 ./...)
# The hand-written floor's own JSON-RPC: its dimension tools and its surface (docs/workload.md §6, §7).
(cd servers/baseline && go test -count=1 ./...)
phase "Go tests"
# --durations: where the time of a CI run goes (builds, images), printed at the end.
if [ $# -gt 0 ]; then
  exec .venv/bin/python -m pytest -ra --durations=15 "$@"
fi
UNIT='not integration and not e2e and not docker and not browser'
failed=0
.venv/bin/python -m pytest -ra --durations=10 -m "$UNIT" || failed=$?
phase "unit tests (the servers and images building beside them)"
# A failed build is the integration tests' to report (each server's test names it); only the wait is said here.
wait "$build_pid" || true
[ -z "$image_pid" ] || wait "$image_pid" || true
trap - EXIT
phase "the rest of the builds and images ($build_logs)"
# --durations=40: each slow test is named with its time, so what a landing added to the command shows.
.venv/bin/python -m pytest -ra --durations=40 -m "not ($UNIT)" || failed=$?
phase "integration, end-to-end, Docker and browser tests"
printf '[test] where the %d s went:\n%b' "$(( $(date +%s) - t0 ))" "$phases"
exit "$failed"
