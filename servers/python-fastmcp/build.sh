#!/usr/bin/env bash
# Create .venv from the hashed lock. A warm rebuild is a no-op: the venv records the lock's sha256 and the
# interpreter version it was built from, and is rebuilt only when either changed (or a build did not finish).
set -euo pipefail
cd "$(dirname "$0")"

stamp=.venv/.built-from
want="$(python3 -c 'import sys; print(sys.version)')"$'\n'"$(sha256sum requirements.lock)"
if [[ -x .venv/bin/python && -f $stamp && "$(cat "$stamp")" == "$want" ]]; then
  echo "python-fastmcp: .venv is up to date with requirements.lock"
  exit 0
fi

rm -rf .venv
python3 -m venv .venv
# Wheels only: nothing is compiled at build time, and every file is checked against the lock's hashes.
.venv/bin/pip install --quiet --disable-pip-version-check --no-input \
  --require-hashes --only-binary :all: --no-deps -r requirements.lock
printf '%s' "$want" > "$stamp"
