#!/usr/bin/env bash
# One command from a fresh machine to a ranking: install what is missing, build every server, run the
# suite, then print the ranking and write the report site.
#   scripts/bench.sh                 quick smoke profile (tens of seconds per server, 1 round)
#   scripts/bench.sh --full          the v2 study's profile (50 VUs, adaptive 30-180 s warm-up, 5 min measured, 3 rounds)
#   scripts/bench.sh [--full] ARGS   any further `mcpbench run` arguments (server names, --mode, --runs …)
# A server whose toolchain this machine lacks is listed as unavailable and does not fail the script.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=(--quick)
if [ "${1:-}" = "--full" ]; then profile=(); shift; fi
scripts/setup.sh
results=results
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
status=0
.venv/bin/mcpbench run "${profile[@]}" --results-dir "$results" "$@" || status=$?
# The run's directory: the newest one created after the marker (run ids are UTC timestamps).
run_dir=$(find "$results" -mindepth 1 -maxdepth 1 -type d -newer "$marker" -name '2*' | sort | tail -n 1)
if [ -z "$run_dir" ] || [ "$status" -eq 130 ]; then
  exit "$status"
fi
.venv/bin/mcpbench report "$run_dir" --out "$run_dir/site" || status=$?
echo "Report: $run_dir/site/index.html"
exit "$status"
