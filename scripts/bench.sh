#!/usr/bin/env bash
# One command from a fresh machine to a ranking: install what is missing, build every server, run the
# suite, then print the ranking and write the report site.
#   scripts/bench.sh                 first-run profile: each SDK once (--first-run: the what-if variants and
#                                    the alternatives of `mcpbench list` left out; 12 stacks) and rust's A/A twin,
#                                    3 interleaved rounds (so every pair can be tested)
#                                    of an equal load (70 % of the slowest server's round-1 rate at 50 VUs, offered
#                                    to every server), round 1 also at 50 VUs (closed model, fixed 10 s warm-up,
#                                    3 s window: it sizes the equal load),
#                                    quick warm-up (10-60 s, 5 s spans), 5 s measured windows
#   scripts/bench.sh --all-stacks    the same profile over each stack (--stacks-only: 19 stacks here, ~40 min)
#   scripts/bench.sh --full          the v2 study's profile (50 VUs, adaptive 30-180 s warm-up, 5 min measured),
#                                    rounds until the order is resolved (--rounds auto, at most 6), equal load too
#   scripts/bench.sh [--full|--all-stacks] ARGS
#                                    any further `mcpbench run` arguments (server names, --mode, --rounds …)
# A server whose toolchain this machine lacks is listed as unavailable and does not fail the script.
set -euo pipefail
cd "$(dirname "$0")/.."
# The first run should end with tiers: one round cannot be tested (issue 21). To keep three rounds within the
# wall time of the one round it replaced, the windows are 5 s, the quick warm-up compares 5 s spans, the closed
# model runs in round 1 only (--closed-once: it sizes the equal load; throughput needs --full to be ranked), and
# each SDK is measured once: the v2-parity worker counts and the end-of-life Node.js answer "what if", not
# "which stack", and an SDK on another framework, runtime or layer (bun, deno, java-vt, java-webflux, micronaut,
# python-granian, python-lowlevel) is an alternative to a server measured already. 20 servers cannot fit 30
# minutes on two cores at ~100 s of measuring each; 13 can (name them, --all-stacks or --full to measure the
# rest). docs/first-run-profile.md gives its wall time and what the short windows and three rounds cost, measured.
# --twin rust measures rust twice in every round (rust and rust-twin): the report's A/A self-check, which its
# statistics must never separate (issue 34; docs/statistics.md).
profile=(--quick --rounds 3 --duration 5 --equal-load 0.7 --closed-once --first-run --twin rust)
case "${1:-}" in
  --full) profile=(--rounds auto --equal-load 0.7 --twin rust); shift ;;
  --all-stacks) profile=(--quick --rounds 3 --duration 5 --equal-load 0.7 --closed-once --stacks-only --twin rust); shift ;;
esac
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
