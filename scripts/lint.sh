#!/usr/bin/env bash
# Lint and types, zero findings allowed (scripts/test.sh runs it after setup, before the tests):
#   ruff  over benchmark/mcpbench and report/mcpbench_report (pyproject.toml [tool.ruff]: pyflakes, pycodestyle
#         errors, isort, bugbear, unused noqa markers);
#   mypy  over the same two packages (pyproject.toml [tool.mypy]);
#   go vet over every Go module of the repository (servers/, infra/, the load driver).
# One line per tool; each finding is printed above it. Exits 1 when any tool found anything.
# The Go modules come from the Go module proxy the first time (go.sum pins them; nothing else is fetched).
set -uo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1m[lint]\033[0m %s\n' "$*"; }
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

start=$(now)
if .venv/bin/ruff check --quiet --output-format concise >"$out" 2>&1; then
  log "ruff: 0 findings ($(took "$start"))"
else
  cat "$out"
  log "ruff: $(grep -c ':[0-9]*:[0-9]*: ' "$out") finding(s) ($(took "$start"))"; failed=1
fi

start=$(now)
if .venv/bin/mypy >"$out" 2>&1; then
  log "mypy: $(tail -n 1 "$out") ($(took "$start"))"
else
  cat "$out"
  log "mypy: $(tail -n 1 "$out") ($(took "$start"))"; failed=1
fi

start=$(now)
modules=0
vetted=0
# -mod=readonly: go.mod and go.sum as committed, so only the module proxy is asked for what go.sum pins.
while read -r mod; do
  dir=$(dirname "$mod")
  modules=$((modules + 1))
  if (cd "$dir" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly" go vet ./...) >"$out" 2>&1; then
    vetted=$((vetted + 1))
  else
    sed "s|^|$dir: |" "$out"
  fi
done < <(git ls-files '*go.mod' | grep -v -e node_modules/ -e third-party/)
if ((vetted == modules)); then
  log "go vet: 0 findings in $modules modules ($(took "$start"))"
else
  log "go vet: findings in $((modules - vetted)) of $modules modules ($(took "$start"))"; failed=1
fi

exit "$failed"
