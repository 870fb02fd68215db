#!/usr/bin/env bash
# The test command (README, CI): install what is missing, lint and types (ruff, mypy, go vet: zero findings),
# then every test — unit, integration (real servers against real Redis and the API service), end-to-end smoke
# run, report browser test.
#   scripts/test.sh              everything
#   scripts/test.sh -m "not integration"   …or any pytest arguments
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/lint.sh
# The API service's own tests prove the workload's catalog and cart values (docs/workload.md §1).
(cd infra/api-service && go test -count=1 ./...)
# The load driver's own tests: its wire format, checks and schedules (load.js's, byte for byte).
(cd benchmark/load-driver && go test -count=1 ./...)
# The Go servers' shared contract code (servers/common-go: the host guard, the tools' logic).
(cd servers/common-go && go test -count=1 ./...)
# --durations: where the time of a CI run goes (builds, images), printed at the end.
exec .venv/bin/python -m pytest -ra --durations=15 "$@"
