#!/usr/bin/env bash
# One command from a fresh machine to results: install what is missing, build every server, run the suite.
#   scripts/bench.sh                 quick smoke profile (tens of seconds per server)
#   scripts/bench.sh --full          the v2 study's profile (50 VUs, 15 s ramp, 60 s warm-up, 5 min measured)
#   scripts/bench.sh [--full] ARGS   any further `mcpbench run` arguments (server names, --mode, --runs …)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=(--quick)
if [ "${1:-}" = "--full" ]; then profile=(); shift; fi
scripts/setup.sh
exec .venv/bin/mcpbench run "${profile[@]}" "$@"
