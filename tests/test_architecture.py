"""The package tree is the architecture (docs/architecture.md): import-linter checks the contracts in
pyproject.toml (each orchestrator layer imports only the layers below it; the report only the results, the
analysis and the kinds of load; the orchestrator never the report), and no module of either package is in an
import circle."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold() -> None:
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports"), "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout


def test_no_import_circle_and_nothing_imports_upward() -> None:
    # A process of its own: under pytest, `mcpbench_report` would resolve to tests/mcpbench_report.
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "import_graph.py"), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["circles"] == []
    assert figures["upward_imports"] == []
    assert len(figures["layers"]) == 13
    assert not [m for m in figures["report_pulls"] if m.split(".")[1] not in ("results", "analysis", "loads", "records",
                                                                             "workload")]
