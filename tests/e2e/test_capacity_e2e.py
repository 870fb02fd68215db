"""End-to-end capacity: the real CLI runs a short ladder on the one experiment driver, and its run.json says
what happened — an open-model run (capacity runs said `closed` before the experiments seam), the mode the
server cannot be measured in named and recorded (capacity skipped it silently before)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpbench.results.model import CAPACITY_FILE, RUN_FILE, Capacity, Run, validated
from test_smoke_run import leftovers, mcpbench, only_run

pytestmark = pytest.mark.e2e

SERVER = "baseline"  # no SDK; its manifest does not list the 2026-07-28 revision


def test_a_short_capacity_ladder_records_what_it_ran(tmp_path: Path) -> None:
    proc = mcpbench("capacity", SERVER, "--mode", "session,stateless-2026", "--quick", "--no-calibrate",
                    "--start-rate", "40", "--max-steps", "2", "--step-duration", "3s", "--vus", "10",
                    "--results-dir", str(tmp_path))
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    assert f"{SERVER}: not measured in mode stateless-2026" in " ".join(out.split())
    run_dir = only_run(tmp_path)
    run = validated(Run, json.loads((run_dir / RUN_FILE).read_text()), RUN_FILE)
    assert run["config"]["experiment"] == "capacity" and run["config"]["kind"] == "open"
    assert set(run["servers"][SERVER]["unsupported_modes"]) == {"stateless-2026"}
    capacity = validated(Capacity, json.loads((run_dir / SERVER / CAPACITY_FILE).read_text()), CAPACITY_FILE)
    assert [(r["mode"], r["run"]) for r in capacity["rounds"]] == [("session", 1)]
    assert run["servers"][SERVER]["measurements"] == ["session-rate40-r1", "session-rate50-r1"][:len(
        run["servers"][SERVER]["measurements"])]
    assert not leftovers(str(tmp_path))
