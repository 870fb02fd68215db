#!/usr/bin/env bash
# The CI gate as one step (docs/ci.md): the GitHub Action (action.yml) runs this script, and any other CI can.
# It installs what mcpbench lacks (scripts/setup.sh: Redis, the venv, on first use), runs `mcpbench ci` from the
# caller's working directory with the MCPBENCH_* variables below, and hands the verdict to the CI: gate.md is
# appended to $GITHUB_STEP_SUMMARY, and the verdict and the files' paths go to $GITHUB_OUTPUT, when those are set.
# Its exit code is mcpbench ci's: 0 no confirmed regression, 1 a confirmed one, 2 something not measured.
#
#   MCPBENCH_BASE, MCPBENCH_CANDIDATE   the two sides: a command ({port} or $PORT), a URL, or a stdio command
#   MCPBENCH_WORKLOAD                   the workload file (docs/workload-file.md)
#   MCPBENCH_LEVELS                     closed-model VUs, e.g. 1,10 (default: mcpbench ci's)
#   MCPBENCH_ROUNDS, MCPBENCH_CONFIRM_ROUNDS, MCPBENCH_MIN_EFFECT, MCPBENCH_TRANSPORT (http or stdio)
#   MCPBENCH_RESULTS                    where the results directory goes (default: mcpbench-results)
#   MCPBENCH_ARGS                       any further options of mcpbench ci, split on spaces
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

: "${MCPBENCH_BASE:?give the base: MCPBENCH_BASE}" "${MCPBENCH_CANDIDATE:?give the candidate: MCPBENCH_CANDIDATE}"
: "${MCPBENCH_WORKLOAD:?give the workload file: MCPBENCH_WORKLOAD}"
"$root/scripts/setup.sh" --gate >&2 || { echo "ci-gate: scripts/setup.sh failed" >&2; exit 2; }

results=${MCPBENCH_RESULTS:-mcpbench-results}
args=(--base "$MCPBENCH_BASE" --candidate "$MCPBENCH_CANDIDATE" --workload "$MCPBENCH_WORKLOAD" --results-dir "$results")
[ -n "${MCPBENCH_LEVELS:-}" ] && args+=(--vus "$MCPBENCH_LEVELS")
[ -n "${MCPBENCH_ROUNDS:-}" ] && args+=(--rounds "$MCPBENCH_ROUNDS")
[ -n "${MCPBENCH_CONFIRM_ROUNDS:-}" ] && args+=(--confirm-rounds "$MCPBENCH_CONFIRM_ROUNDS")
[ -n "${MCPBENCH_MIN_EFFECT:-}" ] && args+=(--min-effect "$MCPBENCH_MIN_EFFECT")
[ -n "${MCPBENCH_TRANSPORT:-}" ] && args+=(--transport "$MCPBENCH_TRANSPORT")
# shellcheck disable=SC2206 # further options, split on spaces as documented
[ -n "${MCPBENCH_ARGS:-}" ] && args+=($MCPBENCH_ARGS)

mkdir -p "$results"
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
status=0
"$root/.venv/bin/mcpbench" ci "${args[@]}" || status=$?
run_dir=$(find "$results" -mindepth 1 -maxdepth 1 -type d -newer "$marker" -name '2*' | sort | tail -n 1)
if [ -z "$run_dir" ] || [ ! -f "$run_dir/gate.json" ]; then
  echo "ci-gate: mcpbench ci wrote no verdict (exit $status)" >&2
  exit $(( status == 0 ? 2 : status ))
fi
verdict=$("$root/.venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["verdict"])' "$run_dir/gate.json")
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$run_dir/gate.md" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "verdict=$verdict"
    echo "results=$run_dir"
    echo "json=$run_dir/gate.json"
    echo "markdown=$run_dir/gate.md"
    echo "junit=$run_dir/gate.junit.xml"
  } >> "$GITHUB_OUTPUT"
fi
echo "ci-gate: $verdict (exit $status): $run_dir/gate.md"
exit "$status"
